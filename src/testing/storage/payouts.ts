import { describe, expect, it } from "vitest";
import type { Storage } from "../../core/ports/storage/index";
import type { SuiteContext } from "./context";
import { type FreshnessCase, freshnessTests } from "./freshness";
import { ids, LIVE, OTHER, payout, seed, T0, TEST } from "./fixtures";
import { lockTests, missingUpdateTests, uniqueTests, walk } from "./shared";

const completed = payout({ status: "COMPLETED", txHash: "0xpaid", updatedAt: T0 + 1 });

const FRESHNESS: FreshnessCase[] = [
  { read: "getPayout", write: "updatePayout", look: (r) => r.getPayout(TEST, "po_1"), change: (tx) => tx.updatePayout(completed), after: completed },
  {
    read: "listPayouts",
    write: "updatePayout",
    look: (r) => r.listPayouts(TEST, { kind: "payout" }, { limit: 10 }),
    change: (tx) => tx.updatePayout(completed),
    after: [completed],
  },
  {
    read: "listPayoutsByStatus",
    write: "updatePayout",
    look: async (r) => ids(await r.listPayoutsByStatus("test", "PROCESSING", 10)),
    change: (tx) => tx.updatePayout(completed),
    after: [],
  },
  {
    read: "listRefunds",
    write: "insertPayout of a refund",
    look: async (r) => ids(await r.listRefunds("inv_1")),
    change: (tx) => tx.insertPayout(payout({ id: "po_2", refundOf: "inv_1", createdAt: T0 + 1 })),
    after: ["po_2"],
  },
];

