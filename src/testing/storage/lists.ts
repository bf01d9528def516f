import { describe, expect, it } from "vitest";
import type { PageQuery, Storage } from "../../core/ports/storage/index";
import type { SuiteContext } from "./context";
import { deposit, exchange, invoice, OTHER, paymentLink, payout, T0, TEST } from "./fixtures";

/** Walks every page of a newest-first list and returns the ids in the order seen. */
async function walk(list: (page: PageQuery) => Promise<Array<{ id: string }>>, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let after: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const page = await list({ limit, after });
    seen.push(...page.map((record) => record.id));
    if (page.length < limit) return seen;
    after = page.at(-1)!.id;
  }
  throw new Error("the list never ended");
}

async function insertInvoices(storage: Storage): Promise<void> {
  await storage.transaction(async (tx) => {
    // Two share a createdAt: (createdAt, id) still orders them.
    await tx.insertInvoice(invoice({ id: "inv_a", createdAt: T0 + 1, status: "PAID", network: "bitcoin" }));
    await tx.insertInvoice(invoice({ id: "inv_c", createdAt: T0 + 2, status: "PENDING", network: "tron" }));
    await tx.insertInvoice(invoice({ id: "inv_b", createdAt: T0 + 2, status: "PENDING", network: "bitcoin" }));
    await tx.insertInvoice(invoice({ id: "inv_d", createdAt: T0 + 3, status: "EXPIRED", network: null, coin: null, address: null }));
    await tx.insertInvoice(invoice({ id: "inv_e", createdAt: T0 + 4, status: "PENDING", network: "bitcoin" }));
    await tx.insertInvoice(invoice({ id: "inv_other", merchantId: "m_2", createdAt: T0 + 2 }));
    await tx.insertInvoice(invoice({ id: "inv_live", mode: "live", createdAt: T0 + 2 }));
  });
}

