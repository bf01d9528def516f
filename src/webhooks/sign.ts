import { createHmac, type KeyObject } from "node:crypto";
import { secretKey, type WebhookSecret } from "../webhook-secret";

/**
 * The three Standard Webhooks headers of one delivery. A type alias, not an interface: an object
 * type alias is assignable to an index signature, so the value goes as it is into fetch's
 * `headers` (HeadersInit) or supertest's `.set()` (a Record<string, string>).
 */
export type WebhookHeaders = {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

/** What a signature covers: the delivery id, its timestamp and the exact body bytes. */
export interface SignInput {
  /** The `webhook-id`: the same on every retry of one delivery. */
  id: string;
  /** Unix seconds, as sent in `webhook-timestamp`. */
  timestamp: number;
  /** The exact body that is sent. */
  body: string | Uint8Array;
}

/**
 * The base64 HMAC-SHA256 of `id.timestamp.body` keyed with the secret's key bytes, without the
 * `v1,` prefix. Fed to the HMAC piece by piece so that the body is never copied. `key` may be a
 * KeyObject (`createSecretKey(bytes)`): a verifier that checks many deliveries with one key then
 * skips re-importing it on every call.
 */
export function webhookSignature(key: Buffer | KeyObject, input: SignInput): string {
  return createHmac("sha256", key).update(`${input.id}.${input.timestamp}.`).update(input.body).digest("base64");
}

/**
 * Signs a delivery: the `webhook-signature` value, one `v1,<base64>` entry per secret,
 * space-separated (several secrets during a rotation; a receiver accepts any match).
 */
export function signWebhook(input: SignInput, secrets: WebhookSecret | readonly WebhookSecret[]): string {
  const list = Array.isArray(secrets) ? secrets : [secrets as WebhookSecret];
  if (list.length === 0) throw new TypeError("signWebhook: at least one secret is needed");
  return list.map((secret) => `v1,${webhookSignature(secretKey(secret), input)}`).join(" ");
}

/**
 * The headers a sender attaches to a delivery. Exported so that merchants can build signed
 * test requests for their own handlers; `timestamp` defaults to now.
 */
export function webhookHeaders(
  input: Omit<SignInput, "timestamp"> & { timestamp?: number },
  secrets: WebhookSecret | readonly WebhookSecret[],
): WebhookHeaders {
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  return {
    "webhook-id": input.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signWebhook({ ...input, timestamp }, secrets),
  };
}
