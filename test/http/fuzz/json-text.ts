import fc from "fast-check";

/**
 * JSON bodies as text, not values: a body can then hold what JSON.stringify never writes
 * (1e400, 10.0000000000000001, -0, a `__proto__` key, 2,000 levels of nesting) and what is not
 * JSON at all.
 */

/** The part of JSON Schema (as zod-openapi writes request schemas) the generators read. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  examples?: unknown[];
  $ref?: string;
}

/** Values a field of this name can take from the records the fixtures created (ids, addresses, tx hashes). */
export type FieldHints = (field: string) => string[];

/** Number tokens a double cannot hold as written, or that sit at the edges of what JSON parsers accept. */
export const HOSTILE_NUMBERS = [
  "1e400",
  "-1e400",
  "10.0000000000000001",
  "0.30000000000000000001",
  "9007199254740993",
  "123456789012345678901234567890",
  "-0",
  "-0.0",
  "1e-30",
  "0.000000001",
  "1E2",
  "-1",
  "0",
  "1.5",
  "2147483648",
  "1e21",
] as const;

/** Strings with NUL, control and odd Unicode characters, injection-looking text and near-miss ids. */
const ODD_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "USDT\u0000",
  "\u0001\u001f\u007f",
  "\r\n",
  "\u2028\u2029",
  "\ud800",
  "\udfff",
  "\ufeff",
  "\u0085",
  "💸",
  "%00",
  "%E0%A4%A",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "\\",
  "__proto__",
  "constructor",
  "null",
  "NaN",
  "Infinity",
] as const;

const CONTROL_CHARS = ["\u0000", "\u0001", "\u0008", "\u001b", "\u001f", "\u007f", "\u0085", "\ud800", "\t", "\n", "\r", "\r\n"];

/** A string meant to break something: odd characters alone, inside ordinary text, or very long. */
export function hostileString(hints: string[] = [], longest = 70_000): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...ODD_STRINGS), weight: 4 },
    {
      arbitrary: fc.tuple(fc.string({ maxLength: 6 }), fc.constantFrom(...CONTROL_CHARS), fc.string({ maxLength: 6 })).map(([a, c, b]) => a + c + b),
      weight: 3,
    },
    ...(hints.length > 0
      ? [{ arbitrary: fc.tuple(fc.constantFrom(...hints), fc.constantFrom(...CONTROL_CHARS)).map(([hint, c]) => hint + c), weight: 3 }]
      : []),
    { arbitrary: fc.constantFrom(300, 5_000, longest).map((n) => "x".repeat(n)), weight: 1 },
  );
}

/** `{"a":{"a":...1...}}` nested `depth` times. */
export const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
/** `[[[...]]]` nested `depth` times. */
export const deepArray = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

/** A JSON value (as text) where a field's value goes, of a kind the field does not take or should not accept. */
export function hostileValue(valid: fc.Arbitrary<string>, hints: string[] = []): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...HOSTILE_NUMBERS), weight: 4 },
    { arbitrary: hostileString(hints).map((s) => JSON.stringify(s)), weight: 4 },
    { arbitrary: fc.constantFrom("null", "true", "false", "[]", "{}", '""'), weight: 2 },
    { arbitrary: valid.map((text) => `[${text}]`), weight: 1 },
    { arbitrary: valid.map((text) => `{"value":${text}}`), weight: 1 },
    { arbitrary: fc.constantFrom('{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}'), weight: 1 },
    { arbitrary: fc.constantFrom(20, 2_000).chain((depth) => fc.constantFrom(deepObject(depth), deepArray(depth))), weight: 1 },
  );
}

/** A JSON-ish value (text) with no schema: for free-form fields such as metadata. */
const freeValue: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)), weight: 4 },
  { arbitrary: fc.constantFrom(...HOSTILE_NUMBERS), weight: 1 },
  { arbitrary: hostileString().map((s) => JSON.stringify(s)), weight: 1 },
);

const DECIMAL = /^\^\(0\|\[1-9\]\\d\*\)/; // zod-openapi's decimal-string pattern: ^(0|[1-9]\d*)(\.\d+)?$

function decimalString(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom("25", "10", "1", "0", "0.5", "100.25", "0.00000001"),
    fc
      .tuple(fc.integer({ min: 0, max: 100_000 }), fc.option(fc.integer({ min: 0, max: 99_999_999 }), { nil: undefined }))
      .map(([whole, part]) => (part === undefined ? String(whole) : `${whole}.${part}`)),
  );
}

/**
 * Text of a value the schema accepts, as far as a schema says (business rules such as "the coin
 * must be supported" are left to chance). Examples and the fixtures' values come first, so
 * that many of these requests get past validation and reach the handler.
 */
