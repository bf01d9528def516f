import * as nodeCrypto from "node:crypto";

/**
 * HMAC-SHA256 with a key prepared once, for a receiver that checks many deliveries with the
 * same secret. For small messages (every webhook of this service) it is computed from two
 * one-shot hashes over the key's precomputed pads (RFC 2104), because starting a
 * `crypto.createHmac` costs node:crypto more than hashing a 1 KB event does; longer messages,
 * and Node versions without `crypto.hash` (before 20.12), take createHmac. Both give the same
 * bytes: test/webhooks/hmac-key.test.ts compares them on generated keys and messages.
 */

/** A secret's HMAC-SHA256 key, ready for repeated use. @internal */
export interface HmacKey {
  /** The base64 HMAC-SHA256 of `prefix` (UTF-8) followed by `body` (UTF-8 when a string). */
  base64(prefix: string, body: string | Uint8Array): string;
}

// SHA-256's block size: keys are padded (or first hashed) to it.
const BLOCK = 64;
// Messages up to this many bytes go through the one-shot path: enough for any event this
// service sends, small enough to keep one buffer for all of them.
const SMALL_MESSAGE = 8 * 1024;

// Read at run time (a namespace import, not a named one): Node 20 before 20.12 has no
// crypto.hash, and a named import of it would fail to load there.
const oneShot = (nodeCrypto as { hash?: typeof nodeCrypto.hash }).hash;

// The inner hash's input: the key's inner pad, then the message. Shared by every key and call,
// which is safe because nothing between filling and hashing it yields.
const inner = Buffer.alloc(BLOCK + SMALL_MESSAGE);

/** Prepares `keyBytes` (any length; empty is refused earlier, by secretKey) for HMAC-SHA256. @internal */
export function hmacKey(keyBytes: Uint8Array): HmacKey {
  // Imported on first use: only messages too long for the one-shot path need it.
  let keyObject: nodeCrypto.KeyObject | undefined;
  const slow: HmacKey = {
    base64: (prefix, body) =>
      nodeCrypto
        .createHmac("sha256", (keyObject ??= nodeCrypto.createSecretKey(keyBytes)))
        .update(prefix)
        .update(body)
        .digest("base64"),
  };
  if (oneShot === undefined) return slow;

  // RFC 2104: a key longer than the block is replaced by its hash, then zero-padded to it.
  const key = keyBytes.length > BLOCK ? nodeCrypto.createHash("sha256").update(keyBytes).digest() : keyBytes;
  const innerPad = Buffer.alloc(BLOCK, 0x36);
  // The outer hash's input: the outer pad, then the 32-byte inner digest (written per call).
  const outer = Buffer.alloc(BLOCK + 32, 0x5c);
  for (let i = 0; i < key.length; i++) {
    innerPad[i]! ^= key[i]!;
    outer[i]! ^= key[i]!;
  }

  return {
    base64(prefix, body) {
      // UTF-8 takes at most 3 bytes per UTF-16 unit: past that bound, the message may not fit.
      const bodyBound = typeof body === "string" ? body.length * 3 : body.length;
      if (prefix.length * 3 + bodyBound > SMALL_MESSAGE) return slow.base64(prefix, body);
      innerPad.copy(inner, 0);
      // Buffer.write encodes strings as createHmac().update() does (UTF-8, lone surrogates
      // replaced alike), so both paths hash the same bytes.
      let end = BLOCK + inner.write(prefix, BLOCK, "utf8");
      if (typeof body === "string") end += inner.write(body, end, "utf8");
      else {
        inner.set(body, end);
        end += body.length;
      }
      // Digests come out as strings: in Node 20, returning a Buffer costs about as much as
      // hashing the 1 KB event. "binary" (latin1) is one character per byte, written back as such.
      outer.write(oneShot("sha256", inner.subarray(0, end), "binary"), BLOCK, "binary");
      return oneShot("sha256", outer, "base64");
    },
  };
}