/** PayoutStore: payouts and refunds apart, lists by status for the chain loop, copies, locks. */
export function payoutTests(ctx: SuiteContext): void {
  describe("PayoutStore: payouts and refunds", () => {
    it("returns null, empty lists or 0n for anything never stored", async () => {
      const storage = ctx.storage();
      expect(await storage.getPayout(TEST, "po_x")).toBeNull();
      expect(await storage.listPayoutsByStatus("test", "PROCESSING", 10)).toEqual([]);
      expect(await storage.listPayouts(TEST, { kind: "payout" }, { limit: 10 })).toEqual([]);
      expect(await storage.listPayouts(TEST, { kind: "refund" }, { limit: 10 })).toEqual([]);
      expect(await storage.listRefunds("inv_x")).toEqual([]);
      await storage.transaction(async (tx) => {
        expect(await tx.lockPayout("po_x")).toBeNull();
      });
    });

    it("answers another merchant's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getPayout(OTHER, "po_1")).toBeNull();
      expect(await storage.listPayouts(OTHER, { kind: "payout" }, { limit: 10 })).toEqual([]);
    });

    it("answers the other mode's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getPayout(LIVE, "po_1")).toBeNull();
      expect(await storage.listPayouts(LIVE, { kind: "payout" }, { limit: 10 })).toEqual([]);
      expect(await storage.listPayoutsByStatus("live", "PROCESSING", 10)).toEqual([]);
    });

    it("lets lockPayout reach a payout whatever its merchant", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction(async (tx) => {
        expect((await tx.lockPayout("po_1"))?.id).toBe("po_1");
      });
    });

    it("returns records as they were stored, bigints, nulls and nested data included", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getPayout(TEST, "po_1")).toEqual(payout());
    });

    it("keeps amounts exact far beyond 2^53 and 2^64, and every optional field either way", async () => {
      const storage = ctx.storage();
      const huge = 10n ** 40n + 7n; // 134 bits: no double or int64 survives this
      await storage.transaction(async (tx) => {
        await tx.insertPayout(payout({ amount: huge, refundOf: "inv_f", txHash: "0xdef", failureReason: "reverted", status: "FAILED" }));
      });
      expect((await storage.getPayout(TEST, "po_1"))?.amount).toBe(huge);
      expect(await storage.getPayout(TEST, "po_1")).toEqual(
        payout({ amount: huge, refundOf: "inv_f", txHash: "0xdef", failureReason: "reverted", status: "FAILED" }),
      );
    });

    it("keeps a payout held for approval with who asked, and who decided once it is", async () => {
      const storage = ctx.storage();
      const held = payout({ status: "AWAITING_APPROVAL", requestedBy: "key_1" });
      await storage.transaction((tx) => tx.insertPayout(held));
      expect(await storage.getPayout(TEST, "po_1")).toEqual(held);
      expect(await storage.listPayoutsByStatus("test", "AWAITING_APPROVAL", 10)).toEqual([held]);
      expect(await storage.listPayoutsByStatus("test", "PROCESSING", 10)).toEqual([]);
      const rejected = { ...held, status: "REJECTED" as const, reviewedBy: "user_2", failureReason: "not ours", updatedAt: T0 + 1 };
      await storage.transaction(async (tx) => {
        expect(await tx.lockPayout("po_1")).toEqual(held);
        await tx.updatePayout(rejected);
      });
      expect(await storage.listPayouts(TEST, { kind: "payout", status: "REJECTED" }, { limit: 10 })).toEqual([rejected]);
      expect(await storage.listPayoutsByStatus("test", "AWAITING_APPROVAL", 10)).toEqual([]);
    });

    it("keeps a refund claim link's terms exactly, amounts of any size included, and their change at the claim", async () => {
      const storage = ctx.storage();
      const huge = 123_456_789_012_345_678_901_234_567_890n;
      const claim = {
        tokenHash: "ab".repeat(32),
        expiresAt: T0 + 86_400_000,
        networks: ["TRX", "ETH"],
        coins: [{ coin: "USDC", networks: ["ETH", "BSC"] }],
        origin: null,
        fiat: { amount: 5000n, currency: "USD", rate: huge },
        held: huge + 7n,
        claimedAt: null,
      };
      const waiting = payout({ status: "AWAITING_CLAIM", refundOf: "inv_1", address: "", claim });
      await storage.transaction((tx) => tx.insertPayout(waiting));
      expect(await storage.getPayout(TEST, "po_1")).toEqual(waiting);
      expect(await storage.listPayoutsByStatus("test", "AWAITING_CLAIM", 10)).toEqual([waiting]);
      const claimed = {
        ...waiting,
        status: "PROCESSING" as const,
        address: "TAddr",
        claim: { ...claim, claimedAt: T0 + 5, origin: { coin: "USDT", amount: huge } },
        updatedAt: T0 + 5,
      };
      await storage.transaction(async (tx) => {
        const locked = await tx.lockPayout("po_1");
        expect(locked).toEqual(waiting);
        // A copy: changing what was read changes nothing stored.
        locked!.claim!.networks.push("BSC");
        locked!.claim!.coins[0]!.networks.push("TRX");
        await tx.updatePayout(claimed);
      });
      expect(await storage.listRefunds("inv_1")).toEqual([claimed]);
      expect(await storage.listPayoutsByStatus("test", "AWAITING_CLAIM", 10)).toEqual([]);
    });

    it("returns a copy: mutating a record read back changes nothing stored", async () => {
      const storage = ctx.storage();
      await seed(storage);
      const po = await storage.getPayout(TEST, "po_1");
      if (po) po.amount = 0n;
      expect(await storage.getPayout(TEST, "po_1")).toEqual(payout());
    });

    uniqueTests(ctx, [["payout id", (tx) => tx.insertPayout(payout({ amount: 1n }))]]);

    missingUpdateTests(ctx, [["payout", (tx) => tx.updatePayout(payout())]]);

    it("replaces a record on update and keeps every lookup pointing at it", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction((tx) => tx.updatePayout(payout({ status: "COMPLETED", txHash: "tx_out" })));
      expect(await storage.listPayoutsByStatus("test", "COMPLETED", 10)).toEqual([payout({ status: "COMPLETED", txHash: "tx_out" })]);
      expect(await storage.listPayoutsByStatus("test", "PROCESSING", 10)).toEqual([]);
    });

    it("lists payouts of one status by (createdAt, id), at most limit, and pages with after", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertPayout(payout({ id: "p3", createdAt: T0 + 3 }));
        await tx.insertPayout(payout({ id: "p1", createdAt: T0 + 1 }));
        await tx.insertPayout(payout({ id: "p2b", createdAt: T0 + 2 }));
        await tx.insertPayout(payout({ id: "p2a", createdAt: T0 + 2 }));
        await tx.insertPayout(payout({ id: "done", status: "COMPLETED" }));
        await tx.insertPayout(payout({ id: "live", mode: "live" }));
      });
      const processing = async (limit: number, after?: string) => (await storage.listPayoutsByStatus("test", "PROCESSING", limit, after)).map((p) => p.id);
      expect(await processing(10)).toEqual(["p1", "p2a", "p2b", "p3"]);
      expect(await processing(2)).toEqual(["p1", "p2a"]);
      expect(await processing(2, "p2a")).toEqual(["p2b", "p3"]);
      expect(await processing(2, "p3")).toEqual([]);
    });

    it("lists payouts and refunds apart, newest first, by invoice and status", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertPayout(payout({ id: "po_a", createdAt: T0 + 1 }));
        await tx.insertPayout(payout({ id: "po_b", createdAt: T0 + 3, status: "COMPLETED" }));
        await tx.insertPayout(payout({ id: "rf_a", createdAt: T0 + 2, refundOf: "inv_1" }));
        await tx.insertPayout(payout({ id: "rf_b", createdAt: T0 + 4, refundOf: "inv_1", status: "FAILED" }));
        await tx.insertPayout(payout({ id: "rf_c", createdAt: T0 + 5, refundOf: "inv_2" }));
        await tx.insertPayout(payout({ id: "rf_other", merchantId: "m_2", refundOf: "inv_9" }));
      });
      const listed = async (filter: Parameters<Storage["listPayouts"]>[1], limit = 10, after?: string) =>
        (await storage.listPayouts(TEST, filter, { limit, after: after ?? null })).map((p) => p.id);
      expect(await listed({ kind: "payout" })).toEqual(["po_b", "po_a"]);
      expect(await listed({ kind: "refund" })).toEqual(["rf_c", "rf_b", "rf_a"]);
      expect(await listed({ kind: "refund", refundOf: "inv_1" })).toEqual(["rf_b", "rf_a"]);
      expect(await listed({ kind: "refund", status: "PROCESSING" })).toEqual(["rf_c", "rf_a"]);
      expect(await listed({ kind: "payout", status: "COMPLETED" })).toEqual(["po_b"]);
      expect(await listed({ kind: "refund" }, 1, "rf_c")).toEqual(["rf_b"]);
      expect(await walk((page) => storage.listPayouts(TEST, { kind: "refund" }, page), 2)).toEqual(["rf_c", "rf_b", "rf_a"]);
      expect((await storage.listRefunds("inv_1")).map((p) => p.id)).toEqual(["rf_a", "rf_b"]);
      expect((await storage.listRefunds("inv_9")).map((p) => p.id)).toEqual(["rf_other"]);
    });

    lockTests(ctx, [
      [
        "lockPayout",
        (tx) => tx.lockPayout("po_1"),
        (tx) => tx.updatePayout(payout({ status: "COMPLETED" })),
        async (tx) => (await tx.lockPayout("po_1"))?.status,
      ],
    ]);

    freshnessTests(ctx, FRESHNESS);
  });
}
