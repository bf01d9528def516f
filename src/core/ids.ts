import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * A random base62 string. Rejection sampling keeps every character uniform, because ids double
 * as capabilities (the hosted page of an invoice is public to whoever knows its id).
 */
export function randomToken(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A new record id such as `inv_3kTz...`: a type prefix and 24 random base62 characters (~143 bits). */
export function newId(prefix: string): string {
  return `${prefix}_${randomToken(24)}`;
}
