import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hmacKey } from "../../src/webhooks/hmac-key";

/** node:crypto's HMAC, the reference the prepared key must equal byte for byte. */
const reference = (key: Uint8Array, prefix: string, body: string | Uint8Array) => createHmac("sha256", key).update(prefix).update(body).digest("base64");

// Any UTF-16 code units, lone surrogates included: both paths must encode them alike.
const text = (maxLength: number) => fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength }).map((units) => String.fromCharCode(...units));
// Around the 8 KB where the prepared key switches from one-shot hashes to createHmac.
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc.integer({ min: 2000, max: 9000 }).chain((length) => fc.uint8Array({ minLength: length, maxLength: length })),
);

describe("hmacKey", () => {
  it("gives node:crypto's HMAC-SHA256 for generated keys, prefixes and bodies", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 200 }), text(80), fc.oneof(bytes, text(3000)), (key, prefix, body) => {
        expect(hmacKey(key).base64(prefix, body)).toBe(reference(key, prefix, body));
      }),
      { numRuns: 400 },
    );
  });

  it("agrees at the edges: keys of 63, 64 and 65 bytes, messages on either side of 8 KB", () => {
    // A 17-character prefix may take 51 bytes, a body string 3 bytes per unit: 8141 bytes or
    // 2713 characters is the last body of the one-shot path, one more goes to createHmac.
    for (const keyLength of [1, 63, 64, 65, 1000]) {
      const key = Uint8Array.from({ length: keyLength }, (_, i) => (i * 7 + 3) % 256);
      const prepared = hmacKey(key);
      for (const bodyLength of [0, 1, 2713, 2714, 8141, 8142, 70_000]) {
        const body = Buffer.alloc(bodyLength, 0x61);
        expect(prepared.base64("msg_1.1614265330.", body)).toBe(reference(key, "msg_1.1614265330.", body));
        expect(prepared.base64("msg_1.1614265330.", body.toString())).toBe(reference(key, "msg_1.1614265330.", body.toString()));
      }
    }
  });

  it("keeps no state between calls: interleaved keys and messages give each its own HMAC", () => {
    const first = hmacKey(Buffer.from("first key"));
    const second = hmacKey(Buffer.from("second key"));
    const long = "x".repeat(5000);
    expect([first.base64("a.", long), second.base64("b.", "short"), first.base64("a.", long)]).toEqual([
      reference(Buffer.from("first key"), "a.", long),
      reference(Buffer.from("second key"), "b.", "short"),
      reference(Buffer.from("first key"), "a.", long),
    ]);
  });
});
