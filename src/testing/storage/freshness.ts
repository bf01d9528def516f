import { describe, expect, it } from "vitest";
import type { StorageReads } from "../../core/ports/storage/index";
import type { SuiteContext } from "./context";
import {
  address,
  apiKey,
  attempt,
  delivery,
  deposit,
  endpoint,
  entry,
  event,
  exchange,
  hostedInvoice,
  ids,
  invoice,
  merchant,
  paymentLink,
  payout,
  seed,
  T0,
  TEST,
  type Tx,
} from "./fixtures";

/** One read of the contract and a committed write that changes its answer. */
interface FreshnessCase {
  /** The read, as the test title names it. */
  read: string;
  /** The write, as the test title names it. */
  write: string;
  /** Reads the answer (reduced to what the write changes, where the rest is checked elsewhere). */
  look: (reads: StorageReads) => Promise<unknown>;
  /** The write, committed in a transaction of its own. */
  change: (tx: Tx) => Promise<unknown>;
  /** The answer once the write committed. */
  after: unknown;
}

const paid = invoice({ status: "PAID", receivedAmount: 15_385n, txHash: "tx_1", updatedAt: T0 + 1 });
const confirmed = deposit({ status: "CONFIRMED", confirmations: 6, creditedAt: T0 + 1, updatedAt: T0 + 1 });
const completed = payout({ status: "COMPLETED", txHash: "0xpaid", updatedAt: T0 + 1 });
const deactivated = paymentLink({ active: false, updatedAt: T0 + 1 });
const disabled = endpoint({ status: "disabled", disabledReason: "the endpoint answered 410 Gone", updatedAt: T0 + 1 });
const settled = delivery({ status: "succeeded", attempts: 1, nextAttemptAt: null, lastStatusCode: 200, updatedAt: T0 + 1 });
const renamed = merchant({ name: "Renamed shop", settleCurrency: "USDT" });

