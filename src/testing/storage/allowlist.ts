import { describe, expect, it } from "vitest";
import type { SuiteContext } from "./context";
import { type FreshnessCase, freshnessTests } from "./freshness";
import { allowedAddress, apiKey, auditEntryOf, ids, LIVE, merchant, OTHER, seed, T0, TEST } from "./fixtures";
import { lockTests, missingUpdateTests, uniqueTests } from "./shared";

const KEY = allowedAddress().addressKey;
const approved = allowedAddress({ approvedBy: "user_2", approvedAt: T0 + 10, usableAt: T0 + 20 });

const FRESHNESS: FreshnessCase[] = [
  {
    read: "getAllowedAddress",
    write: "updateAllowedAddress",
    look: (r) => r.getAllowedAddress("pad_1"),
    change: (tx) => tx.updateAllowedAddress(approved),
    after: approved,
  },
  {
    read: "listAllowedAddresses",
    write: "insertAllowedAddress",
    look: async (r) => ids(await r.listAllowedAddresses("m_1")),
    change: (tx) => tx.insertAllowedAddress(allowedAddress({ id: "pad_2", network: "BSC", createdAt: T0 + 1 })),
    after: ["pad_1", "pad_2"],
  },
  {
    read: "findAllowedAddress",
    write: "deleteAllowedAddress",
    look: (r) => r.findAllowedAddress(TEST, "ETH", KEY),
    change: (tx) => tx.deleteAllowedAddress("pad_1"),
    after: null,
  },
  {
    read: "findAllowedAddress (not found)",
    write: "insertAllowedAddress",
    look: async (r) => (await r.findAllowedAddress(LIVE, "ETH", KEY))?.id ?? null,
    change: (tx) => tx.insertAllowedAddress(allowedAddress({ id: "pad_live", mode: "live" })),
    after: "pad_live",
  },
];

