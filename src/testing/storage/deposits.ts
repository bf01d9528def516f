import { describe, expect, it } from "vitest";
import type { SuiteContext } from "./context";
import { type FreshnessCase, freshnessTests } from "./freshness";
import { deposit, invoice, LIVE, OTHER, payout, seed, T0, TEST } from "./fixtures";
import { lockTests, missingUpdateTests, uniqueTests } from "./shared";

const confirmed = deposit({ status: "CONFIRMED", confirmations: 6, blockHash: "block_6", creditedAt: T0 + 1, updatedAt: T0 + 1 });

const FRESHNESS: FreshnessCase[] = [
  { read: "getDeposit", write: "updateDeposit", look: (r) => r.getDeposit(TEST, "dep_1"), change: (tx) => tx.updateDeposit(confirmed), after: confirmed },
  {
    read: "listDepositsForInvoice",
    write: "updateDeposit",
    look: (r) => r.listDepositsForInvoice("inv_1"),
    change: (tx) => tx.updateDeposit(confirmed),
    after: [confirmed],
  },
  { read: "sumPendingDeposits", write: "updateDeposit", look: (r) => r.sumPendingDeposits(TEST), change: (tx) => tx.updateDeposit(confirmed), after: [] },
];

/** DepositStore: one record per chain identity, lists per invoice, pending sums, the notable ones. */
export function depositTests(ctx: SuiteContext): void {
  describe("DepositStore: deposits", () => {
    it("returns null, empty lists or 0n for anything never stored", async () => {
      const storage = ctx.storage();
      expect(await storage.getDeposit(TEST, "dep_x")).toBeNull();
      expect(await storage.listDepositsForInvoice("inv_x")).toEqual([]);
      expect(await storage.sumPendingDeposits(TEST)).toEqual([]);
      await storage.transaction(async (tx) => {
        expect(await tx.lockDeposit("test", "bitcoin", "tx_x", 0)).toBeNull();
      });
    });

    it("answers another merchant's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getDeposit(OTHER, "dep_1")).toBeNull();
      expect(await storage.sumPendingDeposits(OTHER)).toEqual([]);
    });

    it("answers the other mode's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getDeposit(LIVE, "dep_1")).toBeNull();
      expect(await storage.sumPendingDeposits(LIVE)).toEqual([]);
      await storage.transaction(async (tx) => {
        expect(await tx.lockDeposit("live", "bitcoin", "tx_1", 0)).toBeNull();
      });
    });

    it("lets lockDeposit reach a deposit by its chain identity, whatever its merchant", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction(async (tx) => {
        expect((await tx.lockDeposit("test", "bitcoin", "tx_1", 0))?.id).toBe("dep_1");
      });
    });

    it("returns records as they were stored, bigints, nulls and nested data included", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.listDepositsForInvoice("inv_1")).toEqual([deposit()]);
      expect(await storage.getDeposit(TEST, "dep_1")).toEqual(deposit());
    });

    it("keeps amounts exact far beyond 2^53 and 2^64, and every optional field either way", async () => {
      const storage = ctx.storage();
      const huge = 10n ** 40n + 7n; // 134 bits: no double or int64 survives this
      await storage.transaction(async (tx) => {
        await tx.insertDeposit(
          deposit({ amount: huge, fee: 2n ** 63n, creditedAt: T0 + 9, status: "CONFIRMED", confirmations: 120, countsTowardInvoice: false }),
        );
      });
      expect((await storage.listDepositsForInvoice("inv_1"))[0]?.amount).toBe(huge);
      expect((await storage.getDeposit(TEST, "dep_1"))?.amount).toBe(huge);
    });

    it("stores a copy: mutating the record passed in changes nothing stored", async () => {
      const storage = ctx.storage();
      const dep = deposit();
      await storage.transaction((tx) => tx.insertDeposit(dep));
      dep.amount = 0n;
      expect(await storage.listDepositsForInvoice("inv_1")).toEqual([deposit()]);
    });

    uniqueTests(ctx, [
      ["deposit (mode, network, txHash, outputIndex)", (tx) => tx.insertDeposit(deposit({ id: "dep_other" }))],
      ["deposit id", (tx) => tx.insertDeposit(deposit({ txHash: "tx_other" }))],
    ]);

    it("accepts the same chain transfer on another network, output or in the other mode", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction(async (tx) => {
        await tx.insertDeposit(deposit({ id: "dep_2", mode: "live" }));
        await tx.insertDeposit(deposit({ id: "dep_3", outputIndex: 1 }));
        await tx.insertDeposit(deposit({ id: "dep_4", network: "litecoin" }));
      });
      expect((await storage.listDepositsForInvoice("inv_1")).map((d) => d.id)).toEqual(["dep_1", "dep_2", "dep_3", "dep_4"]);
    });

    missingUpdateTests(ctx, [["deposit", (tx) => tx.updateDeposit(deposit())]]);

    it("replaces a record on update and keeps every lookup pointing at it", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction((tx) => tx.updateDeposit(deposit({ confirmations: 3, status: "CONFIRMED" })));
      expect((await storage.listDepositsForInvoice("inv_1"))[0]?.confirmations).toBe(3);
      expect(await storage.sumPendingDeposits(TEST)).toEqual([]);
      await storage.transaction(async (tx) => {
        expect((await tx.lockDeposit("test", "bitcoin", "tx_1", 0))?.status).toBe("CONFIRMED");
      });
    });

    it("moves a deposit's chain identity with an update, and refuses one that belongs to another deposit", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction(async (tx) => {
        await tx.insertDeposit(deposit({ id: "dep_2", txHash: "tx_2" }));
        await tx.updateDeposit(deposit({ txHash: "tx_moved" }));
      });
      await storage.transaction(async (tx) => {
        expect(await tx.lockDeposit("test", "bitcoin", "tx_1", 0)).toBeNull();
        expect((await tx.lockDeposit("test", "bitcoin", "tx_moved", 0))?.id).toBe("dep_1");
      });
      await expect(storage.transaction((tx) => tx.updateDeposit(deposit({ txHash: "tx_2" })))).rejects.toThrow();
      expect((await storage.listDepositsForInvoice("inv_1")).map((d) => d.txHash)).toEqual(["tx_moved", "tx_2"]);
    });

    it("lists deposits of an invoice in the order they were first seen", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertDeposit(deposit({ id: "d1", txHash: "a", seenAt: T0 + 5 }));
        await tx.insertDeposit(deposit({ id: "d2", txHash: "b", seenAt: T0 + 6 }));
        await tx.insertDeposit(deposit({ id: "other", txHash: "c", invoiceId: "inv_2" }));
        await tx.updateDeposit(deposit({ id: "d1", txHash: "a", seenAt: T0 + 5, confirmations: 6 }));
      });
      expect((await storage.listDepositsForInvoice("inv_1")).map((d) => d.id)).toEqual(["d1", "d2"]);
    });

    it("sums the deposits seen but not confirmed, per asset, in one scope", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertDeposit(deposit({ id: "d1", txHash: "t1", coin: "USDT", amount: 5n }));
        await tx.insertDeposit(deposit({ id: "d2", txHash: "t2", coin: "BTC", amount: 7n }));
        await tx.insertDeposit(deposit({ id: "d3", txHash: "t3", coin: "USDT", amount: 10n ** 30n }));
        await tx.insertDeposit(deposit({ id: "d4", txHash: "t4", coin: "BTC", amount: 100n, status: "CONFIRMED" }));
        await tx.insertDeposit(deposit({ id: "d5", txHash: "t5", coin: "BTC", amount: 100n, status: "DROPPED" }));
        await tx.insertDeposit(deposit({ id: "d6", txHash: "t6", coin: "BTC", amount: 100n, merchantId: "m_2" }));
        await tx.insertDeposit(deposit({ id: "d7", txHash: "t7", coin: "BTC", amount: 100n, mode: "live" }));
      });
      expect(await storage.sumPendingDeposits(TEST)).toEqual([
        { asset: "BTC", amount: 7n },
        { asset: "USDT", amount: 10n ** 30n + 5n },
      ]);
      expect(await storage.sumPendingDeposits(OTHER)).toEqual([{ asset: "BTC", amount: 100n }]);
    });

    // NotableDepositReads: part of the optional operatorReport part.
    if (ctx.parts.has("operatorReport"))
      it("lists notable deposits (reversed at least once, or not counting toward their invoice) of one mode, in the order stored, page by page", async () => {
        const storage = ctx.full();
        await storage.transaction(async (tx) => {
          await tx.insertInvoice(invoice());
          await tx.insertDeposit(deposit({ id: "dep_plain", txHash: "t1", status: "CONFIRMED", creditedAt: T0 }));
          await tx.insertDeposit(
            deposit({ id: "dep_rev", txHash: "t2", status: "REVERSED", reversals: 1, creditedAsset: "USDT", creditedAmount: 123_456_789_012_345_678_901n }),
          );
          await tx.insertDeposit(
            deposit({
              id: "dep_stray",
              txHash: "t3",
              coin: "ETH",
              countsTowardInvoice: false,
              status: "CONFIRMED",
              creditedAt: T0,
              creditedAsset: "ETH",
              creditedAmount: 995n,
            }),
          );
          await tx.insertDeposit(deposit({ id: "dep_live", txHash: "t4", mode: "live", countsTowardInvoice: false }));
          await tx.insertDeposit(deposit({ id: "dep_back", txHash: "t5", status: "CONFIRMED", reversals: 2, creditedAt: T0 + 3 }));
        });
        const first = await storage.listNotableDeposits("test", { limit: 2 });
        expect(first.map((d) => d.id)).toEqual(["dep_rev", "dep_stray"]);
        expect(first[0]).toEqual(
          deposit({ id: "dep_rev", txHash: "t2", status: "REVERSED", reversals: 1, creditedAsset: "USDT", creditedAmount: 123_456_789_012_345_678_901n }),
        );
        expect((await storage.listNotableDeposits("test", { limit: 2, after: "dep_stray" })).map((d) => d.id)).toEqual(["dep_back"]);
        expect((await storage.listNotableDeposits("test", { limit: 10, after: null })).map((d) => d.id)).toEqual(["dep_rev", "dep_stray", "dep_back"]);
        expect((await storage.listNotableDeposits("live", { limit: 10 })).map((d) => d.id)).toEqual(["dep_live"]);
        // A deposit updated to be reversed joins the list.
        await storage.transaction(async (tx) => {
          const plain = await tx.lockDeposit("test", "bitcoin", "t1", 0);
          await tx.updateDeposit({ ...plain!, status: "REVERSED", reversals: 1, creditedAt: null });
        });
        expect((await storage.listNotableDeposits("test", { limit: 10 })).map((d) => d.id)).toEqual(["dep_plain", "dep_rev", "dep_stray", "dep_back"]);
        // A refund of one deposit keeps which deposit it gave back; the invoice keeps what was reversed.
        await storage.transaction(async (tx) => {
          await tx.insertPayout(payout({ id: "rf_dep", refundOf: "inv_1", refundDepositId: "dep_stray", coin: "ETH" }));
          const locked = await tx.lockInvoice("inv_1");
          await tx.updateInvoice({ ...locked!, reversedAmount: 15_385n });
        });
        expect(await storage.getPayout(TEST, "rf_dep")).toEqual(payout({ id: "rf_dep", refundOf: "inv_1", refundDepositId: "dep_stray", coin: "ETH" }));
        expect((await storage.getInvoice(TEST, "inv_1"))?.reversedAmount).toBe(15_385n);
      });

    lockTests(ctx, [
      [
        "lockDeposit",
        (tx) => tx.lockDeposit("test", "bitcoin", "tx_1", 0),
        (tx) => tx.updateDeposit(deposit({ status: "CONFIRMED" })),
        async (tx) => (await tx.lockDeposit("test", "bitcoin", "tx_1", 0))?.status,
      ],
    ]);

    freshnessTests(ctx, FRESHNESS);
  });
}
