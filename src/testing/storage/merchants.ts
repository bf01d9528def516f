import { describe, expect, it } from "vitest";
import type { SuiteContext } from "./context";
import { type FreshnessCase, freshnessTests } from "./freshness";
import { apiKey, ids, merchant, seed, T0 } from "./fixtures";
import { missingUpdateTests, uniqueTests } from "./shared";

const renamed = merchant({ name: "Renamed shop", settleCurrency: "USDT" });

const FRESHNESS: FreshnessCase[] = [
  { read: "getMerchant", write: "updateMerchant", look: (r) => r.getMerchant("m_1"), change: (tx) => tx.updateMerchant(renamed), after: renamed },
  {
    read: "getMerchant",
    write: "insertMerchant of an id read as missing",
    look: (r) => r.getMerchant("m_2"),
    change: (tx) => tx.insertMerchant(merchant({ id: "m_2" })),
    after: merchant({ id: "m_2" }),
  },
  {
    read: "findApiKeyByHash",
    write: "revokeApiKey",
    look: (r) => r.findApiKeyByHash("hash_1"),
    change: (tx) => tx.revokeApiKey("key_1", T0 + 1),
    after: { key: apiKey({ revokedAt: T0 + 1 }), merchant: merchant() },
  },
  {
    read: "findApiKeyByHash",
    write: "updateMerchant of the key's merchant",
    look: (r) => r.findApiKeyByHash("hash_1"),
    change: (tx) => tx.updateMerchant(renamed),
    after: { key: apiKey(), merchant: renamed },
  },
  {
    read: "findApiKeyByHash",
    write: "insertApiKey of a hash read as missing",
    look: async (r) => (await r.findApiKeyByHash("hash_2"))?.key.id ?? null,
    change: (tx) => tx.insertApiKey(apiKey({ id: "key_2", hash: "hash_2", createdAt: T0 + 1 })),
    after: "key_2",
  },
  {
    read: "listApiKeys",
    write: "insertApiKey",
    look: async (r) => ids(await r.listApiKeys("m_1")),
    change: (tx) => tx.insertApiKey(apiKey({ id: "key_2", hash: "hash_2", createdAt: T0 + 1 })),
    after: ["key_1", "key_2"],
  },
];

/** MerchantStore: merchants, and API keys found by their hash together with their merchant. */
export function merchantTests(ctx: SuiteContext): void {
  describe("MerchantStore: merchants and API keys", () => {
    it("returns null, empty lists or 0n for anything never stored", async () => {
      const storage = ctx.storage();
      expect(await storage.getMerchant("m_x")).toBeNull();
      expect(await storage.findApiKeyByHash("nope")).toBeNull();
      expect(await storage.getApiKey("key_x")).toBeNull();
      expect(await storage.listApiKeys("m_x")).toEqual([]);
      await storage.transaction(async (tx) => {
        expect(await tx.revokeApiKey("key_x", T0)).toBe(false);
      });
    });

    it("answers another merchant's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.listApiKeys("m_2")).toEqual([]);
    });

    it("returns records as they were stored, bigints, nulls and nested data included", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getMerchant("m_1")).toEqual(merchant());
      expect(await storage.findApiKeyByHash("hash_1")).toEqual({ key: apiKey(), merchant: merchant() });
    });

    it("keeps every optional field either way", async () => {
      const storage = ctx.storage();
      const approval = { above: "1000.5", currency: "USD" };
      await storage.transaction(async (tx) => {
        await tx.insertApiKey(apiKey({ revokedAt: T0 + 1 }));
        await tx.insertMerchant(merchant({ settleCurrency: "USDT", payoutApproval: approval }));
      });
      expect((await storage.getMerchant("m_1"))?.settleCurrency).toBe("USDT");
      expect((await storage.getMerchant("m_1"))?.payoutApproval).toEqual(approval);
      expect((await storage.findApiKeyByHash("hash_1"))?.merchant.payoutApproval).toEqual(approval);
      expect(await storage.getApiKey("key_1")).toEqual(apiKey({ revokedAt: T0 + 1 }));
      // Copies all the way down: the nested threshold too.
      (await storage.getMerchant("m_1"))!.payoutApproval!.above = "1";
      expect((await storage.getMerchant("m_1"))?.payoutApproval).toEqual(approval);
      await storage.transaction((tx) => tx.updateMerchant(merchant({ payoutApproval: null })));
      expect((await storage.findApiKeyByHash("hash_1"))?.merchant.payoutApproval).toBeNull();
      expect((await storage.findApiKeyByHash("hash_1"))?.key.revokedAt).toBe(T0 + 1);
    });

    uniqueTests(ctx, [
      ["merchant id", (tx) => tx.insertMerchant(merchant({ name: "Other" }))],
      ["API key id", (tx) => tx.insertApiKey(apiKey({ hash: "hash_other" }))],
      ["API key hash", (tx) => tx.insertApiKey(apiKey({ id: "key_other" }))],
    ]);

    missingUpdateTests(ctx, [["merchant", (tx) => tx.updateMerchant(merchant())]]);

    it("replaces a record on update and keeps every lookup pointing at it", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction((tx) => tx.updateMerchant(merchant({ name: "Renamed", settleCurrency: "USDT" })));
      expect(await storage.getMerchant("m_1")).toEqual(merchant({ name: "Renamed", settleCurrency: "USDT" }));
    });

    it("lists keys oldest first, revoked ones included, and revokes a key only once", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertMerchant(merchant());
        await tx.insertApiKey(apiKey({ id: "key_b", hash: "h_b", createdAt: T0 + 2 }));
        await tx.insertApiKey(apiKey({ id: "key_a", hash: "h_a", createdAt: T0 + 1 }));
        await tx.insertApiKey(apiKey({ id: "key_other", hash: "h_o", merchantId: "m_2" }));
        expect(await tx.revokeApiKey("key_a", T0 + 5)).toBe(true);
        expect(await tx.revokeApiKey("key_a", T0 + 6)).toBe(false);
      });
      expect((await storage.listApiKeys("m_1")).map((k) => [k.id, k.revokedAt])).toEqual([
        ["key_a", T0 + 5],
        ["key_b", null],
      ]);
      expect((await storage.findApiKeyByHash("h_a"))?.key.revokedAt).toBe(T0 + 5);
      expect(await storage.transaction((tx) => tx.revokeApiKey("key_a", T0 + 7))).toBe(false);
    });

    it("finds a key with its merchant as it is now: a merchant's change shows in the next lookup", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertMerchant(merchant());
        await tx.insertApiKey(apiKey());
      });
      expect((await storage.findApiKeyByHash("hash_1"))?.merchant).toEqual(merchant());
      await storage.transaction(async (tx) => {
        await tx.updateMerchant(merchant({ settleCurrency: "USDT" }));
        expect((await tx.findApiKeyByHash("hash_1"))?.merchant.settleCurrency).toBe("USDT");
      });
      expect(await storage.findApiKeyByHash("hash_1")).toEqual({ key: apiKey(), merchant: merchant({ settleCurrency: "USDT" }) });
    });

    freshnessTests(ctx, FRESHNESS);
  });
}
