/**
 * Values as SQL literals. PGlite statements are sent with their values inlined (see
 * `pgliteClient`), and a schema name is written into a statement once (see the cursor lock).
 */

/** A value as a SQL literal. */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`postgresStorage: cannot store the number ${value}`);
    return value < 0 ? `(${value})` : String(value);
  }
  if (typeof value === "bigint") return value < 0n ? `(${value})` : String(value);
  if (typeof value === "string") {
    if (value.includes("\u0000")) throw new TypeError("postgresStorage: text cannot contain NUL characters");
    // standard_conforming_strings is on (checked when the database opens): only ' needs escaping.
    return `'${value.replace(/'/g, "''")}'`;
  }
  if (Array.isArray(value)) return `ARRAY[${value.map(sqlLiteral).join(", ")}]`;
  throw new TypeError(`postgresStorage: cannot send a ${typeof value} as a SQL value`);
}

/** `text` with each `$n` replaced by the literal of `params[n - 1]` (one pass: values are never rescanned). */
export function inlineParams(text: string, params?: readonly unknown[]): string {
  if (!params || params.length === 0) return text;
  return text.replace(/\$(\d+)/g, (_match, index: string) => {
    const position = Number(index) - 1;
    if (position >= params.length) throw new RangeError(`postgresStorage: statement uses $${index} but got ${params.length} value(s)`);
    return sqlLiteral(params[position]);
  });
}
