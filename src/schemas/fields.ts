import { z } from "zod";

/**
 * Field schemas both API prefixes share, so that a coin symbol, a lifetime, a return URL or
 * metadata is checked the same way (with the same message) wherever it is sent.
 */

/** A currency or network symbol; case-insensitive on the way in, upper case after. */
export const symbol = plainText(
  z.string({ error: "must be a string" }).trim().min(1, { error: "must not be empty" }).max(20, { error: "must be at most 20 characters" }),
).transform((value) => value.toUpperCase());

/** Minutes an invoice stays open: 1 to 1440 (one day). */
export const lifeTime = z
  .int({ error: "must be a whole number of minutes" })
  .min(1, { error: "must be at least 1 minute" })
  .max(1440, { error: "must be at most 1440 minutes" });

/**
 * Where the payer goes after paying: absolute http(s) only, never `javascript:` and the like.
 * Control characters are refused before the URL is parsed: the URL parser strips tabs and line
 * breaks (as browsers do), which would store another URL than the one sent, without a word.
 */
export const returnUrl = z
  .string({ error: "must be an absolute http(s) URL" })
  .check(
    z.refine(isPlainText, { error: "must not contain control characters", abort: true }),
    z.url({ protocol: /^https?$/, error: "must be an absolute http(s) URL" }),
  )
  .max(2048);

/** How deep metadata may nest: the object itself is level 1, `{ "a": { "b": 1 } }` is 2. */
export const METADATA_MAX_DEPTH = 32;

/**
 * Whether a JSON value nests objects and arrays more than `limit` levels deep, found with a
 * loop: a recursive walk (or JSON.stringify) overflows the stack on a value a few thousand
 * levels deep. Answers as soon as one branch passes the limit.
 */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current !== "object" || current === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) {
      if (typeof child === "object" && child !== null) stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}

/** Free-form merchant data; kept small because it travels in every webhook. */
export const metadata = z
  .record(z.string().max(40), z.unknown(), { error: "must be an object" })
  .refine((value) => Object.keys(value).length <= 50, { error: "may have at most 50 keys" })
  // Before the size check, and aborting: JSON.stringify of a very deep value overflows the stack.
  .refine((value) => !nestsDeeperThan(value, METADATA_MAX_DEPTH), {
    error: `must not nest objects and arrays more than ${METADATA_MAX_DEPTH} levels deep`,
    abort: true,
  })
  .refine((value) => JSON.stringify(value).length <= 8192, { error: "must serialize to at most 8 KB of JSON" });

/** A payout destination; the chain adapter judges whether it is valid. */
export const address = plainText(z.string({ error: "must be a string" }).trim().min(1, { error: "must not be empty" }).max(256));

/**
 * C0 and C1 control characters. No id, code, address, reason or URL of ours has one, and NUL
 * cannot even be stored: PostgreSQL refuses it in text ("invalid byte sequence"), which made
 * such a value a 500 instead of a 400.
 */
const CONTROL_CHARACTER = /\p{Cc}/u;

/** True when `value` has no control character. */
export function isPlainText(value: string): boolean {
  return !CONTROL_CHARACTER.test(value);
}

/** A string field that refuses control characters, with a 400 naming the field. */
export function plainText<Schema extends z.ZodType<string, string>>(schema: Schema): Schema {
  return schema.refine(isPlainText, { error: "must not contain control characters" });
}

/**
 * The shape of every id we issue (src/ids.ts): a lower-case type prefix, "_", then base62
 * (24 characters today; up to 64 accepted so a longer format stays readable). Underscores are
 * let through after the prefix for records a host writes to the storage itself ("we_import_42").
 */
const ID_SHAPE = /^[a-z]{1,16}_[A-Za-z0-9_]{1,64}$/;

/** True when `value` could be an id we issued; anything else names no record, whatever is stored. */
export function isPossibleId(value: string): boolean {
  return ID_SHAPE.test(value);
}

/**
 * Key of the zod issue param that marks a reference to a record that cannot exist. The route
 * table answers such an issue as the handler would an unknown id: 404 (40401), not a 400, so a
 * malformed id and a well-formed unknown one look the same to the caller.
 */
export const UNKNOWN_RECORD = "unknownRecord";

/** A 404 message naming what was looked for, with the id quoted (shortened: it may be huge). */
export function unknownRecordMessage(what: string, id: string): string {
  const shown = id.length > 64 ? `${id.slice(0, 64)}...` : id;
  return `No ${what} with id ${JSON.stringify(shown)} exists for this API key.`;
}

/** The start of every id-like field: a string, not empty. */
function nonEmptyString() {
  return z.string({ error: "must be a string" }).min(1, { error: "must not be empty" });
}

/**
 * A field naming one of our records (`invoiceId`, `payoutId`, `paymentId`): a value that is not
 * of our id shape is answered 404 as an unknown id, before it reaches the storage.
 */
export function recordId(what: string) {
  return nonEmptyString().refine(isPossibleId, { error: `no ${what} has this id`, params: { [UNKNOWN_RECORD]: what } });
}

/**
 * A field naming something another system issued (a transaction hash): any printable string up
 * to 100 characters; one with control characters cannot exist and is answered 404 as unknown.
 */
export function externalId(what: string) {
  return nonEmptyString().refine((value) => value.length <= 100 && isPlainText(value), { error: `no ${what} has this id`, params: { [UNKNOWN_RECORD]: what } });
}

/** A list's `cursor`: the id of a row the list returned, so anything else gets the unknown-cursor 400. */
export const cursor = nonEmptyString().refine(isPossibleId, { error: "not a cursor this list returned" });

/**
 * An id that matches no record: of our shape, but never issued (ids have 24 random characters
 * after the prefix). A filter that cannot match becomes this, so the list answers exactly as for
 * an unknown id (an empty page) without a special case in each route.
 */
const NO_RECORD = "none_0";

/** A list filter naming one of our records (`paymentId`, `endpointId`); an impossible id matches nothing. */
export const filterId = nonEmptyString().transform((value) => (isPossibleId(value) ? value : NO_RECORD));
