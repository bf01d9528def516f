import { createRequire } from "node:module";

/**
 * Loads an optional peer dependency (prom-client, @opentelemetry/api), or null when the host
 * has not installed it. Synchronous, so the router knows at creation whether it can count
 * anything; both packages ship CommonJS, and an ESM host importing them gets the same module
 * instance (the host's own registry and tracer provider are the ones seen here).
 */
export function loadOptional<T>(name: string): T | null {
  try {
    return createRequire(import.meta.url)(name) as T;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND") return null;
    throw error;
  }
}
