import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Largest multiple of 62 that fits a byte: bytes at or above it are skipped to stay uniform. */
const LIMIT = 248;

// Random bytes are drawn 4 KB at a time: one call per id cost more than the rest of the id.
let pool = Buffer.alloc(0);
let offset = 0;

function nextByte(): number {
  if (offset === pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  return pool[offset++]!;
}

/**
 * A random base62 string from the system CSPRNG. Rejection sampling keeps every character
 * uniform, because ids double as capabilities (an invoice's hosted page is public to whoever
 * knows its id).
 */
export function randomToken(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = nextByte();
    if (byte < LIMIT) out += ALPHABET[byte % 62];
  }
  return out;
}

/** A new record id such as `inv_3kTz...`: a type prefix and 24 random base62 characters (~143 bits). */
export function newId(prefix: string): string {
  return `${prefix}_${randomToken(24)}`;
}
