import { WebhookVerificationError } from "../errors";
import type { WebhookHeaders } from "./sign";

/**
 * The three delivery headers of a request: found under their Standard Webhooks names or
 * Svix's, in any case, and checked for presence and form (not yet for what they prove).
 */

/**
 * Headers as Node gives them (`req.headers`), any plain object (names in any case), what
 * webhookHeaders() builds, or a fetch `Headers`.
 */
export type WebhookRequestHeaders = Headers | WebhookHeaders | Readonly<Record<string, string | readonly string[] | undefined>>;

/** The three delivery headers, checked for presence and form. @internal */
export interface DeliveryHeaders {
  id: string;
  /** Unix seconds. */
  timestamp: number;
  /** `webhook-timestamp` as sent: the text the signature covers. */
  timestampText: string;
  signature: string;
}

function isFetchHeaders(headers: WebhookRequestHeaders): headers is Headers {
  return typeof (headers as Headers).get === "function";
}

type RawHeader = string | readonly string[] | undefined;

/**
 * The names each delivery header may have: Standard Webhooks' own, then Svix's. Svix signs
 * exactly as Standard Webhooks does (the same `id.timestamp.body` HMAC and `v1,` entries) and
 * only names the headers `svix-id`, `svix-timestamp`, `svix-signature`.
 */
const HEADER_NAMES = ["webhook-id", "webhook-timestamp", "webhook-signature", "svix-id", "svix-timestamp", "svix-signature"] as const;
/** The index of a header's Svix name is its Standard Webhooks index plus this. */
const SVIX = 3;

/** The index in HEADER_NAMES of a header name in any case, or -1. */
function headerIndex(key: string): number {
  // Node's lower-case names match on the first comparison. Other names in a request are ruled
  // out by length and first letter before any lower-casing.
  switch (key.length) {
    case 7:
      return key === "svix-id" || key.toLowerCase() === "svix-id" ? 3 : -1;
    case 10:
      return key === "webhook-id" || ((key.charCodeAt(0) | 32) === 119 /* w */ && key.toLowerCase() === "webhook-id") ? 0 : -1;
    case 14:
    case 17: {
      if (key === "webhook-timestamp") return 1;
      if (key === "webhook-signature") return 2;
      if (key === "svix-timestamp") return 4;
      if (key === "svix-signature") return 5;
      const first = key.charCodeAt(0) | 32;
      if (first !== 119 /* w */ && first !== 115 /* s */) return -1;
      return HEADER_NAMES.indexOf(key.toLowerCase() as (typeof HEADER_NAMES)[number]);
    }
    default:
      return -1;
  }
}

/**
 * The six raw values, by HEADER_NAMES index. A plain object is scanned once, matching names in
 * any case (Node lower-cases incoming names; hand-built objects and some platforms' event
 * objects do not), so that a second copy of a header under another case is seen, not shadowed.
 */
function rawHeaders(headers: WebhookRequestHeaders): RawHeader[] {
  if (isFetchHeaders(headers)) return HEADER_NAMES.map((name) => headers.get(name) ?? undefined);
  const record = headers as Readonly<Record<string, RawHeader>>;
  const values: RawHeader[] = [undefined, undefined, undefined, undefined, undefined, undefined];
  for (const key in record) {
    const index = headerIndex(key);
    if (index === -1) continue;
    const value = record[key];
    if (value === undefined) continue;
    const seen = values[index];
    values[index] = seen === undefined ? value : [...(typeof seen === "string" ? [seen] : seen), ...(typeof value === "string" ? [value] : value)];
  }
  return values;
}

/** One header's value, trimmed; undefined when absent or empty. */
function headerValue(raw: RawHeader, name: string, joinWith?: string): string | undefined {
  let value: string | undefined;
  if (typeof raw === "string") value = raw;
  else if (raw !== undefined && raw.length > 0) {
    if (raw.length > 1 && joinWith === undefined) {
      throw new WebhookVerificationError("malformed_header", `The request has ${raw.length} ${name} headers; a delivery has exactly one.`);
    }
    value = raw.join(joinWith ?? "");
  }
  value = value?.trim();
  return value ? value : undefined;
}

/**
 * The value of header `index` under either of its names. Both names present with different
 * values is refused: only one of them can have been signed, and choosing would let whoever added
 * the other pick what gets checked. A proxy or a test that copies stale headers is the likely cause.
 */
function required(values: readonly RawHeader[], index: number, joinWith?: string): string {
  const name = HEADER_NAMES[index]!;
  const svixName = HEADER_NAMES[index + SVIX]!;
  const standard = headerValue(values[index], name, joinWith);
  const svix = headerValue(values[index + SVIX], svixName, joinWith);
  if (standard !== undefined && svix !== undefined && standard !== svix) {
    throw new WebhookVerificationError(
      "malformed_header",
      `The request carries both ${name} and ${svixName}, with different values; a delivery names its headers one way (webhook-* as in Standard Webhooks, or svix-* from Svix). Refused rather than guessing which one was signed.`,
    );
  }
  const value = standard ?? svix;
  if (value === undefined) {
    throw new WebhookVerificationError(
      "missing_header",
      `The ${name} header (or ${svixName}) is missing or empty. A Standard Webhooks delivery carries webhook-id, webhook-timestamp and webhook-signature (Svix names them svix-*); check that a proxy in front of this app forwards them.`,
    );
  }
  return value;
}

/**
 * Whole Unix seconds, written canonically (digits, no leading zero, at most 15 of them): the
 * signature covers the header text, and only a canonical number prints back as that same text.
 */
function isCanonicalSeconds(text: string): boolean {
  if (text.length === 0 || text.length > 15 || (text.length > 1 && text.charCodeAt(0) === 48) /* 0 */) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 /* 0 */ || code > 57 /* 9 */) return false;
  }
  return true;
}

/**
 * Reads and checks the form of the three headers, named `webhook-*` or `svix-*`; where a header
 * is present under both names, the two must agree. @internal
 */
export function readDeliveryHeaders(headers: WebhookRequestHeaders): DeliveryHeaders {
  const values = rawHeaders(headers);
  const id = required(values, 0);
  const timestampText = required(values, 1);
  // Several signature headers (a proxy may split them) are as good as one space-separated list.
  const signature = required(values, 2, " ");
  if (!isCanonicalSeconds(timestampText)) {
    throw new WebhookVerificationError(
      "malformed_header",
      `webhook-timestamp (or svix-timestamp) must be whole Unix seconds (digits only), got "${timestampText.slice(0, 40)}".`,
    );
  }
  return { id, timestamp: Number(timestampText), timestampText, signature };
}