/** AllowlistStore: a merchant's payout addresses per mode and network, unique by their comparison form; the merchant's switch. */
export function allowlistTests(ctx: SuiteContext): void {
  describe("AllowlistStore: payout allowlists", () => {
    it("finds nothing before anything is stored", async () => {
      const storage = ctx.storage();
      expect(await storage.getAllowedAddress("pad_1")).toBeNull();
      expect(await storage.listAllowedAddresses("m_1")).toEqual([]);
      expect(await storage.findAllowedAddress(TEST, "ETH", KEY)).toBeNull();
    });

    it("returns entries as stored: by id, a merchant's oldest first (both modes or one), and by scope, network and exact addressKey", async () => {
      const storage = ctx.storage();
      const entries = [
        allowedAddress({ id: "pad_b", createdAt: T0 + 1 }),
        allowedAddress({ id: "pad_a", createdAt: T0 + 1, network: "BSC", label: null }),
        allowedAddress({ id: "pad_c", createdAt: T0, mode: "live", approvedBy: "user_2", approvedAt: T0 + 5, usableAt: T0 + 9 }),
        allowedAddress({ id: "pad_o", merchantId: "m_2" }),
        allowedAddress({ id: "pad_btc", network: "BTC", address: "bc1qExact", addressKey: "bc1qExact", createdAt: T0 + 2 }),
      ];
      await storage.transaction(async (tx) => {
        for (const entry of entries) await tx.insertAllowedAddress(entry);
      });
      expect(await storage.getAllowedAddress("pad_c")).toEqual(entries[2]);
      expect(await storage.getAllowedAddress("pad_o")).toEqual(entries[3]);
      expect(await storage.listAllowedAddresses("m_1")).toEqual([entries[2], entries[1], entries[0], entries[4]]);
      expect(ids(await storage.listAllowedAddresses("m_1", "test"))).toEqual(["pad_a", "pad_b", "pad_btc"]);
      expect(ids(await storage.listAllowedAddresses("m_1", "live"))).toEqual(["pad_c"]);
      expect(ids(await storage.listAllowedAddresses("m_2"))).toEqual(["pad_o"]);
      expect(await storage.listAllowedAddresses("m_unknown")).toEqual([]);
      expect(await storage.findAllowedAddress(TEST, "ETH", KEY)).toEqual(entries[0]);
      expect((await storage.findAllowedAddress(TEST, "BSC", KEY))?.id).toBe("pad_a");
      expect((await storage.findAllowedAddress(LIVE, "ETH", KEY))?.id).toBe("pad_c");
      expect((await storage.findAllowedAddress(OTHER, "ETH", KEY))?.id).toBe("pad_o");
      expect((await storage.findAllowedAddress(TEST, "BTC", "bc1qExact"))?.id).toBe("pad_btc");
      // The key is compared exactly: the comparison form is the caller's to make.
      expect(await storage.findAllowedAddress(TEST, "BTC", "bc1qexact")).toBeNull();
      expect(await storage.findAllowedAddress(TEST, "ETH", KEY.toUpperCase())).toBeNull();
      expect(await storage.findAllowedAddress(TEST, "TRX", KEY)).toBeNull();
    });

    it("replaces an entry on update, and deletes it (false when there is none), leaving its address free again", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction((tx) => tx.updateAllowedAddress(approved));
      expect(await storage.getAllowedAddress("pad_1")).toEqual(approved);
      expect(await storage.findAllowedAddress(TEST, "ETH", KEY)).toEqual(approved);
      expect(await storage.transaction((tx) => tx.deleteAllowedAddress("pad_1"))).toBe(true);
      expect(await storage.transaction((tx) => tx.deleteAllowedAddress("pad_1"))).toBe(false);
      expect(await storage.getAllowedAddress("pad_1")).toBeNull();
      expect(await storage.findAllowedAddress(TEST, "ETH", KEY)).toBeNull();
      await storage.transaction((tx) => tx.insertAllowedAddress(allowedAddress({ id: "pad_again" })));
      expect(ids(await storage.listAllowedAddresses("m_1"))).toEqual(["pad_again"]);
    });

    it("keeps nothing of a transaction that threw, a deletion included", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await expect(
        storage.transaction(async (tx) => {
          await tx.insertAllowedAddress(allowedAddress({ id: "pad_2", network: "BSC" }));
          await tx.deleteAllowedAddress("pad_1");
          expect(ids(await tx.listAllowedAddresses("m_1"))).toEqual(["pad_2"]);
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect(await storage.listAllowedAddresses("m_1")).toEqual([allowedAddress()]);
    });

    it("hands out copies: changing a returned entry changes nothing stored", async () => {
      const storage = ctx.storage();
      await seed(storage);
      const read = (await storage.getAllowedAddress("pad_1"))!;
      read.addressKey = "changed";
      const [listed] = await storage.listAllowedAddresses("m_1");
      listed!.label = "changed";
      expect(await storage.findAllowedAddress(TEST, "ETH", KEY)).toEqual(allowedAddress());
    });

    it("stores a merchant's payoutAllowlist switch, also as findApiKeyByHash gives the merchant", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertMerchant(merchant({ id: "m_2", payoutAllowlist: true }));
        await tx.insertMerchant(merchant());
        await tx.insertApiKey(apiKey());
      });
      expect(await storage.getMerchant("m_2")).toEqual(merchant({ id: "m_2", payoutAllowlist: true }));
      await storage.transaction((tx) => tx.updateMerchant(merchant({ payoutAllowlist: true })));
      expect(await storage.getMerchant("m_1")).toEqual(merchant({ payoutAllowlist: true }));
      expect((await storage.findApiKeyByHash(apiKey().hash))?.merchant).toEqual(merchant({ payoutAllowlist: true }));
    });

    // Read back through AuditLogReads: the optional auditLog part.
    if (ctx.parts.has("auditLog"))
      it("keeps an audit entry of a merchant setting, which has no mode", async () => {
        const storage = ctx.full();
        const entry = auditEntryOf({ action: "payout_allowlist.enabled", recordId: "m_1", mode: null });
        await storage.transaction((tx) => tx.insertAuditEntry(entry));
        expect(await storage.listAuditLog({ merchantId: "m_1", limit: 5 })).toEqual([entry]);
      });

    uniqueTests(ctx, [
      ["payout address id", (tx) => tx.insertAllowedAddress(allowedAddress({ network: "BSC" }))],
      [
        "merchant, mode, network and addressKey",
        (tx) => tx.insertAllowedAddress(allowedAddress({ id: "pad_2", address: "0x52908400098527886e0f7030069857d2e4169ee7" })),
      ],
    ]);

    missingUpdateTests(ctx, [["payout address", (tx) => tx.updateAllowedAddress(allowedAddress())]]);

    lockTests(ctx, [
      [
        "lockAllowedAddress",
        (tx) => tx.lockAllowedAddress("pad_1"),
        (tx) => tx.updateAllowedAddress(approved),
        async (tx) => (await tx.lockAllowedAddress("pad_1"))?.approvedBy,
      ],
    ]);

    freshnessTests(ctx, FRESHNESS);
  });
}
