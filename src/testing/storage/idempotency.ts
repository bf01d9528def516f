import { describe, expect, it } from "vitest";
import type { SuiteContext } from "./context";
import { idempotency, T0, TEST } from "./fixtures";

/** Idempotency keys: one live record per (merchant, mode, key), claimed by exactly one request. */
export function idempotencyTests(ctx: SuiteContext): void {
  describe("idempotency keys", () => {
    it("stores a new key, then hands the stored record back to a second claim", async () => {
      const storage = ctx.storage();
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency()))).toBeNull();
      const again = idempotency({ requestHash: "another body", createdAt: T0 + 1000, expiresAt: T0 + 90_000_000 });
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(again))).toEqual(idempotency());
    });

    it("stores the answer of a claimed key, and forgets a key on delete", async () => {
      const storage = ctx.storage();
      await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency()));
      await storage.transaction((tx) => tx.completeIdempotencyKey(TEST, "idem_1", 201, '{"id":"inv_1"}'));
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ createdAt: T0 + 1 })))).toEqual(
        idempotency({ state: "completed", responseStatus: 201, responseBody: '{"id":"inv_1"}' }),
      );
      await storage.transaction((tx) => tx.deleteIdempotencyKey(TEST, "idem_1"));
      await storage.transaction((tx) => tx.deleteIdempotencyKey(TEST, "idem_never"));
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ createdAt: T0 + 2 })))).toBeNull();
    });

    it("replaces a record whose time ran out", async () => {
      const storage = ctx.storage();
      await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ expiresAt: T0 + 100 })));
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ createdAt: T0 + 99 })))).toEqual(idempotency({ expiresAt: T0 + 100 }));
      const fresh = idempotency({ requestHash: "new", createdAt: T0 + 100, expiresAt: T0 + 500 });
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(fresh))).toBeNull();
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ createdAt: T0 + 101 })))).toEqual(fresh);
    });

    it("deletes expired records, at most limit at a time", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        for (let i = 0; i < 5; i++) await tx.claimIdempotencyKey(idempotency({ key: `old_${i}`, expiresAt: T0 + i }));
        await tx.claimIdempotencyKey(idempotency({ key: "live", expiresAt: T0 + 1000 }));
      });
      expect(await storage.transaction((tx) => tx.deleteExpiredIdempotencyKeys(T0 + 10, 3))).toBe(3);
      expect(await storage.transaction((tx) => tx.deleteExpiredIdempotencyKeys(T0 + 10, 3))).toBe(2);
      expect(await storage.transaction((tx) => tx.deleteExpiredIdempotencyKeys(T0 + 10, 3))).toBe(0);
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ key: "live", createdAt: T0 + 10 })))).toEqual(
        idempotency({ key: "live", expiresAt: T0 + 1000 }),
      );
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ key: "old_0", createdAt: T0 + 10 })))).toBeNull();
    });

    it("lets exactly one of many parallel claims of one key store its record", async () => {
      const storage = ctx.storage();
      const n = ctx.parallelism;
      const results = await Promise.all(
        Array.from({ length: n }, (_, i) => storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ requestHash: `body_${i}` })))),
      );
      const winners = results.map((result, i) => (result === null ? i : -1)).filter((i) => i >= 0);
      expect(winners).toHaveLength(1);
      for (const result of results) if (result !== null) expect(result.requestHash).toBe(`body_${winners[0]}`);
    });
  });
}
