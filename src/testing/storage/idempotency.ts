import { describe, expect, it } from "vitest";
import type { SuiteContext } from "./context";
import { idempotency, LEASE, seed, sleep, T0, TEST } from "./fixtures";

/** IdempotencyStore: one live record per (merchant, mode, key), claimed by exactly one request. */
export function idempotencyTests(ctx: SuiteContext): void {
  describe("IdempotencyStore: idempotency keys", () => {
    it("returns null, empty lists or 0n for anything never stored", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        expect(await tx.deleteExpiredIdempotencyKeys(T0 * 2, 10)).toBe(0);
      });
    });

    it("keeps a key per (merchant, mode): the same key is free in the other mode and for another merchant", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction(async (tx) => {
        // An idempotency key belongs to (merchant, mode): the same key is free elsewhere.
        expect(await tx.claimIdempotencyKey(idempotency({ mode: "live" }), LEASE)).toBeNull();
        expect(await tx.claimIdempotencyKey(idempotency({ merchantId: "m_2" }), LEASE)).toBeNull();
      });
    });

    it("returns records as they were stored, bigints, nulls and nested data included", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction(async (tx) => {
        expect(await tx.claimIdempotencyKey(idempotency({ requestHash: "other" }), LEASE)).toEqual(idempotency());
      });
    });

    it("stores a new key, then hands the stored record back to a second claim", async () => {
      const storage = ctx.storage();
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency(), LEASE))).toBeNull();
      const again = idempotency({ requestHash: "another body", createdAt: T0 + 1000, expiresAt: T0 + 90_000_000 });
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(again, LEASE))).toEqual(idempotency());
    });

    it("stores the answer of a claimed key", async () => {
      const storage = ctx.storage();
      await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency(), LEASE));
      expect(await storage.transaction((tx) => tx.completeIdempotencyKey(TEST, "idem_1", "lease_1", 201, '{"id":"inv_1"}'))).toBe(true);
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ createdAt: T0 + 1 }), LEASE))).toEqual(
        idempotency({ state: "completed", responseStatus: 201, responseBody: '{"id":"inv_1"}' }),
      );
    });

    it("forgets a started key on delete, so the next claim stores its own", async () => {
      const storage = ctx.storage();
      await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency(), LEASE));
      await storage.transaction((tx) => tx.deleteIdempotencyKey(TEST, "idem_1", "lease_1"));
      await storage.transaction((tx) => tx.deleteIdempotencyKey(TEST, "idem_never", "lease_1"));
      const next = idempotency({ requestHash: "another body", createdAt: T0 + 2, leaseToken: "lease_2" });
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(next, LEASE))).toBeNull();
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ createdAt: T0 + 3 }), LEASE))).toEqual(next);
    });

    it("replaces a record whose time ran out", async () => {
      const storage = ctx.storage();
      await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ expiresAt: T0 + 100 }), LEASE));
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ createdAt: T0 + 99 }), LEASE))).toEqual(
        idempotency({ expiresAt: T0 + 100 }),
      );
      const fresh = idempotency({ requestHash: "new", createdAt: T0 + 100, expiresAt: T0 + 500 });
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(fresh, LEASE))).toBeNull();
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ createdAt: T0 + 101 }), LEASE))).toEqual(fresh);
    });

    it("deletes expired records, at most limit at a time", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        for (let i = 0; i < 5; i++) await tx.claimIdempotencyKey(idempotency({ key: `old_${i}`, expiresAt: T0 + i }), LEASE);
        await tx.claimIdempotencyKey(idempotency({ key: "live", expiresAt: T0 + 1000 }), LEASE);
      });
      expect(await storage.transaction((tx) => tx.deleteExpiredIdempotencyKeys(T0 + 10, 3))).toBe(3);
      expect(await storage.transaction((tx) => tx.deleteExpiredIdempotencyKeys(T0 + 10, 3))).toBe(2);
      expect(await storage.transaction((tx) => tx.deleteExpiredIdempotencyKeys(T0 + 10, 3))).toBe(0);
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ key: "live", createdAt: T0 + 10 }), LEASE))).toEqual(
        idempotency({ key: "live", expiresAt: T0 + 1000 }),
      );
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ key: "old_0", createdAt: T0 + 10 }), LEASE))).toBeNull();
    });

    it("lets only the claim that holds a key complete or forget it", async () => {
      const storage = ctx.storage();
      await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency(), LEASE));
      expect(await storage.transaction((tx) => tx.completeIdempotencyKey(TEST, "idem_1", "lease_other", 201, "{}"))).toBe(false);
      await storage.transaction((tx) => tx.deleteIdempotencyKey(TEST, "idem_1", "lease_other"));
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ leaseToken: "lease_2" }), LEASE))).toEqual(idempotency());
      expect(await storage.transaction((tx) => tx.completeIdempotencyKey(TEST, "idem_never", "lease_1", 201, "{}"))).toBe(false);
      expect(await storage.transaction((tx) => tx.completeIdempotencyKey(TEST, "idem_1", "lease_1", 201, "{}"))).toBe(true);
      // Completed, it still answers to its holder only: a later answer of the same request.
      expect(await storage.transaction((tx) => tx.completeIdempotencyKey(TEST, "idem_1", "lease_other", 500, "{}"))).toBe(false);
      expect(await storage.transaction((tx) => tx.completeIdempotencyKey(TEST, "idem_1", "lease_1", 201, '{"sent":true}'))).toBe(true);
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ createdAt: T0 + 1, leaseToken: "lease_2" }), LEASE))).toEqual(
        idempotency({ state: "completed", responseStatus: 201, responseBody: '{"sent":true}' }),
      );
    });

    it("hands a started key whose lease lapsed to a retry of the same request, on the storage's clock", async () => {
      const storage = ctx.storage();
      await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency(), 1));
      await sleep(25);
      // Another request never takes the key over: that is a conflict, lapsed or not.
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ requestHash: "other", leaseToken: "lease_x" }), LEASE))).toEqual(
        idempotency(),
      );
      const retry = idempotency({ createdAt: T0 + 5, leaseToken: "lease_2" });
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(retry, LEASE))).toBeNull();
      // The first claim lost the key: it can neither complete nor forget it.
      expect(await storage.transaction((tx) => tx.completeIdempotencyKey(TEST, "idem_1", "lease_1", 201, "{}"))).toBe(false);
      await storage.transaction((tx) => tx.deleteIdempotencyKey(TEST, "idem_1", "lease_1"));
      // The retry's lease is live: a third claim gets the record back.
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ createdAt: T0 + 6, leaseToken: "lease_3" }), LEASE))).toEqual(retry);
      expect(await storage.transaction((tx) => tx.completeIdempotencyKey(TEST, "idem_1", "lease_2", 201, '{"ok":true}'))).toBe(true);
    });

    it("never takes over a completed key, however old its lease", async () => {
      const storage = ctx.storage();
      await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency(), 1));
      await storage.transaction((tx) => tx.completeIdempotencyKey(TEST, "idem_1", "lease_1", 201, "{}"));
      await sleep(25);
      expect(await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ createdAt: T0 + 5, leaseToken: "lease_2" }), LEASE))).toEqual(
        idempotency({ state: "completed", responseStatus: 201, responseBody: "{}" }),
      );
    });

    it("lets exactly one of many parallel retries take over a lapsed key", async () => {
      const storage = ctx.storage();
      await storage.transaction((tx) => tx.claimIdempotencyKey(idempotency(), 1));
      await sleep(25);
      const n = ctx.parallelism;
      const results = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ createdAt: T0 + 5, leaseToken: `retry_${i}` }), LEASE)),
        ),
      );
      const winners = results.map((result, i) => (result === null ? i : -1)).filter((i) => i >= 0);
      expect(winners).toHaveLength(1);
      for (const result of results) if (result !== null) expect(result.leaseToken).toBe(`retry_${winners[0]}`);
    });

    it("lets exactly one of many parallel claims of one key store its record", async () => {
      const storage = ctx.storage();
      const n = ctx.parallelism;
      const results = await Promise.all(
        Array.from({ length: n }, (_, i) => storage.transaction((tx) => tx.claimIdempotencyKey(idempotency({ requestHash: `body_${i}` }), LEASE))),
      );
      const winners = results.map((result, i) => (result === null ? i : -1)).filter((i) => i >= 0);
      expect(winners).toHaveLength(1);
      for (const result of results) if (result !== null) expect(result.requestHash).toBe(`body_${winners[0]}`);
    });
  });
}
