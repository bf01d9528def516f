import { describe, expect, it } from "vitest";
import type { InvoiceRecord } from "../../core/invoices/records";
import type { Storage } from "../../core/ports/storage/index";
import type { SuiteContext } from "./context";
import { type FreshnessCase, freshnessTests } from "./freshness";
import { deposit, hostedInvoice, ids, invoice, LIVE, OTHER, seed, T0, TEST } from "./fixtures";
import { lockTests, missingUpdateTests, uniqueTests, walk } from "./shared";

const paid = invoice({ status: "PAID", receivedAmount: 15_385n, txHash: "tx_1", updatedAt: T0 + 1 });

const FRESHNESS: FreshnessCase[] = [
  { read: "getInvoice", write: "updateInvoice", look: (r) => r.getInvoice(TEST, "inv_1"), change: (tx) => tx.updateInvoice(paid), after: paid },
  {
    read: "getInvoice",
    write: "insertInvoice of an id read as missing",
    look: (r) => r.getInvoice(TEST, "inv_2"),
    change: (tx) => tx.insertInvoice(hostedInvoice({ id: "inv_2", createdAt: T0 + 1 })),
    after: hostedInvoice({ id: "inv_2", createdAt: T0 + 1 }),
  },
  {
    read: "listInvoices",
    write: "updateInvoice (status filter)",
    look: async (r) => ids(await r.listInvoices(TEST, { status: "PAID" }, { limit: 10 })),
    change: (tx) => tx.updateInvoice(paid),
    after: ["inv_1"],
  },
  {
    read: "listInvoices",
    write: "insertInvoice",
    look: async (r) => ids(await r.listInvoices(TEST, {}, { limit: 10 })),
    change: (tx) => tx.insertInvoice(hostedInvoice({ id: "inv_2", createdAt: T0 + 1 })),
    after: ["inv_2", "inv_1"],
  },
  {
    read: "listExpiringInvoices",
    write: "updateInvoice",
    look: async (r) => ids(await r.listExpiringInvoices("test", T0 * 2, 10)),
    change: (tx) => tx.updateInvoice(paid),
    after: [],
  },
];

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

