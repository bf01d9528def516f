import { timingSafeEqual } from "node:crypto";
import { parseWebhookEvent } from "../schemas/events";
import type { WebhookEvent } from "../schemas/service-event";
import { readDeliveryHeaders, type DeliveryHeaders, type WebhookRequestHeaders } from "./delivery-headers";
import { WebhookVerificationError } from "../errors";
import { hmacKey, type HmacKey } from "./hmac-key";
import { secretKey, type WebhookSecret } from "../webhook-secret";

/**
 * Standard Webhooks verification as pure functions: bytes, headers, secrets and a clock in, an
 * event or a `WebhookVerificationError` out. webhookHandler is the HTTP shell around them.
 */

export type { WebhookRequestHeaders } from "./delivery-headers";

/** Options of verifyWebhook. */
export interface VerifyWebhookOptions {
  /**
   * How far `webhook-timestamp` may be from now, either way, in seconds. Default 300. Zero
   * accepts only the current second: there is no value that turns the check off.
   */
  toleranceSeconds?: number;
  /** The clock, epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** The default timestamp tolerance, in seconds (the Standard Webhooks recommendation). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Validates a tolerance option; a bad value is a programming error, thrown at once. @internal */
export function toleranceOption(value: number | undefined): number {
  if (value === undefined) return DEFAULT_TOLERANCE_SECONDS;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new TypeError(`toleranceSeconds must be a finite number of seconds >= 0 (the check cannot be switched off), got ${String(value)}`);
  }
  return value;
}

/** Rejects a timestamp further than `toleranceSeconds` from `nowMs`, in either direction. @internal */
export function checkTimestamp(timestamp: number, toleranceSeconds: number, nowMs: number): void {
  const now = Math.floor(nowMs / 1000);
  if (now - timestamp > toleranceSeconds) {
    throw new WebhookVerificationError(
      "stale",
      `webhook-timestamp ${timestamp} is ${now - timestamp}s in the past, more than the ${toleranceSeconds}s tolerance: a replayed delivery, or this server's clock is behind. Retries are signed afresh, so a genuine retry is never stale.`,
    );
  }
  if (timestamp - now > toleranceSeconds) {
    throw new WebhookVerificationError(
      "future",
      `webhook-timestamp ${timestamp} is ${timestamp - now}s in the future, more than the ${toleranceSeconds}s tolerance: this server's clock or the sender's is off; sync both with NTP.`,
    );
  }
}

