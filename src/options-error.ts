import type { z } from "zod";

/**
 * Start-up errors for options: what a factory (`createPaymentRouter`, `evmChain`,
 * `exchangeRates`, `postgresStorage`, `webhookHandler`, ...) throws when it is given options it
 * cannot use. Shared so that a misconfiguration reads the same wherever it is made; it lives at
 * the top of src/ because src/http, src/adapters, src/client and src/webhooks all use it.
 *
 * An unknown key is nearly always a typo, so its message suggests the known name nearest to it
 * and lists every valid one: "unknown option(s) publicURL (did you mean publicUrl?); valid
 * options: storage, dataDir, ...". Only option names are written, never values: a hot wallet
 * key or an RPC URL with credentials must not reach a log.
 */

/**
 * The start-up error for options that failed their zod schema: `${caller}: ` and every problem,
 * "; "-separated, each naming the option at fault ("rpcUrl must be an http(s) URL...") or the
 * unknown ones, with the nearest known name and the valid ones (read from `schema` at the
 * unknown keys' place, nested objects included).
 *
 * `separator` goes between an option's path and its message: the adapters read "rpcUrl must
 * be...", the router "mountPath: must be..." (their messages are written for those forms, and
 * tests and users match on them, so each keeps its own). Only paths and the schema's own
 * messages are written, never the input.
 */
export function optionsError(caller: string, error: z.ZodError, separator: " " | ": " = " ", schema?: z.ZodType): TypeError {
  const unknown: string[] = [];
  const invalid: string[] = [];
  for (const issue of error.issues) {
    const keys = unknownKeysOf(issue);
    if (keys) unknown.push(unknownKeysProblem(keys.keys, schema ? knownKeysAt(schema, keys.path) : [], keys.path));
    else invalid.push(`${pathText(issue.path) || "options"}${separator}${issue.message}`);
  }
  // Unknown keys first: a misspelt option is often why a required one reads as missing.
  return new TypeError(`${caller}: ${[...unknown, ...invalid].join("; ")}`);
}

/**
 * Throws the start-up error for any key of `options` outside `known` (for factories that check
 * their options by hand rather than with a zod schema).
 */
export function refuseUnknownOptions(caller: string, options: object, known: readonly string[]): void {
  const unknown = Object.keys(options).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw new TypeError(`${caller}: ${unknownKeysProblem(unknown, known, [])}`);
}

/**
 * "unknown option(s) publicURL (did you mean publicUrl?); valid options: ..." for the keys
 * `unknown` of the object at `path` ("valid options of webhooks: ..." when nested).
 */
export function unknownKeysProblem(unknown: readonly string[], known: readonly string[], path: readonly PropertyKey[]): string {
  const named = unknown.map((key) => {
    const near = nearestName(key, known);
    return near ? `${key} (did you mean ${near}?)` : key;
  });
  const where = path.length > 0 ? `${pathText(path)}.` : "";
  const listed = known.length > 0 ? `; valid options${where ? ` of ${pathText(path)}` : ""}: ${known.join(", ")}` : "";
  return `unknown option(s) ${named.map((text) => where + text).join(", ")}${listed}`;
}

/**
 * The name of `known` nearest to `given`, or undefined when none is near enough to be what was
 * meant. Case is ignored first (`publicURL` is `publicUrl`), then the edit distance (a letter
 * added, dropped, changed or two swapped) must be at most a third of the name, and at least 1.
 */
export function nearestName(given: string, known: readonly string[]): string | undefined {
  const lower = given.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(lower, name.toLowerCase());
    if (!best || distance < best.distance) best = { name, distance };
  }
  if (!best) return undefined;
  return best.distance <= Math.max(1, Math.floor(given.length / 3)) ? best.name : undefined;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours, each 1. */
function editDistance(a: string, b: string): number {
  // Rows i-2, i-1 and i of the usual table; option names are short, so this is cheap.
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      current.push(value);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/** "webhooks.allowPrivateUrls", "chains.0.rpcUrl". */
function pathText(path: readonly PropertyKey[]): string {
  return path.map(String).join(".");
}

/**
 * The unknown keys an issue reports, with the path of their object. A union of an object and
 * something else (`metrics: { ... } | false`) reports them inside the object's branch: taken
 * from there when that branch failed on unknown keys alone.
 */
function unknownKeysOf(issue: z.core.$ZodIssue): { keys: string[]; path: PropertyKey[] } | null {
  if (issue.code === "unrecognized_keys") return { keys: issue.keys, path: issue.path };
  if (issue.code !== "invalid_union") return null;
  for (const branch of issue.errors) {
    const first = branch[0];
    if (branch.length === 1 && first?.code === "unrecognized_keys") return { keys: first.keys, path: [...issue.path, ...first.path] };
  }
  return null;
}

/** Zod's internal description of a schema, as far as the walk below reads it. */
interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType): SchemaDef => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;

/** The schemas `schema` may stand for once wrappers (optional, nullable, default, pipe, lazy) and unions are looked through. */
function unwrap(schema: z.ZodType): z.ZodType[] {
  const def = defOf(schema);
  if (def.innerType) return unwrap(def.innerType);
  if (def.type === "pipe" && def.in) return unwrap(def.in);
  if (def.type === "lazy" && def.getter) return unwrap(def.getter());
  if (def.type === "union" && def.options) return def.options.flatMap(unwrap);
  return [schema];
}

/** The keys an object option at `path` of `schema` accepts (of every object it may be). */
function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let here = unwrap(schema);
  for (const segment of path) {
    here = here.flatMap((candidate) => {
      const def = defOf(candidate);
      if (def.type === "object") return def.shape?.[String(segment)] ? unwrap(def.shape[String(segment)]!) : [];
      if (def.type === "record" && def.valueType) return unwrap(def.valueType);
      if (def.type === "array" && def.element) return unwrap(def.element);
      return [];
    });
  }
  return [...new Set(here.flatMap((candidate) => (defOf(candidate).type === "object" ? Object.keys(defOf(candidate).shape ?? {}) : [])))];
}