// Every read of the contract that a committed write can change, each with such a write. The
// answers "not found" are in the list too: a cache of misses is as stale as a cache of hits.
const CASES: FreshnessCase[] = [
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
  {
    read: "findAddress",
    write: "insertAddress of an address read as missing",
    look: (r) => r.findAddress("test", "bitcoin", "bc1qnew"),
    change: (tx) => tx.insertAddress(address({ address: "bc1qnew", invoiceId: "inv_2" })),
    after: address({ address: "bc1qnew", invoiceId: "inv_2" }),
  },
  {
    read: "findAddresses",
    write: "insertAddress",
    look: async (r) => (await r.findAddresses("test", "bitcoin", ["bc1qnew"])).map((record) => record.address),
    change: (tx) => tx.insertAddress(address({ address: "bc1qnew", invoiceId: "inv_2" })),
    after: ["bc1qnew"],
  },
  {
    read: "listDepositsForInvoice",
    write: "updateDeposit",
    look: (r) => r.listDepositsForInvoice("inv_1"),
    change: (tx) => tx.updateDeposit(confirmed),
    after: [confirmed],
  },
  { read: "sumPendingDeposits", write: "updateDeposit", look: (r) => r.sumPendingDeposits(TEST), change: (tx) => tx.updateDeposit(confirmed), after: [] },
  {
    read: "getBalance",
    write: "postLedgerEntries",
    look: (r) => r.getBalance(TEST, "BTC"),
    change: (tx) => tx.postLedgerEntries([entry({ id: "le_2", amount: 5n, causeKey: "deposit:dep_2", createdAt: T0 + 1 })]),
    after: 105n,
  },
  {
    read: "listBalances",
    write: "postLedgerEntries",
    look: async (r) => (await r.listBalances(TEST)).map((balance) => [balance.asset, balance.amount]),
    change: (tx) => tx.postLedgerEntries([entry({ id: "le_2", amount: -30n, kind: "payout", causeKey: "payout:po_2", createdAt: T0 + 1 })]),
    after: [["BTC", 70n]],
  },
  {
    read: "listLedgerEntries",
    write: "postLedgerEntries",
    look: async (r) => ids(await r.listLedgerEntries(TEST)),
    change: (tx) => tx.postLedgerEntries([entry({ id: "le_2", amount: 5n, causeKey: "deposit:dep_2", createdAt: T0 + 1 })]),
    after: ["le_1", "le_2"],
  },
  {
    read: "listEvents",
    write: "appendEvents",
    look: async (r) => ids(await r.listEvents(TEST)),
    change: (tx) => tx.appendEvents([event({ id: "evt_2", type: "payment.completed", createdAt: T0 + 1 })]),
    after: ["evt_1", "evt_2"],
  },
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
  {
    read: "getExchange",
    write: "insertExchange of an id read as missing",
    look: (r) => r.getExchange(TEST, "ex_2"),
    change: (tx) => tx.insertExchange(exchange({ id: "ex_2", createdAt: T0 + 1 })),
    after: exchange({ id: "ex_2", createdAt: T0 + 1 }),
  },
  {
    read: "listExchanges",
    write: "insertExchange",
    look: async (r) => ids(await r.listExchanges(TEST, { limit: 10 })),
    change: (tx) => tx.insertExchange(exchange({ id: "ex_2", createdAt: T0 + 1 })),
    after: ["ex_2", "ex_1"],
  },
  { read: "getCursor", write: "setCursor", look: (r) => r.getCursor("bitcoin"), change: (tx) => tx.setCursor("bitcoin", "200"), after: "200" },
  {
    read: "getPaymentLink",
    write: "updatePaymentLink",
    look: (r) => r.getPaymentLink(TEST, "pl_1"),
    change: (tx) => tx.updatePaymentLink(deactivated),
    after: deactivated,
  },
  {
    read: "findPaymentLink",
    write: "updatePaymentLink",
    look: (r) => r.findPaymentLink("pl_1"),
    change: (tx) => tx.updatePaymentLink(deactivated),
    after: deactivated,
  },
  {
    read: "listPaymentLinks",
    write: "updatePaymentLink",
    look: (r) => r.listPaymentLinks(TEST, { limit: 10 }),
    change: (tx) => tx.updatePaymentLink(deactivated),
    after: [deactivated],
  },
  {
    read: "getWebhookEndpoint",
    write: "updateWebhookEndpoint",
    look: (r) => r.getWebhookEndpoint(TEST, "we_1"),
    change: (tx) => tx.updateWebhookEndpoint(disabled),
    after: disabled,
  },
  {
    read: "getWebhookEndpoint",
    write: "deleteWebhookEndpoint",
    look: (r) => r.getWebhookEndpoint(TEST, "we_1"),
    change: (tx) => tx.deleteWebhookEndpoint("we_1"),
    after: null,
  },
  {
    read: "listWebhookEndpoints",
    write: "updateWebhookEndpoint",
    look: (r) => r.listWebhookEndpoints(TEST),
    change: (tx) => tx.updateWebhookEndpoint(disabled),
    after: [disabled],
  },
  {
    read: "listWebhookEndpoints",
    write: "insertWebhookEndpoint",
    look: async (r) => ids(await r.listWebhookEndpoints(TEST)),
    change: (tx) => tx.insertWebhookEndpoint(endpoint({ id: "we_2", url: "https://shop.example/other", createdAt: T0 + 1 })),
    after: ["we_1", "we_2"],
  },
  {
    read: "getWebhookDelivery",
    write: "updateWebhookDelivery",
    look: (r) => r.getWebhookDelivery(TEST, "msg_1"),
    change: (tx) => tx.updateWebhookDelivery(settled),
    after: settled,
  },
  {
    read: "listWebhookDeliveries",
    write: "updateWebhookDelivery",
    look: async (r) => (await r.listWebhookDeliveries(TEST, { status: "succeeded" }, { limit: 10 })).map((record) => record.id),
    change: (tx) => tx.updateWebhookDelivery(settled),
    after: ["msg_1"],
  },
  {
    read: "listWebhookAttempts",
    write: "insertWebhookAttempt",
    look: async (r) => ids(await r.listWebhookAttempts("msg_1")),
    change: (tx) => tx.insertWebhookAttempt(attempt({ id: "att_2", at: T0 + 1 })),
    after: ["att_1", "att_2"],
  },
];

/**
 * Reads see the latest commit: an adapter may cache, but a committed write must show in every
 * read that follows it, on the storage and in later transactions. Each test reads first (so a
 * cache holds the old answer, found or not found), commits a write, and reads again. A cache
 * that a write does not refresh would have the service answer invoice/fetch "PENDING" for a
 * payment its own list shows PAID.
 */
export function freshnessTests(ctx: SuiteContext): void {
  describe("reads see the latest commit", () => {
    it.each(CASES.map((c) => [`${c.read} after ${c.write}`, c] as const))("%s, read before the commit, answers as committed", async (_title, c) => {
      const storage = ctx.storage();
      await seed(storage);
      // Read twice: a cache that fills on the first read answers the second from itself.
      const before = await c.look(storage);
      expect(await c.look(storage)).toEqual(before);
      expect(before, "the write of this test must change the answer").not.toEqual(c.after);
      await storage.transaction(async (tx) => {
        await c.change(tx);
      });
      expect(await c.look(storage)).toEqual(c.after);
      expect(await storage.transaction((tx) => c.look(tx))).toEqual(c.after);
    });

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