/** InvoiceStore: scoped and unscoped reads, newest-first pages with filters, the expiry list, copies, locks. */
export function invoiceTests(ctx: SuiteContext): void {
  describe("InvoiceStore: invoices", () => {
    it("returns null, empty lists or 0n for anything never stored", async () => {
      const storage = ctx.storage();
      expect(await storage.getInvoice(TEST, "inv_x")).toBeNull();
      expect(await storage.findInvoice("inv_x")).toBeNull();
      expect(await storage.listExpiringInvoices("test", T0 * 2, 10)).toEqual([]);
      expect(await storage.listInvoices(TEST, {}, { limit: 10 })).toEqual([]);
      await storage.transaction(async (tx) => {
        expect(await tx.lockInvoice("inv_x")).toBeNull();
      });
    });

    it("answers another merchant's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getInvoice(OTHER, "inv_1")).toBeNull();
      expect(await storage.listInvoices(OTHER, {}, { limit: 10 })).toEqual([]);
    });

    it("answers the other mode's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getInvoice(LIVE, "inv_1")).toBeNull();
      expect(await storage.listInvoices(LIVE, {}, { limit: 10 })).toEqual([]);
      expect(await storage.listExpiringInvoices("live", T0 * 2, 10)).toEqual([]);
    });

    it("lets lockInvoice and findInvoice reach an invoice whatever its merchant", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect((await storage.findInvoice("inv_1"))?.merchantId).toBe("m_1");
      await storage.transaction(async (tx) => {
        expect((await tx.lockInvoice("inv_1"))?.merchantId).toBe("m_1");
      });
    });

    it("returns records as they were stored, bigints, nulls and nested data included", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getInvoice(TEST, "inv_1")).toEqual(invoice());
    });

    it("keeps amounts exact far beyond 2^53 and 2^64, and every optional field either way", async () => {
      const storage = ctx.storage();
      const huge = 10n ** 40n + 7n; // 134 bits: no double or int64 survives this
      const hosted = hostedInvoice({
        id: "inv_h",
        amount: huge,
        receivedAmount: huge - 1n,
        returnUrl: "https://shop.example/r",
        failureReason: "underpaid",
        late: true,
      });
      const full = invoice({
        id: "inv_f",
        rate: huge,
        rateAt: T0 - 61_234,
        rateSources: ["coinbase", "kraken", "bitstamp"],
        payAmount: 2n ** 64n + 1n,
        settleCurrency: "USDT",
        paymentLinkId: "pl_1",
        txHash: "0xabc",
        underPaidCoverTenths: 500,
      });
      // A rate of a pair with itself consults no source: an empty list, which is not null.
      const unsourced = invoice({ id: "inv_u", rateAt: T0, rateSources: [] });
      await storage.transaction(async (tx) => {
        await tx.insertInvoice(hosted);
        await tx.insertInvoice(full);
        await tx.insertInvoice(unsourced);
      });
      expect(await storage.getInvoice(TEST, "inv_h")).toEqual(hosted);
      expect(await storage.getInvoice(TEST, "inv_f")).toEqual(full);
      expect(await storage.getInvoice(TEST, "inv_u")).toEqual(unsourced);
      const rateOf = (record: InvoiceRecord | null) => ({ rateAt: record?.rateAt, rateSources: record?.rateSources });
      expect(rateOf(await storage.getInvoice(TEST, "inv_h"))).toEqual({ rateAt: null, rateSources: null });
      expect(rateOf(await storage.getInvoice(TEST, "inv_f"))).toEqual({ rateAt: T0 - 61_234, rateSources: ["coinbase", "kraken", "bitstamp"] });
      expect(rateOf(await storage.getInvoice(TEST, "inv_u"))).toEqual({ rateAt: T0, rateSources: [] });
    });

    it("stores a copy: mutating the record passed in changes nothing stored", async () => {
      const storage = ctx.storage();
      const inv = invoice();
      await storage.transaction((tx) => tx.insertInvoice(inv));
      inv.status = "PAID";
      inv.acceptedCoins?.push("ETH");
      inv.rateSources?.push("bitstamp");
      (inv.metadata!.nested as { tags: string[] }).tags.push("b");
      expect(await storage.getInvoice(TEST, "inv_1")).toEqual(invoice());
    });

    it("returns a copy: mutating a record read back changes nothing stored", async () => {
      const storage = ctx.storage();
      await seed(storage);
      const read = await storage.getInvoice(TEST, "inv_1");
      read?.acceptedCoins?.push("ETH");
      read?.rateSources?.push("bitstamp");
      (read!.metadata!.nested as { tags: string[] }).tags.push("b");
      const [expiring] = await storage.listExpiringInvoices("test", T0 * 2, 1);
      if (expiring) expiring.status = "EXPIRED";
      const [listed] = await storage.listInvoices(TEST, {}, { limit: 1 });
      if (listed) listed.amount = 1n;
      await storage.transaction(async (tx) => {
        const locked = await tx.lockInvoice("inv_1");
        if (locked) locked.receivedAmount = 1n;
        locked?.rateSources?.push("bitstamp");
      });
      expect(await storage.getInvoice(TEST, "inv_1")).toEqual(invoice());
    });

    uniqueTests(ctx, [["invoice id", (tx) => tx.insertInvoice(invoice({ merchantId: "m_2" }))]]);

    missingUpdateTests(ctx, [["invoice", (tx) => tx.updateInvoice(invoice())]]);

    it("replaces a record on update and keeps every lookup pointing at it", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction((tx) => tx.updateInvoice(invoice({ status: "CONFIRMING", updatedAt: T0 + 1, metadata: null })));
      expect(await storage.getInvoice(TEST, "inv_1")).toEqual(invoice({ status: "CONFIRMING", updatedAt: T0 + 1, metadata: null }));
      expect((await storage.listInvoices(TEST, { status: "CONFIRMING" }, { limit: 10 })).map((i) => i.id)).toEqual(["inv_1"]);
      expect(await storage.listInvoices(TEST, { status: "PENDING" }, { limit: 10 })).toEqual([]);
    });

    it("lists invoices that the clock moves: PENDING or UNDER_PAID, due, oldest expiresAt first, at most limit", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertInvoice(invoice({ id: "late", expiresAt: T0 + 20 }));
        await tx.insertInvoice(invoice({ id: "early", expiresAt: T0 + 10, status: "UNDER_PAID" }));
        await tx.insertInvoice(invoice({ id: "future", expiresAt: T0 + 99 }));
        await tx.insertInvoice(invoice({ id: "paid", expiresAt: T0, status: "PAID" }));
        await tx.insertInvoice(invoice({ id: "confirming", expiresAt: T0, status: "CONFIRMING" }));
        await tx.insertInvoice(invoice({ id: "expired", expiresAt: T0, status: "EXPIRED" }));
        await tx.insertInvoice(invoice({ id: "live", mode: "live", expiresAt: T0 }));
      });
      const due = async (limit: number) => (await storage.listExpiringInvoices("test", T0 + 30, limit)).map((i) => i.id);
      expect(await due(10)).toEqual(["early", "late"]);
      expect(await due(1)).toEqual(["early"]);
      expect(await due(0)).toEqual([]);
      expect((await storage.listExpiringInvoices("test", T0 + 20, 10)).map((i) => i.id)).toEqual(["early", "late"]);
      expect((await storage.listExpiringInvoices("test", T0 + 19, 10)).map((i) => i.id)).toEqual(["early"]);
    });

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
      const filtered = async (filter: Parameters<Storage["listInvoices"]>[1], after?: string) =>
        (await storage.listInvoices(TEST, filter, { limit: 10, after: after ?? null })).map((i) => i.id);
      expect(await filtered({ status: "PENDING" })).toEqual(["inv_e", "inv_c", "inv_b"]);
      expect(await filtered({ network: "bitcoin" })).toEqual(["inv_e", "inv_b", "inv_a"]);
      expect(await filtered({ status: "PENDING", network: "bitcoin" })).toEqual(["inv_e", "inv_b"]);
      expect(await filtered({ createdFrom: T0 + 2 })).toEqual(["inv_e", "inv_d", "inv_c", "inv_b"]);
      expect(await filtered({ createdTo: T0 + 3 })).toEqual(["inv_c", "inv_b", "inv_a"]);
      expect(await filtered({ createdFrom: T0 + 2, createdTo: T0 + 3 })).toEqual(["inv_c", "inv_b"]);
      expect(await filtered({ status: "FAILED" })).toEqual([]);
      // The cursor need not match the filters: it only marks a place in the order.
      expect(await filtered({ status: "PENDING" }, "inv_d")).toEqual(["inv_c", "inv_b"]);
      expect(await filtered({ status: "PENDING", network: "tron", createdFrom: T0 + 2, createdTo: T0 + 3 })).toEqual(["inv_c"]);
    });

    it("finds invoices by metadata.orderId (a string, exactly) and by a deposit's transaction hash, in scope only", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertInvoice(invoice({ id: "inv_a", createdAt: T0 + 1, metadata: { orderId: "A-1" } }));
        await tx.insertInvoice(invoice({ id: "inv_b", createdAt: T0 + 2, metadata: { orderId: "A-1", note: "again" } }));
        await tx.insertInvoice(invoice({ id: "inv_c", createdAt: T0 + 3, metadata: { orderId: 1 } }));
        await tx.insertInvoice(invoice({ id: "inv_d", createdAt: T0 + 4, metadata: { orderId: "a-1" } }));
        await tx.insertInvoice(invoice({ id: "inv_e", createdAt: T0 + 5, metadata: null }));
        await tx.insertInvoice(invoice({ id: "inv_other", merchantId: "m_2", createdAt: T0 + 2, metadata: { orderId: "A-1" } }));
        await tx.insertInvoice(invoice({ id: "inv_live", mode: "live", createdAt: T0 + 2, metadata: { orderId: "A-1" } }));
        await tx.insertDeposit(deposit({ id: "dep_a", invoiceId: "inv_a", txHash: "0xabc", outputIndex: 0 }));
        await tx.insertDeposit(deposit({ id: "dep_e", invoiceId: "inv_e", txHash: "0xabc", outputIndex: 1 }));
        await tx.insertDeposit(deposit({ id: "dep_c", invoiceId: "inv_c", txHash: "0xdef", outputIndex: 0 }));
        await tx.insertDeposit(deposit({ id: "dep_other", merchantId: "m_2", invoiceId: "inv_other", txHash: "0xfff", outputIndex: 0 }));
      });
      const found = async (filter: Parameters<Storage["listInvoices"]>[1], scope = TEST) =>
        (await storage.listInvoices(scope, filter, { limit: 10 })).map((i) => i.id);
      expect(await found({ orderId: "A-1" })).toEqual(["inv_b", "inv_a"]);
      expect(await found({ orderId: "1" })).toEqual([]);
      expect(await found({ orderId: "A-1" }, LIVE)).toEqual(["inv_live"]);
      expect(await found({ txHash: "0xabc" })).toEqual(["inv_e", "inv_a"]);
      expect(await found({ txHash: "0xABC" })).toEqual([]);
      expect(await found({ txHash: "0xfff" })).toEqual([]);
      expect(await found({ txHash: "0xfff" }, OTHER)).toEqual(["inv_other"]);
      expect(await found({ orderId: "A-1", txHash: "0xabc" })).toEqual(["inv_a"]);
      expect((await storage.listInvoices(TEST, { orderId: "A-1" }, { limit: 1, after: "inv_b" })).map((i) => i.id)).toEqual(["inv_a"]);
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

    lockTests(ctx, [
      [
        "lockInvoice",
        (tx) => tx.lockInvoice("inv_1"),
        (tx) => tx.updateInvoice(invoice({ status: "PAID" })),
        async (tx) => (await tx.lockInvoice("inv_1"))?.status,
      ],
    ]);

    freshnessTests(ctx, FRESHNESS);

    it("a payment seen PENDING, then paid in a transaction, is PAID by id and in the list alike", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect((await storage.getInvoice(TEST, "inv_1"))?.status).toBe("PENDING");
      expect(ids(await storage.listInvoices(TEST, { status: "PENDING" }, { limit: 10 }))).toEqual(["inv_1"]);
      await storage.transaction(async (tx) => {
        const locked = await tx.lockInvoice("inv_1");
        await tx.updateInvoice({ ...locked!, status: "PAID", updatedAt: T0 + 1 });
      });
      expect((await storage.getInvoice(TEST, "inv_1"))?.status).toBe("PAID");
      expect(ids(await storage.listInvoices(TEST, { status: "PAID" }, { limit: 10 }))).toEqual(["inv_1"]);
      expect(ids(await storage.listInvoices(TEST, { status: "PENDING" }, { limit: 10 }))).toEqual([]);
    });
  });
}