/** Which char codes base64 uses (RFC 4648 section 4: A-Z a-z 0-9 + /), as a lookup table. */
const BASE64_CHAR = new Uint8Array(128);
for (const char of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") BASE64_CHAR[char.charCodeAt(0)] = 1;

/**
 * Whether `text[start, end)` can be a v1 signature: the base64 of a 32-byte HMAC-SHA256, 43
 * characters and one "=". Checked in place (no substring, no regex) since every delivery asks.
 */
function isV1Signature(text: string, start: number, end: number): boolean {
  if (end - start !== 44 || text.charCodeAt(end - 1) !== 61 /* = */) return false;
  for (let i = start; i < end - 1; i++) {
    const code = text.charCodeAt(i);
    if (code > 127 || BASE64_CHAR[code] === 0) return false;
  }
  return true;
}

/**
 * Calls `visit(version, value)` for each `version,value` entry of a signature header: entries
 * are space-separated; one without a comma, version or value is no entry.
 */
function forEachEntry(header: string, visit: (version: string, value: string) => void): void {
  for (const entry of header.split(" ")) {
    const comma = entry.indexOf(",");
    if (comma <= 0 || comma === entry.length - 1) continue;
    visit(entry.slice(0, comma), entry.slice(comma + 1, entry.endsWith(",") ? -1 : undefined));
  }
}

// Where the two signatures meet for timingSafeEqual: the expected one in the first half, the
// candidate in the second. Shared by every call, which is safe because nothing in between
// yields; it spares two allocations per delivery.
const COMPARED = Buffer.alloc(88);
const EXPECTED_TEXT = COMPARED.subarray(0, 44);
const CANDIDATE_TEXT = COMPARED.subarray(44);

/**
 * Whether the base64 HMAC `expected` equals the 44 characters of `header` from `start`, in
 * constant time. Compared as base64 text, as the Standard Webhooks reference libraries do:
 * isV1Signature vouched for the candidate's form, and of the encodings of one digest only the
 * canonical one (what every signer writes, and what HmacKey.base64 gives) is accepted.
 */
function sameSignature(expected: string, header: string, start: number): boolean {
  // latin1 copies one byte per character: the cheapest way from a string into bytes.
  EXPECTED_TEXT.write(expected, "latin1");
  CANDIDATE_TEXT.write(header.slice(start, start + 44), "latin1");
  return timingSafeEqual(EXPECTED_TEXT, CANDIDATE_TEXT);
}

/**
 * Checks that one `v1` entry of the signature header is the HMAC of `id.timestamp.body` under
 * one of `keys`. Entries of other versions, and v1 entries that cannot be a SHA-256 digest, are
 * skipped; one match is enough (the sender signs with every active secret during a rotation).
 * @internal
 */
export function checkSignature(keys: readonly HmacKey[], delivery: DeliveryHeaders, body: string | Uint8Array): void {
  const header = delivery.signature;
  const prefix = `${delivery.id}.${delivery.timestampText}.`;
  // Computed at the first usable candidate, once per key, only if there is one.
  let expected: string[] | undefined;
  let entries = 0;
  // The same scan as forEachEntry, written inline: this is the hot path of every delivery.
  for (let start = 0; start < header.length; ) {
    let end = header.indexOf(" ", start);
    if (end === -1) end = header.length;
    const comma = header.indexOf(",", start);
    if (comma > start && comma < end - 1) {
      entries++;
      // Headers repeated by a proxy arrive joined with ", ": the joining comma is no part of the value.
      const valueEnd = header.charCodeAt(end - 1) === 44 /* , */ ? end - 1 : end;
      if (
        comma - start === 2 &&
        header.charCodeAt(start) === 118 /* v */ &&
        header.charCodeAt(start + 1) === 49 /* 1 */ &&
        isV1Signature(header, comma + 1, valueEnd)
      ) {
        if (expected === undefined) {
          expected = [];
          for (const key of keys) expected.push(key.base64(prefix, body));
        }
        for (const digest of expected) {
          if (sameSignature(digest, header, comma + 1)) return;
        }
      }
    }
    start = end + 1;
  }
  if (entries === 0) {
    throw new WebhookVerificationError(
      "malformed_header",
      'webhook-signature has no entry of the form "v1,<base64>" (space-separated entries, each a version, a comma and a signature).',
    );
  }
  throw new WebhookVerificationError("no_matching_signature", `No matching signature: ${mismatchNotes(delivery.signature, keys.length)}.`);
}

/** Why no entry matched, for the error message (the failure path only). */
function mismatchNotes(header: string, keyCount: number): string {
  let checked = 0;
  let unusable = 0;
  const otherVersions = new Set<string>();
  forEachEntry(header, (version, value) => {
    if (version !== "v1") otherVersions.add(version.slice(0, 16));
    else if (isV1Signature(value, 0, value.length)) checked++;
    else unusable++;
  });
  const notes: string[] = [];
  if (checked > 0) {
    notes.push(
      `${checked} v1 signature(s) checked against ${keyCount} secret(s), none matched: the secret differs from the sender's (copy it again, "whsec_" included), or the body was changed before it reached verification (re-serialised JSON, a proxy that rewrites it)`,
    );
  }
  if (unusable > 0) notes.push(`${unusable} v1 entr${unusable === 1 ? "y is" : "ies are"} not the base64 of a 32-byte HMAC-SHA256`);
  if (otherVersions.size > 0) notes.push(`entries of other versions were skipped (${[...otherVersions].join(", ")}); only v1 is supported`);
  return notes.join("; ");
}

function bodyText(body: string | Uint8Array): string {
  if (typeof body === "string") return body;
  // A Buffer view over the same memory: decoding needs no extra copy.
  return (Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength)).toString("utf8");
}

