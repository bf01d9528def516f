import { describe, expect, it } from "vitest";
import type { SuiteContext } from "./context";
import { deposit, entry, invoice, merchant, payout, unlistedTransfer } from "./fixtures";

const HUGE = 2n ** 200n + 7n;

/**
 * ReconcileReads: sums across every merchant of one mode, grouped and ordered by their keys,
 * exact beyond 2^64, seeing every committed write and, inside a transaction, its own.
 */
export function reconcileTests(ctx: SuiteContext): void {
  describe("ReconcileReads: aggregate reads for reconciliation", () => {
    it("returns empty lists when nothing is stored", async () => {
      const storage = ctx.full();
      expect(await storage.depositTotals("live")).toEqual([]);
      expect(await storage.payoutTotals("live")).toEqual([]);
      expect(await storage.balanceTotals("live")).toEqual([]);
      expect(await storage.unlistedTotals("live")).toEqual([]);
    });

    it("sums deposits and their fees per network, coin, status and stray (a coin other than the invoice's), one mode, every merchant", async () => {
      const storage = ctx.full();
      await storage.transaction(async (tx) => {
        await tx.insertMerchant(merchant());
        await tx.insertMerchant(merchant({ id: "m_2" }));
        await tx.insertInvoice(invoice({ mode: "live", coin: "ETH", network: "ETH" }));
        await tx.insertInvoice(invoice({ id: "inv_2", merchantId: "m_2", mode: "live", coin: "USDT", network: "ETH" }));
        await tx.insertInvoice(invoice({ id: "inv_3", mode: "test", coin: "ETH", network: "ETH" }));
        const live = { mode: "live" as const, network: "ETH", coin: "ETH", status: "CONFIRMED" as const };
        await tx.insertDeposit(deposit({ ...live, id: "d1", txHash: "t1", amount: HUGE, fee: HUGE }));
        await tx.insertDeposit(deposit({ ...live, id: "d2", txHash: "t2", amount: 5n }));
        await tx.insertDeposit(deposit({ ...live, id: "d3", txHash: "t3", amount: 7n, status: "PENDING" }));
        await tx.insertDeposit(deposit({ ...live, id: "d4", txHash: "t4", amount: 11n, status: "REVERSED", reversals: 1 }));
        // ETH to the USDT invoice: stray. USDT to it: not.
        await tx.insertDeposit(deposit({ ...live, id: "d5", txHash: "t5", amount: 13n, merchantId: "m_2", invoiceId: "inv_2" }));
        await tx.insertDeposit(deposit({ ...live, id: "d6", txHash: "t6", amount: 17n, merchantId: "m_2", invoiceId: "inv_2", coin: "USDT" }));
        await tx.insertDeposit(deposit({ ...live, id: "d7", txHash: "t7", amount: 19n, network: "BSC", coin: "USDT", invoiceId: "inv_2" }));
        // Test mode is another world.
        await tx.insertDeposit(deposit({ ...live, id: "d8", txHash: "t8", amount: 23n, mode: "test", invoiceId: "inv_3" }));
      });
      expect(await storage.depositTotals("live")).toEqual([
        { network: "BSC", coin: "USDT", status: "CONFIRMED", stray: false, count: 1, amount: 19n, fee: 76n },
        { network: "ETH", coin: "ETH", status: "CONFIRMED", stray: false, count: 2, amount: HUGE + 5n, fee: HUGE + 76n },
        { network: "ETH", coin: "ETH", status: "CONFIRMED", stray: true, count: 1, amount: 13n, fee: 76n },
        { network: "ETH", coin: "ETH", status: "PENDING", stray: false, count: 1, amount: 7n, fee: 76n },
        { network: "ETH", coin: "ETH", status: "REVERSED", stray: false, count: 1, amount: 11n, fee: 76n },
        { network: "ETH", coin: "USDT", status: "CONFIRMED", stray: false, count: 1, amount: 17n, fee: 76n },
      ]);
      expect(await storage.depositTotals("test")).toEqual([
        { network: "ETH", coin: "ETH", status: "CONFIRMED", stray: false, count: 1, amount: 23n, fee: 76n },
      ]);
    });

    it("sums payouts and their fees per network, coin, status and whether a transaction was broadcast", async () => {
      const storage = ctx.full();
      await storage.transaction(async (tx) => {
        const live = { mode: "live" as const, network: "ETH", coin: "ETH" };
        await tx.insertPayout(payout({ ...live, id: "p1", status: "COMPLETED", txHash: "0x1", amount: HUGE, fee: HUGE }));
        await tx.insertPayout(payout({ ...live, id: "p2", status: "COMPLETED", txHash: "0x2", amount: 3n }));
        await tx.insertPayout(payout({ ...live, id: "p3", status: "PROCESSING", txHash: "0x3", amount: 5n }));
        await tx.insertPayout(payout({ ...live, id: "p4", status: "PROCESSING", amount: 7n }));
        await tx.insertPayout(payout({ ...live, id: "p5", status: "FAILED", txHash: "0x5", amount: 11n, merchantId: "m_2" }));
        await tx.insertPayout(payout({ ...live, id: "p6", status: "PROCESSING", amount: 13n, mode: "test" }));
      });
      expect(await storage.payoutTotals("live")).toEqual([
        { network: "ETH", coin: "ETH", status: "COMPLETED", sent: true, count: 2, amount: HUGE + 3n, fee: HUGE + 5n },
        { network: "ETH", coin: "ETH", status: "FAILED", sent: true, count: 1, amount: 11n, fee: 5n },
        { network: "ETH", coin: "ETH", status: "PROCESSING", sent: false, count: 1, amount: 7n, fee: 5n },
        { network: "ETH", coin: "ETH", status: "PROCESSING", sent: true, count: 1, amount: 5n, fee: 5n },
      ]);
      expect(await storage.payoutTotals("test")).toEqual([{ network: "ETH", coin: "ETH", status: "PROCESSING", sent: false, count: 1, amount: 13n, fee: 5n }]);
    });

    it("sums balances per asset across merchants, counting those below zero and their sum", async () => {
      const storage = ctx.full();
      const live = { mode: "live" as const };
      await storage.transaction(async (tx) => {
        await tx.postLedgerEntries([
          entry({ ...live, id: "a", causeKey: "a", asset: "ETH", amount: HUGE }),
          entry({ ...live, id: "b", causeKey: "b", asset: "ETH", amount: 40n, merchantId: "m_2" }),
          entry({ ...live, id: "c", causeKey: "c", asset: "USDT", amount: 9n }),
          entry({ ...live, id: "t", causeKey: "t", asset: "ETH", amount: 1000n, mode: "test" }),
        ]);
      });
      // m_2's ETH goes below zero: a reversal taking back more than is left.
      const reversal = entry({ ...live, id: "r", causeKey: "r", asset: "ETH", amount: -100n, merchantId: "m_2", kind: "deposit_reversal" });
      expect(await storage.transaction((tx) => tx.postLedgerEntries([reversal], { overdraw: true }))).toEqual({ status: "posted" });
      expect(await storage.balanceTotals("live")).toEqual([
        { asset: "ETH", amount: HUGE - 60n, deficits: 1, deficit: -60n },
        { asset: "USDT", amount: 9n, deficits: 0, deficit: 0n },
      ]);
      expect(await storage.balanceTotals("test")).toEqual([{ asset: "ETH", amount: 1000n, deficits: 0, deficit: 0n }]);
    });

    it("sums unlisted-token transfers per network and token, in raw units", async () => {
      const storage = ctx.full();
      const token = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
      await storage.transaction(async (tx) => {
        await tx.insertUnlistedTransfer(unlistedTransfer({ id: "u1", mode: "live" }));
        await tx.insertUnlistedTransfer(unlistedTransfer({ id: "u2", mode: "live", logIndex: 4, amount: 1n }));
        await tx.insertUnlistedTransfer(unlistedTransfer({ id: "u3", mode: "live", network: "BSC", amount: 2n }));
        await tx.insertUnlistedTransfer(unlistedTransfer({ id: "u4", mode: "test", amount: 3n }));
      });
      expect(await storage.unlistedTotals("live")).toEqual([
        { network: "BSC", token, count: 1, amount: 2n },
        { network: "ETH", token, count: 2, amount: HUGE + 1n },
      ]);
      expect(await storage.unlistedTotals("test")).toEqual([{ network: "ETH", token, count: 1, amount: 3n }]);
    });

    it("sees a transaction's own writes inside it, and every committed write after it", async () => {
      const storage = ctx.full();
      await storage.transaction(async (tx) => {
        await tx.insertPayout(payout({ mode: "live", network: "ETH", coin: "ETH", amount: 4n }));
        expect(await tx.payoutTotals("live")).toEqual([{ network: "ETH", coin: "ETH", status: "PROCESSING", sent: false, count: 1, amount: 4n, fee: 5n }]);
      });
      await storage.transaction(async (tx) => {
        const stored = await tx.lockPayout("po_1");
        await tx.updatePayout({ ...stored!, txHash: "0xsent" });
      });
      expect(await storage.payoutTotals("live")).toEqual([{ network: "ETH", coin: "ETH", status: "PROCESSING", sent: true, count: 1, amount: 4n, fee: 5n }]);
    });
  });
}
