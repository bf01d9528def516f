/**
 * Process-wide state, one instance however many copies of this module are loaded (the ESM and
 * CJS builds, or two entry points of a CJS bundle): they may share a pool or a PGlite instance.
 */
export function shared<T>(name: string, create: () => T): T {
  const registry = globalThis as unknown as Record<symbol, unknown>;
  const key = Symbol.for(`express-crypto-pay:${name}`);
  return (registry[key] ??= create()) as T;
}