/** Parses and schema-checks a verified body. @internal */
export function parseEventBody(body: string | Uint8Array): WebhookEvent {
  const text = bodyText(body);
  if (text.length === 0) throw new WebhookVerificationError("invalid_json", "The body is empty; a webhook event is a JSON object.");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // The parser's message quotes the body; it stays in `cause`, out of messages that get logged.
    throw new WebhookVerificationError("invalid_json", `The body (${text.length} characters) is not valid JSON; a webhook event is a JSON object.`, {
      cause: error,
    });
  }
  const result = parseWebhookEvent(json);
  if (!result.success) {
    const issues = result.error.issues.slice(0, 3).map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`);
    const more = result.error.issues.length > 3 ? ` (and ${result.error.issues.length - 3} more)` : "";
    throw new WebhookVerificationError("invalid_event", `The body is not a valid webhook event: ${issues.join("; ")}${more}.`, {
      cause: result.error,
    });
  }
  return result.data;
}

/** Rejects what is not raw bytes with the mistake that most likely produced it. @internal */
export function assertRawBody(body: unknown): asserts body is string | Uint8Array {
  if (typeof body === "string" || body instanceof Uint8Array) return;
  throw new TypeError(
    body !== null && typeof body === "object"
      ? "verifyWebhook: the payload was parsed into an object before it got here; signature verification needs the raw bytes: pass the Buffer from express.raw({ type: 'application/json' }) (or the string body) instead of the parsed req.body"
      : `verifyWebhook: the body must be the raw request bytes (a Buffer, Uint8Array or string), got ${body === null ? "null" : typeof body}`,
  );
}

/** Runs every check in order, cheapest first, with keys already decoded. @internal */
export function verifyDelivery(
  keys: readonly HmacKey[],
  body: string | Uint8Array,
  headers: WebhookRequestHeaders,
  toleranceSeconds: number,
  nowMs: number,
): WebhookEvent {
  const delivery = readDeliveryHeaders(headers);
  checkTimestamp(delivery.timestamp, toleranceSeconds, nowMs);
  checkSignature(keys, delivery, body);
  return parseEventBody(body);
}

/**
 * Decodes one or several secrets, refusing an empty list, into keys prepared once for many
 * HMACs (see hmac-key.ts). @internal
 */
export function secretKeys(secrets: WebhookSecret | readonly WebhookSecret[]): HmacKey[] {
  const list: readonly WebhookSecret[] = Array.isArray(secrets) ? secrets : [secrets as WebhookSecret];
  if (list.length === 0) throw new TypeError("webhook secret: at least one secret is needed");
  return list.map((secret, index) => {
    if (typeof secret !== "string" && !(secret instanceof Uint8Array)) {
      throw new TypeError(
        `webhook secret${list.length > 1 ? ` #${index + 1}` : ""}: expected a "whsec_..." string or the key bytes, got ${secret === null ? "null" : typeof secret}`,
      );
    }
    return hmacKey(secretKey(secret));
  });
}

// Decoding a secret is cheap but not free next to a 1 KB HMAC, and callers usually pass the
// same string every time: remember a few. Bounded, so a caller cycling secrets cannot grow it.
const decodedKeys = new Map<string, readonly HmacKey[]>();
const MAX_CACHED_KEYS = 32;

function cachedKeys(secrets: WebhookSecret | readonly WebhookSecret[]): readonly HmacKey[] {
  if (typeof secrets !== "string") {
    // Lists (a rotation) and key bytes: cached per string element, bytes copied as they are.
    return Array.isArray(secrets) && secrets.length > 0
      ? secrets.flatMap((secret: WebhookSecret) => (typeof secret === "string" ? cachedKeys(secret) : secretKeys(secret)))
      : secretKeys(secrets);
  }
  let keys = decodedKeys.get(secrets);
  if (keys === undefined) {
    keys = secretKeys(secrets);
    if (decodedKeys.size >= MAX_CACHED_KEYS) decodedKeys.clear();
    decodedKeys.set(secrets, keys);
  }
  return keys;
}

/**
 * Verifies a Standard Webhooks delivery and returns its event, parsed and schema-checked.
 *
 * - `rawBody`: the exact bytes received (a Buffer from `express.raw()`, or a string). Never a
 *   parsed object: re-serialised JSON is not the signed content.
 * - `headers`: `req.headers`, any object (names are matched case-insensitively) or a fetch `Headers`.
 *   Svix's names (`svix-id`, `svix-timestamp`, `svix-signature`) are read too; a header present
 *   under both names with different values is refused (`malformed_header`).
 * - `secrets`: `whsec_...` (or the key bytes), or several during a rotation: any one may match.
 *
 * Checks, in order: the three headers are present (`missing_header`) and well formed
 * (`malformed_header`); the timestamp is within the tolerance (`stale`, `future`); a v1
 * signature matches in constant time (`no_matching_signature`); the body is JSON
 * (`invalid_json`) and an event (`invalid_event`; a known type whose data lacks `id` or
 * `status`, has a field of the wrong type, or a status that type never carries: see
 * EVENT_STATUSES). Fields a newer version added may be missing: an older sender's events pass.
 * A failure throws `WebhookVerificationError` with that `reason`. Events of a type this version
 * does not know pass with their envelope checked: narrow with `isServiceEvent` or `isPaymentEvent`.
 *
 * A secret that does not decode, or a bad option, throws a `TypeError`: that is a bug to fix,
 * not a delivery to reject.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookRequestHeaders,
  secrets: WebhookSecret | readonly WebhookSecret[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  assertRawBody(rawBody);
  const keys = cachedKeys(secrets);
  const toleranceSeconds = toleranceOption(options.toleranceSeconds);
  const nowMs = options.now ? options.now() : Date.now();
  return verifyDelivery(keys, rawBody, headers, toleranceSeconds, nowMs);
}
