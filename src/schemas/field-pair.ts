import { z } from "zod";

/**
 * A zod schema paired with a plain predicate that accepts exactly the JSON values the schema
 * accepts (each pair is built from the same regex, set or literal). Webhook verification runs
 * the predicates, about ten times cheaper than zod on a hot path measured in microseconds, and
 * falls back to zod whenever they say no, so zod stays the judge of what is wrong and how it is
 * reported. test/webhooks/events-schema.test.ts checks the two agree on generated bodies.
 */
export interface Field<S extends z.ZodType> {
  schema: S;
  test: (value: unknown) => boolean;
}

/** Pairs a schema with its predicate. */
export const field = <S extends z.ZodType>(schema: S, test: (value: unknown) => boolean): Field<S> => ({ schema, test });
/** The field, or null. */
export const nullable = <S extends z.ZodType>(inner: Field<S>) => field(inner.schema.nullable(), (value) => value === null || inner.test(value));
/** A field an older sender may have left out: absent passes, present is checked. */
export const optional = <S extends z.ZodType>(inner: Field<S>) => field(inner.schema.optional(), (value) => value === undefined || inner.test(value));
/** A JSON object; zod's object and record checks accept exactly these among parsed JSON values. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
/** Documents a field in the OpenAPI document; the check is unchanged. */
export const described = <S extends z.ZodType>(inner: Field<S>, description: string) => field(inner.schema.meta({ description }), inner.test);
/** Exactly this string. */
export const literal = <V extends string>(value: V) => field(z.literal(value), (candidate) => candidate === value);
/** One of these strings. */
export const oneOf = <V extends string>(values: readonly [V, ...V[]]) => {
  const allowed: ReadonlySet<unknown> = new Set(values);
  return field(z.enum(values), (value) => allowed.has(value));
};

/** The zod shape of an object whose fields are these pairs. */
export function shapeOf<F extends Record<string, Field<z.ZodType>>>(fields: F): { [K in keyof F]: F[K]["schema"] } {
  return Object.fromEntries(Object.entries(fields).map(([name, { schema }]) => [name, schema])) as { [K in keyof F]: F[K]["schema"] };
}

/** The predicate of a loose object: every listed field passes, extra fields are ignored. */
export function testOf(fields: Record<string, Field<z.ZodType>>): (value: unknown) => boolean {
  const names = Object.keys(fields);
  const tests = names.map((name) => fields[name]!.test);
  try {
    // Written out, one literal property read per field: a loop over the names makes every read
    // a keyed lookup V8 cannot specialise, which costs more than the checks themselves. The
    // names are the field tables' own constants, quoted by JSON.stringify.
    const source = `return (value) => isObject(value)${names.map((name, i) => ` && t${i}(value[${JSON.stringify(name)}])`).join("")};`;
    return new Function("isObject", ...tests.map((_, i) => `t${i}`), source)(isJsonObject, ...tests) as (value: unknown) => boolean;
  } catch {
    // Code generation is disallowed (--disallow-code-generation-from-strings): same checks, looped.
    return (value) => isJsonObject(value) && names.every((name, i) => tests[i]!(value[name]));
  }
}