/** The /v1 lists: newest first by (createdAt, id), cursors, filters; refunds, pending sums, payment links. */
export function listTests(ctx: SuiteContext): void {
  describe("paged lists", () => {
    it("lists invoices newest first by (createdAt, id), one page at a time", async () => {
      const storage = ctx.storage();
      await insertInvoices(storage);
      const all = ["inv_e", "inv_d", "inv_c", "inv_b", "inv_a"];
      expect((await storage.listInvoices(TEST, {}, { limit: 10 })).map((i) => i.id)).toEqual(all);
      expect((await storage.listInvoices(TEST, {}, { limit: 2 })).map((i) => i.id)).toEqual(["inv_e", "inv_d"]);
      expect((await storage.listInvoices(TEST, {}, { limit: 2, after: "inv_d" })).map((i) => i.id)).toEqual(["inv_c", "inv_b"]);
      expect((await storage.listInvoices(TEST, {}, { limit: 2, after: "inv_a" })).map((i) => i.id)).toEqual([]);
      for (const limit of [1, 2, 3, 5]) expect(await walk((page) => storage.listInvoices(TEST, {}, page), limit)).toEqual(all);
    });

    it("filters invoices by status, network and a createdAt window (createdTo exclusive)", async () => {
      const storage = ctx.storage();
      await insertInvoices(storage);
      const ids = async (filter: Parameters<Storage["listInvoices"]>[1], after?: string) =>
        (await storage.listInvoices(TEST, filter, { limit: 10, after: after ?? null })).map((i) => i.id);
      expect(await ids({ status: "PENDING" })).toEqual(["inv_e", "inv_c", "inv_b"]);
      expect(await ids({ network: "bitcoin" })).toEqual(["inv_e", "inv_b", "inv_a"]);
      expect(await ids({ status: "PENDING", network: "bitcoin" })).toEqual(["inv_e", "inv_b"]);
      expect(await ids({ createdFrom: T0 + 2 })).toEqual(["inv_e", "inv_d", "inv_c", "inv_b"]);
      expect(await ids({ createdTo: T0 + 3 })).toEqual(["inv_c", "inv_b", "inv_a"]);
      expect(await ids({ createdFrom: T0 + 2, createdTo: T0 + 3 })).toEqual(["inv_c", "inv_b"]);
      expect(await ids({ status: "FAILED" })).toEqual([]);
      // The cursor need not match the filters: it only marks a place in the order.
      expect(await ids({ status: "PENDING" }, "inv_d")).toEqual(["inv_c", "inv_b"]);
      expect(await ids({ status: "PENDING", network: "tron", createdFrom: T0 + 2, createdTo: T0 + 3 })).toEqual(["inv_c"]);
    });

    it("never shifts pages when records are created between them", async () => {
      const storage = ctx.storage();
      await insertInvoices(storage);
      const first = await storage.listInvoices(TEST, {}, { limit: 2 });
      await storage.transaction(async (tx) => {
        await tx.insertInvoice(invoice({ id: "inv_new1", createdAt: T0 + 10 }));
        await tx.insertInvoice(invoice({ id: "inv_new0", createdAt: T0 + 4 }));
      });
      const rest = await storage.listInvoices(TEST, {}, { limit: 10, after: first.at(-1)!.id });
      expect([...first, ...rest].map((i) => i.id)).toEqual(["inv_e", "inv_d", "inv_c", "inv_b", "inv_a"]);
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
      const ids = async (filter: Parameters<Storage["listPayouts"]>[1], limit = 10, after?: string) =>
        (await storage.listPayouts(TEST, filter, { limit, after: after ?? null })).map((p) => p.id);
      expect(await ids({ kind: "payout" })).toEqual(["po_b", "po_a"]);
      expect(await ids({ kind: "refund" })).toEqual(["rf_c", "rf_b", "rf_a"]);
      expect(await ids({ kind: "refund", refundOf: "inv_1" })).toEqual(["rf_b", "rf_a"]);
      expect(await ids({ kind: "refund", status: "PROCESSING" })).toEqual(["rf_c", "rf_a"]);
      expect(await ids({ kind: "payout", status: "COMPLETED" })).toEqual(["po_b"]);
      expect(await ids({ kind: "refund" }, 1, "rf_c")).toEqual(["rf_b"]);
      expect(await walk((page) => storage.listPayouts(TEST, { kind: "refund" }, page), 2)).toEqual(["rf_c", "rf_b", "rf_a"]);
      expect((await storage.listRefunds("inv_1")).map((p) => p.id)).toEqual(["rf_a", "rf_b"]);
      expect((await storage.listRefunds("inv_9")).map((p) => p.id)).toEqual(["rf_other"]);
    });

    it("lists exchanges newest first, one page at a time", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        for (let i = 0; i < 5; i++) await tx.insertExchange(exchange({ id: `ex_${i}`, createdAt: T0 + (i % 3) }));
        await tx.insertExchange(exchange({ id: "ex_live", mode: "live" }));
      });
      const expected = ["ex_2", "ex_4", "ex_1", "ex_3", "ex_0"];
      expect((await storage.listExchanges(TEST, { limit: 10 })).map((e) => e.id)).toEqual(expected);
      expect(await walk((page) => storage.listExchanges(TEST, page), 2)).toEqual(expected);
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

    it("keeps payment links: scoped get, find by id alone, newest-first pages, lock and update", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertPaymentLink(paymentLink({ id: "pl_a", createdAt: T0 + 1 }));
        await tx.insertPaymentLink(paymentLink({ id: "pl_b", createdAt: T0 + 2 }));
        await tx.insertPaymentLink(paymentLink({ id: "pl_c", createdAt: T0 + 3 }));
        await tx.insertPaymentLink(paymentLink({ id: "pl_other", merchantId: "m_2" }));
      });
      expect((await storage.getPaymentLink(TEST, "pl_a"))?.id).toBe("pl_a");
      expect(await storage.getPaymentLink(TEST, "pl_other")).toBeNull();
      expect((await storage.findPaymentLink("pl_other"))?.merchantId).toBe("m_2");
      expect(await walk((page) => storage.listPaymentLinks(TEST, page), 2)).toEqual(["pl_c", "pl_b", "pl_a"]);
      await storage.transaction(async (tx) => {
        const locked = await tx.lockPaymentLink("pl_b");
        await tx.updatePaymentLink({ ...locked!, active: false, updatedAt: T0 + 9 });
      });
      expect(await storage.findPaymentLink("pl_b")).toEqual(paymentLink({ id: "pl_b", createdAt: T0 + 2, active: false, updatedAt: T0 + 9 }));
    });
  });
}