export function validText(schema: JsonSchema, resolve: (ref: string) => JsonSchema, hints: FieldHints, field = ""): fc.Arbitrary<string> {
  if (schema.$ref) return validText(resolve(schema.$ref), resolve, hints, field);
  if (schema.const !== undefined) return fc.constant(JSON.stringify(schema.const));
  if (schema.enum) return fc.constantFrom(...schema.enum.map((value) => JSON.stringify(value)));
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((alternative) => validText(alternative, resolve, hints, field)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const known = [
    ...(schema.examples ?? []).map((value) => JSON.stringify(value)),
    ...(type === "string" ? hints(field).map((value) => JSON.stringify(value)) : []),
  ];
  const fromKnown = known.length > 0 ? [{ arbitrary: fc.constantFrom(...known), weight: 3 }] : [];
  switch (type) {
    case "string": {
      let generic: fc.Arbitrary<string>;
      if (schema.pattern && DECIMAL.test(schema.pattern)) generic = decimalString();
      else if (schema.format === "uri") generic = fc.constantFrom("https://shop.example/orders/1042", "http://127.0.0.1:9/x");
      else if (schema.format === "date-time") {
        generic = fc
          .date({ min: new Date("2025-01-01T00:00:00Z"), max: new Date("2027-01-01T00:00:00Z"), noInvalidDate: true })
          .map((date) => date.toISOString());
      } else generic = fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 24, 24) });
      return fc.oneof(...fromKnown, { arbitrary: generic.map((s) => JSON.stringify(s)), weight: 2 });
    }
    case "integer": {
      const min = schema.minimum ?? -1_000_000;
      const max = schema.maximum ?? 1_000_000;
      return fc.oneof(...fromKnown, { arbitrary: fc.integer({ min, max }).map(String), weight: 2 });
    }
    case "number": {
      const min = schema.minimum ?? -1e9;
      const max = schema.maximum ?? 1e9;
      return fc.oneof(
        ...fromKnown,
        { arbitrary: fc.integer({ min: Math.ceil(min), max: Math.min(Math.floor(max), 1_000_000) }).map(String), weight: 1 },
        { arbitrary: fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)), weight: 1 },
      );
    }
    case "boolean":
      return fc.constantFrom("true", "false");
    case "null":
      return fc.constant("null");
    case "array": {
      const item = schema.items ? validText(schema.items, resolve, hints, field) : freeValue;
      const minLength = schema.minItems ?? 0;
      return fc.array(item, { minLength, maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3)) }).map((items) => `[${items.join(",")}]`);
    }
    case "object":
      return objectEntries(schema, resolve, hints).map(objectText);
    default:
      return freeValue;
  }
}

/** A JSON object's fields as [key, value text] pairs, in order; keys may repeat and may be `__proto__`. */
export type Entries = Array<[string, string]>;

/** Text of an object from its entries, exactly as given (a `__proto__` key stays a key). */
export const objectText = (entries: Entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(",")}}`;

/** The fields of an object the schema accepts: every required one, any optional ones, free keys where the schema allows them. */
export function objectEntries(schema: JsonSchema, resolve: (ref: string) => JsonSchema, hints: FieldHints): fc.Arbitrary<Entries> {
  if (schema.$ref) return objectEntries(resolve(schema.$ref), resolve, hints);
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  const fields = properties.map(([name, property]) => {
    const value = validText(property, resolve, hints, name).map((text): [string, string] => [name, text]);
    return required.has(name) ? value.map((entry) => [entry]) : fc.option(value, { nil: undefined }).map((entry) => (entry ? [entry] : []));
  });
  const free =
    properties.length === 0 && typeof schema.additionalProperties === "object"
      ? fc.array(fc.tuple(fc.string({ maxLength: 12 }), freeValue), { maxLength: 4 })
      : fc.constant([] as Entries);
  return fc.tuple(fc.tuple(...fields), free).map(([groups, extra]) => [...groups.flat(), ...extra] as Entries);
}

// -- over-precise numbers ------------------------------------------------------------------

/** A JSON number token's exact value: sign, digits without trailing zeros, power of ten. */
function exactValue(token: string): { negative: boolean; digits: bigint; exponent: bigint } | null {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token);
  if (!match) return null;
  const fraction = match[3] ?? "";
  let digits = BigInt(match[2]! + fraction);
  let exponent = BigInt(match[4] ?? "0") - BigInt(fraction.length);
  if (digits === 0n) return { negative: false, digits: 0n, exponent: 0n };
  while (digits % 10n === 0n) {
    digits /= 10n;
    exponent += 1n;
  }
  return { negative: match[1] === "-", digits, exponent };
}

/**
 * True when JSON.parse would silently change the number this token states: it rounds to a
 * double of another value (10.0000000000000001 -> 10) or overflows (1e400 -> Infinity).
 * 0.1 is not over-precise: its shortest double form is the same decimal, as a reader of the
 * value sees it. -0 equals 0.
 */
export function isOverPrecise(token: string): boolean {
  const parsed = Number(token);
  if (!Number.isFinite(parsed)) return true;
  const stated = exactValue(token);
  const kept = exactValue(String(parsed).replace(/^(-?\d+(?:\.\d+)?)e\+?/, "$1e"));
  if (!stated || !kept) return false;
  return stated.negative !== kept.negative || stated.digits !== kept.digits || stated.exponent !== kept.exponent;
}

/** The number tokens of a JSON text (outside strings), or [] when it is not JSON. */
export function numberTokens(text: string): string[] {
  try {
    JSON.parse(text);
  } catch {
    return [];
  }
  const tokens: string[] = [];
  const number = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  for (let i = 0; i < text.length; ) {
    const char = text[i]!;
    if (char === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      i++;
    } else if (char === "-" || (char >= "0" && char <= "9")) {
      number.lastIndex = i;
      const match = number.exec(text)!;
      tokens.push(match[0]);
      i += match[0].length;
    } else i++;
  }
  return tokens;
}
