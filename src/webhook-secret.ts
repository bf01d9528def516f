import { randomBytes } from "node:crypto";

/*
 * The webhook secret format, shared by both halves: core issues secrets to endpoints, the sender
 * signs with them, and the receiver toolkit verifies with them.
 */

/** Prefix of Standard Webhooks secrets: `whsec_` + base64 of the key bytes. */
export const SECRET_PREFIX = "whsec_";

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A secret as given: `whsec_<base64>`, bare base64, or the raw key bytes. */
export type WebhookSecret = string | Uint8Array;

/**
 * The HMAC key of a secret. A string must be (optionally `whsec_`-prefixed) canonical base64:
 * a secret that does not decode cleanly is refused instead of being used as a shorter key than
 * the sender's, which would make every signature fail in a way that is hard to diagnose.
 */
export function secretKey(secret: WebhookSecret): Buffer {
  if (typeof secret !== "string") {
    if (secret.length === 0) throw new TypeError("webhook secret: the key is empty");
    return Buffer.from(secret);
  }
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, "base64");
  if (encoded.length === 0 || encoded.length % 4 !== 0 || !BASE64.test(encoded) || key.toString("base64") !== encoded) {
    throw new TypeError("webhook secret: expected `whsec_` followed by base64 (as the sender shows it); this one does not decode cleanly");
  }
  return key;
}

/** A new random secret in the `whsec_` form (24 bytes of key, as Standard Webhooks senders use). */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString("base64");
}
