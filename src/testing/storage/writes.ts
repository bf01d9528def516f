import { describe, expect, it } from "vitest";
import type { SuiteContext } from "./context";
import {
  address,
  apiKey,
  delivery,
  deposit,
  endpoint,
  entry,
  event,
  exchange,
  invoice,
  merchant,
  paymentLink,
  payout,
  seed,
  snapshot,
  T0,
  TEST,
  type Tx,
} from "./fixtures";

/** Unique constraints, updates of missing records, and the orders the contract promises. */
export function writeTests(ctx: SuiteContext): void {
  describe("unique constraints and updates", () => {
    const duplicates: Array<[string, (tx: Tx) => Promise<unknown>]> = [
      ["merchant id", (tx) => tx.insertMerchant(merchant({ name: "Other" }))],
      ["API key id", (tx) => tx.insertApiKey(apiKey({ hash: "hash_other" }))],
      ["API key hash", (tx) => tx.insertApiKey(apiKey({ id: "key_other" }))],
      ["invoice id", (tx) => tx.insertInvoice(invoice({ merchantId: "m_2" }))],
      ["(mode, network, address)", (tx) => tx.insertAddress(address({ invoiceId: "inv_2" }))],
      ["deposit (mode, network, txHash, outputIndex)", (tx) => tx.insertDeposit(deposit({ id: "dep_other" }))],
      ["deposit id", (tx) => tx.insertDeposit(deposit({ txHash: "tx_other" }))],
      ["payout id", (tx) => tx.insertPayout(payout({ amount: 1n }))],
      ["exchange id", (tx) => tx.insertExchange(exchange({ amount: 1n }))],
      ["payment link id", (tx) => tx.insertPaymentLink(paymentLink({ amount: 1n }))],
      ["webhook endpoint id", (tx) => tx.insertWebhookEndpoint(endpoint({ url: "https://other.example/" }))],
      ["webhook delivery id", (tx) => tx.insertWebhookDeliveries([delivery({ id: "msg_new" }), delivery()])],
    ];

    it.each(duplicates)("refuses a second record with the same %s, and the transaction writes nothing", async (_name, insert) => {
      const storage = ctx.storage();
      await seed(storage);
      const before = await snapshot(storage);
      await expect(
        storage.transaction(async (tx) => {
          await tx.insertMerchant(merchant({ id: "m_2" }));
          await insert(tx);
        }),
      ).rejects.toThrow();
      expect(await snapshot(storage)).toEqual(before);
    });

    it("writes nothing of a unit of work that only inserts, when one insert clashes (an adapter may send them all at commit)", async () => {
      const storage = ctx.storage();
      await seed(storage);
      const before = await snapshot(storage);
      await expect(
        storage.transaction(async (tx) => {
          await tx.appendEvents([event({ id: "evt_new" })]);
          await tx.insertInvoice(invoice({ amount: 1n }));
          await tx.queueWebhookDeliveries([event({ id: "evt_new", type: "payment.completed" })], T0);
        }),
      ).rejects.toThrow();
      expect(await snapshot(storage)).toEqual(before);
    });

    it("accepts the same address or chain transfer on another network or in the other mode", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction(async (tx) => {
        await tx.insertAddress(address({ mode: "live" }));
        await tx.insertAddress(address({ network: "litecoin" }));
        await tx.insertDeposit(deposit({ id: "dep_2", mode: "live" }));
        await tx.insertDeposit(deposit({ id: "dep_3", outputIndex: 1 }));
        await tx.insertDeposit(deposit({ id: "dep_4", network: "litecoin" }));
      });
      expect((await storage.findAddress("live", "bitcoin", "bc1qexample"))?.mode).toBe("live");
      expect((await storage.findAddress("test", "litecoin", "bc1qexample"))?.network).toBe("litecoin");
      expect((await storage.listDepositsForInvoice("inv_1")).map((d) => d.id)).toEqual(["dep_1", "dep_2", "dep_3", "dep_4"]);
    });

    const missing: Array<[string, (tx: Tx) => Promise<unknown>]> = [
      ["merchant", (tx) => tx.updateMerchant(merchant())],
      ["invoice", (tx) => tx.updateInvoice(invoice())],
      ["deposit", (tx) => tx.updateDeposit(deposit())],
      ["payout", (tx) => tx.updatePayout(payout())],
      ["payment link", (tx) => tx.updatePaymentLink(paymentLink())],
      ["address", (tx) => tx.updateAddress(address({ address: "bc1qnever" }))],
      ["webhook endpoint", (tx) => tx.updateWebhookEndpoint(endpoint())],
      ["webhook delivery", (tx) => tx.updateWebhookDelivery(delivery())],
    ];

    it.each(missing)("refuses to update a %s that does not exist", async (_name, update) => {
      const storage = ctx.storage();
      await expect(storage.transaction(update)).rejects.toThrow();
    });

    it("replaces a record on update and keeps every lookup pointing at it", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction(async (tx) => {
        await tx.updateMerchant(merchant({ name: "Renamed", settleCurrency: "USDT" }));
        await tx.updateInvoice(invoice({ status: "CONFIRMING", updatedAt: T0 + 1, metadata: null }));
        await tx.updateDeposit(deposit({ confirmations: 3, status: "CONFIRMED" }));
        await tx.updatePayout(payout({ status: "COMPLETED", txHash: "tx_out" }));
        await tx.updatePaymentLink(paymentLink({ active: false, updatedAt: T0 + 2 }));
        await tx.updateAddress(address({ invoiceId: "inv_2", merchantId: "m_2", createdAt: T0 + 3 }));
      });
      expect(await storage.findAddress("test", "bitcoin", "bc1qexample")).toEqual(address({ invoiceId: "inv_2", merchantId: "m_2", createdAt: T0 + 3 }));
      expect(await storage.findAddresses("test", "bitcoin", ["bc1qexample"])).toEqual([address({ invoiceId: "inv_2", merchantId: "m_2", createdAt: T0 + 3 })]);
      expect(await storage.getMerchant("m_1")).toEqual(merchant({ name: "Renamed", settleCurrency: "USDT" }));
      expect(await storage.getInvoice(TEST, "inv_1")).toEqual(invoice({ status: "CONFIRMING", updatedAt: T0 + 1, metadata: null }));
      expect((await storage.listInvoices(TEST, { status: "CONFIRMING" }, { limit: 10 })).map((i) => i.id)).toEqual(["inv_1"]);
      expect(await storage.listInvoices(TEST, { status: "PENDING" }, { limit: 10 })).toEqual([]);
      expect((await storage.listDepositsForInvoice("inv_1"))[0]?.confirmations).toBe(3);
      expect(await storage.sumPendingDeposits(TEST)).toEqual([]);
      expect(await storage.listPayoutsByStatus("test", "COMPLETED", 10)).toEqual([payout({ status: "COMPLETED", txHash: "tx_out" })]);
      expect(await storage.listPayoutsByStatus("test", "PROCESSING", 10)).toEqual([]);
      expect((await storage.findPaymentLink("pl_1"))?.active).toBe(false);
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

    it("deletes a webhook endpoint but keeps its deliveries in the log", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.transaction((tx) => tx.deleteWebhookEndpoint("we_1"))).toBe(true);
      expect(await storage.transaction((tx) => tx.deleteWebhookEndpoint("we_1"))).toBe(false);
      expect(await storage.getWebhookEndpoint(TEST, "we_1")).toBeNull();
      expect(await storage.listWebhookEndpoints(TEST)).toEqual([]);
      expect((await storage.getWebhookDelivery(TEST, "msg_1"))?.endpointId).toBe("we_1");
      expect(await storage.listWebhookAttempts("msg_1")).toHaveLength(1);
    });
  });

  describe("ordering", () => {
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

    it("lists balances by asset symbol, and ledger entries and events oldest first", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.postLedgerEntries([entry({ id: "e1", causeKey: "c1", asset: "USDT", createdAt: T0 + 9 })]);
        await tx.postLedgerEntries([entry({ id: "e2", causeKey: "c2", asset: "BTC", createdAt: T0 + 1 })]);
        await tx.postLedgerEntries([entry({ id: "e3", causeKey: "c3", asset: "ETH", createdAt: T0 + 5 })]);
        await tx.postLedgerEntries([entry({ id: "e4", causeKey: "c4", asset: "BTC", createdAt: T0 + 3 })]);
        await tx.appendEvents([event({ id: "ev2", createdAt: T0 + 2 }), event({ id: "ev1", createdAt: T0 + 1, invoiceId: "inv_2" })]);
        await tx.appendEvents([event({ id: "ev3", createdAt: T0 + 3 })]);
      });
      expect((await storage.listBalances(TEST)).map((b) => [b.asset, b.amount])).toEqual([
        ["BTC", 200n],
        ["ETH", 100n],
        ["USDT", 100n],
      ]);
      // Stored order, not clock order: the ledger is append-only.
      expect((await storage.listLedgerEntries(TEST)).map((e) => e.id)).toEqual(["e1", "e2", "e3", "e4"]);
      expect((await storage.listLedgerEntries(TEST, "BTC")).map((e) => e.id)).toEqual(["e2", "e4"]);
      expect((await storage.listEvents(TEST)).map((e) => e.id)).toEqual(["ev2", "ev1", "ev3"]);
      expect((await storage.listEvents(TEST, { invoiceId: "inv_1" })).map((e) => e.id)).toEqual(["ev2", "ev3"]);
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
      const ids = async (limit: number) => (await storage.listExpiringInvoices("test", T0 + 30, limit)).map((i) => i.id);
      expect(await ids(10)).toEqual(["early", "late"]);
      expect(await ids(1)).toEqual(["early"]);
      expect(await ids(0)).toEqual([]);
      expect((await storage.listExpiringInvoices("test", T0 + 20, 10)).map((i) => i.id)).toEqual(["early", "late"]);
      expect((await storage.listExpiringInvoices("test", T0 + 19, 10)).map((i) => i.id)).toEqual(["early"]);
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
      const ids = async (limit: number, after?: string) => (await storage.listPayoutsByStatus("test", "PROCESSING", limit, after)).map((p) => p.id);
      expect(await ids(10)).toEqual(["p1", "p2a", "p2b", "p3"]);
      expect(await ids(2)).toEqual(["p1", "p2a"]);
      expect(await ids(2, "p2a")).toEqual(["p2b", "p3"]);
      expect(await ids(2, "p3")).toEqual([]);
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

    it("replaces a cursor when it is set again", async () => {
      const storage = ctx.storage();
      await storage.transaction((tx) => tx.setCursor("bitcoin", "1"));
      await storage.transaction((tx) => tx.setCursor("bitcoin", "2"));
      await storage.transaction((tx) => tx.setCursor("deposits:test:sandbox:abc", "x"));
      expect(await storage.getCursor("bitcoin")).toBe("2");
      expect(await storage.getCursor("deposits:test:sandbox:abc")).toBe("x");
    });
  });
}
