import { createSecretKey, timingSafeEqual, type KeyObject } from "node:crypto";
import { parseWebhookEvent, type WebhookEvent } from "../schemas/events";
import { WebhookVerificationError } from "./errors";
import { secretKey, type WebhookSecret } from "./secret";
import { webhookSignature, type WebhookHeaders } from "./sign";

/**
 * Standard Webhooks verification as pure functions: bytes, headers, secrets and a clock in, an
 * event or a `WebhookVerificationError` out. webhookHandler is the HTTP shell around them.
 */

/**
 * Headers as Node gives them (`req.headers`), any plain object (names in any case), what
 * webhookHeaders() builds, or a fetch `Headers`.
 */
export type WebhookRequestHeaders = Headers | WebhookHeaders | Readonly<Record<string, string | readonly string[] | undefined>>;

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

/** The three delivery headers, checked for presence and form. @internal */
export interface DeliveryHeaders {
  id: string;
  /** Unix seconds. */
  timestamp: number;
  signature: string;
}

function isFetchHeaders(headers: WebhookRequestHeaders): headers is Headers {
  return typeof (headers as Headers).get === "function";
}

function lookup(headers: WebhookRequestHeaders, name: string): string | readonly string[] | undefined {
  if (isFetchHeaders(headers)) return headers.get(name) ?? undefined;
  // Node lower-cases incoming names, so the direct hit is the common case; the scan serves
  // hand-built objects in test code ("Webhook-Id").
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const direct = record[name];
  if (direct !== undefined) return direct;
  for (const key of Object.keys(record)) {
    if (key.length === name.length && key.toLowerCase() === name) return record[key];
  }
  return undefined;
}

function required(headers: WebhookRequestHeaders, name: string, joinWith?: string): string {
  const raw = lookup(headers, name);
  let value: string | undefined;
  if (typeof raw === "string") value = raw;
  else if (raw !== undefined && raw.length > 0) {
    if (raw.length > 1 && joinWith === undefined) {
      throw new WebhookVerificationError("malformed_header", `The request has ${raw.length} ${name} headers; a delivery has exactly one.`);
    }
    value = raw.join(joinWith ?? "");
  }
  value = value?.trim();
  if (!value) {
    throw new WebhookVerificationError(
      "missing_header",
      `The ${name} header is missing or empty. A Standard Webhooks delivery carries webhook-id, webhook-timestamp and webhook-signature; check that a proxy in front of this app forwards them.`,
    );
  }
  return value;
}

// Whole Unix seconds, written canonically: the signature covers the header text, and only a
// canonical number is guaranteed to print back as that same text.
const TIMESTAMP = /^(0|[1-9]\d{0,14})$/;

/** Reads and checks the form of the three headers. @internal */
export function readDeliveryHeaders(headers: WebhookRequestHeaders): DeliveryHeaders {
  const id = required(headers, "webhook-id");
  const timestampText = required(headers, "webhook-timestamp");
  // Several signature headers (a proxy may split them) are as good as one space-separated list.
  const signature = required(headers, "webhook-signature", " ");
  if (!TIMESTAMP.test(timestampText)) {
    throw new WebhookVerificationError(
      "malformed_header",
      `webhook-timestamp must be whole Unix seconds (digits only), got "${timestampText.slice(0, 40)}".`,
    );
  }
  return { id, timestamp: Number(timestampText), signature };
}

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

// A v1 signature is the base64 of a 32-byte HMAC-SHA256: 43 characters and one "=".
const V1_SIGNATURE = /^[A-Za-z0-9+/]{43}=$/;

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

/**
 * Checks that one `v1` entry of the signature header is the HMAC of `id.timestamp.body` under
 * one of `keys`. Entries of other versions, and v1 entries that cannot be a SHA-256 digest, are
 * skipped; one match is enough (the sender signs with every active secret during a rotation).
 * @internal
 */
export function checkSignature(keys: readonly KeyObject[], delivery: DeliveryHeaders, body: string | Uint8Array): void {
  const header = delivery.signature;
  // Computed at the first usable candidate, once per key, only if there is one.
  let expected: Buffer[] | undefined;
  let entries = 0;
  // The same scan as forEachEntry, written inline: this is the hot path of every delivery.
  for (let start = 0; start < header.length; ) {
    let end = header.indexOf(" ", start);
    if (end === -1) end = header.length;
    const comma = header.indexOf(",", start);
    if (comma > start && comma < end - 1) {
      entries++;
      if (comma - start === 2 && header.startsWith("v1", start)) {
        // Headers repeated by a proxy arrive joined with ", ": drop the joining comma.
        const value = header.slice(comma + 1, header.charCodeAt(end - 1) === 44 /* , */ ? end - 1 : end);
        if (V1_SIGNATURE.test(value)) {
          expected ??= keys.map((key) => Buffer.from(webhookSignature(key, { id: delivery.id, timestamp: delivery.timestamp, body }), "base64"));
          const candidate = Buffer.from(value, "base64");
          for (const digest of expected) {
            // Equal lengths by construction (32 bytes each), as timingSafeEqual requires.
            if (timingSafeEqual(candidate, digest)) return;
          }
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
    else if (V1_SIGNATURE.test(value)) checked++;
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
    throw new WebhookVerificationError("invalid_json", `The body (${text.length} characters) is not valid JSON; a webhook event is a JSON object.`, { cause: error });
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
  keys: readonly KeyObject[],
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
 * Decodes one or several secrets, refusing an empty list. KeyObjects, imported once: an HMAC
 * keyed with one is cheaper to start than with the raw bytes. @internal
 */
export function secretKeys(secrets: WebhookSecret | readonly WebhookSecret[]): KeyObject[] {
  const list: readonly WebhookSecret[] = Array.isArray(secrets) ? secrets : [secrets as WebhookSecret];
  if (list.length === 0) throw new TypeError("webhook secret: at least one secret is needed");
  return list.map((secret, index) => {
    if (typeof secret !== "string" && !(secret instanceof Uint8Array)) {
      throw new TypeError(`webhook secret${list.length > 1 ? ` #${index + 1}` : ""}: expected a "whsec_..." string or the key bytes, got ${secret === null ? "null" : typeof secret}`);
    }
    return createSecretKey(secretKey(secret));
  });
}

// Decoding a secret is cheap but not free next to a 1 KB HMAC, and callers usually pass the
// same string every time: remember a few. Bounded, so a caller cycling secrets cannot grow it.
const decodedKeys = new Map<string, readonly KeyObject[]>();
const MAX_CACHED_KEYS = 32;

function cachedKeys(secrets: WebhookSecret | readonly WebhookSecret[]): readonly KeyObject[] {
  if (typeof secrets !== "string") {
    // Lists (a rotation) and key bytes: cached per string element, bytes copied as they are.
    return Array.isArray(secrets) && secrets.length > 0 ? secrets.flatMap((secret: WebhookSecret) => (typeof secret === "string" ? cachedKeys(secret) : secretKeys(secret))) : secretKeys(secrets);
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
 * - `secrets`: `whsec_...` (or the key bytes), or several during a rotation: any one may match.
 *
 * Checks, in order: the three headers are present (`missing_header`) and well formed
 * (`malformed_header`); the timestamp is within the tolerance (`stale`, `future`); a v1
 * signature matches in constant time (`no_matching_signature`); the body is JSON
 * (`invalid_json`) and an event (`invalid_event`; a known type with data that is not a payment).
 * A failure throws `WebhookVerificationError` with that `reason`. Events of a type this version
 * does not know pass with their envelope checked: narrow with `isPaymentEvent`.
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
