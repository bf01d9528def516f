import { describe, expect, it } from "vitest";
import type { AddressRecord, InvoiceRecord } from "../../core/ports/records";
import type { SuiteContext } from "./context";
import {
  LEASE,
  address,
  apiKey,
  attempt,
  delivery,
  deposit,
  endpoint,
  event,
  exchange,
  hostedInvoice,
  idempotency,
  invoice,
  LIVE,
  merchant,
  OTHER,
  paymentLink,
  payout,
  seed,
  T0,
  TEST,
} from "./fixtures";

/** Address records in address order: findAddresses promises none. */
const byAddress = (records: AddressRecord[]): AddressRecord[] => [...records].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));

/** Not-found answers, isolation by merchant and mode, faithful round trips, copies. */
export function readTests(ctx: SuiteContext): void {
  describe("reads", () => {
    it("returns null, empty lists or 0n for anything never stored", async () => {
      const storage = ctx.storage();
      expect(await storage.getMerchant("m_x")).toBeNull();
      expect(await storage.findApiKeyByHash("nope")).toBeNull();
      expect(await storage.listApiKeys("m_x")).toEqual([]);
      expect(await storage.getInvoice(TEST, "inv_x")).toBeNull();
      expect(await storage.getPayout(TEST, "po_x")).toBeNull();
      expect(await storage.getExchange(TEST, "ex_x")).toBeNull();
      expect(await storage.findAddress("test", "bitcoin", "bc1qnone")).toBeNull();
      expect(await storage.findAddresses("test", "bitcoin", ["bc1qnone"])).toEqual([]);
      expect(await storage.listDepositsForInvoice("inv_x")).toEqual([]);
      expect(await storage.getBalance(TEST, "BTC")).toBe(0n);
      expect(await storage.listBalances(TEST)).toEqual([]);
      expect(await storage.listLedgerEntries(TEST)).toEqual([]);
      expect(await storage.listEvents(TEST)).toEqual([]);
      expect(await storage.listExpiringInvoices("test", T0 * 2, 10)).toEqual([]);
      expect(await storage.listPayoutsByStatus("test", "PROCESSING", 10)).toEqual([]);
      expect(await storage.getCursor("bitcoin")).toBeNull();
      expect(await storage.listInvoices(TEST, {}, { limit: 10 })).toEqual([]);
      expect(await storage.listPayouts(TEST, { kind: "payout" }, { limit: 10 })).toEqual([]);
      expect(await storage.listPayouts(TEST, { kind: "refund" }, { limit: 10 })).toEqual([]);
      expect(await storage.listExchanges(TEST, { limit: 10 })).toEqual([]);
      expect(await storage.listRefunds("inv_x")).toEqual([]);
      expect(await storage.sumPendingDeposits(TEST)).toEqual([]);
      expect(await storage.getPaymentLink(TEST, "pl_x")).toBeNull();
      expect(await storage.findPaymentLink("pl_x")).toBeNull();
      expect(await storage.findInvoice("inv_x")).toBeNull();
      expect(await storage.listPaymentLinks(TEST, { limit: 10 })).toEqual([]);
      expect(await storage.getWebhookEndpoint(TEST, "we_x")).toBeNull();
      expect(await storage.listWebhookEndpoints(TEST)).toEqual([]);
      expect(await storage.getWebhookDelivery(TEST, "msg_x")).toBeNull();
      expect(await storage.listWebhookDeliveries(TEST, {}, { limit: 10 })).toEqual([]);
      expect(await storage.listWebhookAttempts("msg_x")).toEqual([]);
      await storage.transaction(async (tx) => {
        expect(await tx.lockInvoice("inv_x")).toBeNull();
        expect(await tx.lockPayout("po_x")).toBeNull();
        expect(await tx.lockDeposit("test", "bitcoin", "tx_x", 0)).toBeNull();
        expect(await tx.lockPaymentLink("pl_x")).toBeNull();
        expect(await tx.lockWebhookEndpoint("we_x")).toBeNull();
        expect(await tx.lockWebhookDelivery("msg_x")).toBeNull();
        expect(await tx.lockCursor("bitcoin")).toBeNull();
        expect(await tx.revokeApiKey("key_x", T0)).toBe(false);
        expect(await tx.deleteWebhookEndpoint("we_x")).toBe(false);
        expect(await tx.failPendingWebhookDeliveries("we_x", "gone", T0)).toBe(0);
        expect(await tx.claimWebhookDeliveries(T0 * 2, 10, 1000, 10)).toEqual([]);
        expect(await tx.deleteExpiredIdempotencyKeys(T0 * 2, 10)).toBe(0);
      });
    });

    it("answers another merchant's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getInvoice(OTHER, "inv_1")).toBeNull();
      expect(await storage.getPayout(OTHER, "po_1")).toBeNull();
      expect(await storage.getExchange(OTHER, "ex_1")).toBeNull();
      expect(await storage.getPaymentLink(OTHER, "pl_1")).toBeNull();
      expect(await storage.getWebhookEndpoint(OTHER, "we_1")).toBeNull();
      expect(await storage.getWebhookDelivery(OTHER, "msg_1")).toBeNull();
      expect(await storage.getBalance(OTHER, "BTC")).toBe(0n);
      expect(await storage.listBalances(OTHER)).toEqual([]);
      expect(await storage.listLedgerEntries(OTHER)).toEqual([]);
      expect(await storage.listEvents(OTHER)).toEqual([]);
      expect(await storage.listInvoices(OTHER, {}, { limit: 10 })).toEqual([]);
      expect(await storage.listPayouts(OTHER, { kind: "payout" }, { limit: 10 })).toEqual([]);
      expect(await storage.listExchanges(OTHER, { limit: 10 })).toEqual([]);
      expect(await storage.sumPendingDeposits(OTHER)).toEqual([]);
      expect(await storage.listPaymentLinks(OTHER, { limit: 10 })).toEqual([]);
      expect(await storage.listWebhookEndpoints(OTHER)).toEqual([]);
      expect(await storage.listWebhookDeliveries(OTHER, {}, { limit: 10 })).toEqual([]);
      expect(await storage.listApiKeys("m_2")).toEqual([]);
    });

    it("answers the other mode's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getInvoice(LIVE, "inv_1")).toBeNull();
      expect(await storage.getPayout(LIVE, "po_1")).toBeNull();
      expect(await storage.getExchange(LIVE, "ex_1")).toBeNull();
      expect(await storage.getPaymentLink(LIVE, "pl_1")).toBeNull();
      expect(await storage.getWebhookEndpoint(LIVE, "we_1")).toBeNull();
      expect(await storage.getWebhookDelivery(LIVE, "msg_1")).toBeNull();
      expect(await storage.getBalance(LIVE, "BTC")).toBe(0n);
      expect(await storage.listLedgerEntries(LIVE)).toEqual([]);
      expect(await storage.listEvents(LIVE)).toEqual([]);
      expect(await storage.listInvoices(LIVE, {}, { limit: 10 })).toEqual([]);
      expect(await storage.listPayouts(LIVE, { kind: "payout" }, { limit: 10 })).toEqual([]);
      expect(await storage.listExchanges(LIVE, { limit: 10 })).toEqual([]);
      expect(await storage.sumPendingDeposits(LIVE)).toEqual([]);
      expect(await storage.listPaymentLinks(LIVE, { limit: 10 })).toEqual([]);
      expect(await storage.listWebhookEndpoints(LIVE)).toEqual([]);
      expect(await storage.listWebhookDeliveries(LIVE, {}, { limit: 10 })).toEqual([]);
      expect(await storage.findAddress("live", "bitcoin", "bc1qexample")).toBeNull();
      expect(await storage.findAddresses("live", "bitcoin", ["bc1qexample"])).toEqual([]);
      expect(await storage.listExpiringInvoices("live", T0 * 2, 10)).toEqual([]);
      expect(await storage.listPayoutsByStatus("live", "PROCESSING", 10)).toEqual([]);
      await storage.transaction(async (tx) => {
        expect(await tx.lockDeposit("live", "bitcoin", "tx_1", 0)).toBeNull();
        // An idempotency key belongs to (merchant, mode): the same key is free elsewhere.
        expect(await tx.claimIdempotencyKey(idempotency({ mode: "live" }), LEASE)).toBeNull();
        expect(await tx.claimIdempotencyKey(idempotency({ merchantId: "m_2" }), LEASE)).toBeNull();
      });
    });

    it("lets lock*, findInvoice and findPaymentLink reach a record whatever its merchant", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect((await storage.findPaymentLink("pl_1"))?.merchantId).toBe("m_1");
      expect((await storage.findInvoice("inv_1"))?.merchantId).toBe("m_1");
      await storage.transaction(async (tx) => {
        expect((await tx.lockInvoice("inv_1"))?.merchantId).toBe("m_1");
        expect((await tx.lockPayout("po_1"))?.id).toBe("po_1");
        expect((await tx.lockDeposit("test", "bitcoin", "tx_1", 0))?.id).toBe("dep_1");
        expect((await tx.lockPaymentLink("pl_1"))?.id).toBe("pl_1");
        expect((await tx.lockWebhookEndpoint("we_1"))?.id).toBe("we_1");
        expect((await tx.lockWebhookDelivery("msg_1"))?.id).toBe("msg_1");
      });
    });

    it("returns records as they were stored, bigints, nulls and nested data included", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getMerchant("m_1")).toEqual(merchant());
      expect(await storage.findApiKeyByHash("hash_1")).toEqual({ key: apiKey(), merchant: merchant() });
      expect(await storage.getInvoice(TEST, "inv_1")).toEqual(invoice());
      expect(await storage.findAddress("test", "bitcoin", "bc1qexample")).toEqual(address());
      expect(await storage.findAddresses("test", "bitcoin", ["bc1qexample"])).toEqual([address()]);
      expect(await storage.listDepositsForInvoice("inv_1")).toEqual([deposit()]);
      expect(await storage.getPayout(TEST, "po_1")).toEqual(payout());
      expect(await storage.getExchange(TEST, "ex_1")).toEqual(exchange());
      expect(await storage.listEvents(TEST)).toEqual([event()]);
      expect(await storage.getPaymentLink(TEST, "pl_1")).toEqual(paymentLink());
      expect(await storage.getWebhookEndpoint(TEST, "we_1")).toEqual(endpoint());
      expect(await storage.getWebhookDelivery(TEST, "msg_1")).toEqual(delivery());
      expect(await storage.listWebhookAttempts("msg_1")).toEqual([attempt()]);
      expect(await storage.getCursor("bitcoin")).toBe("100");
      await storage.transaction(async (tx) => {
        expect(await tx.claimIdempotencyKey(idempotency({ requestHash: "other" }), LEASE)).toEqual(idempotency());
        expect(await tx.lockCursor("bitcoin")).toBe("100");
      });
    });

    it("finds, of the addresses given, exactly those issued in that mode on that network, each once", async () => {
      const storage = ctx.storage();
      await seed(storage);
      const second = address({ address: "bc1qsecond", invoiceId: "inv_2", createdAt: T0 + 1 });
      const live = address({ mode: "live", address: "bc1qlive", invoiceId: "inv_live" });
      const litecoin = address({ network: "litecoin", coin: "LTC", address: "ltc1qother", invoiceId: "inv_ltc" });
      const evm = address({ network: "ethereum", coin: "ETH", address: "0xAbCdEf0123456789aBcDeF0123456789AbCdEf01", invoiceId: "inv_eth" });
      await storage.transaction(async (tx) => {
        for (const record of [second, live, litecoin, evm]) await tx.insertAddress(record);
      });
      const asked = ["bc1qsecond", "bc1qnone", "bc1qexample", "bc1qsecond", "bc1qlive", "ltc1qother", "BC1QEXAMPLE", "bc1qexample"];
      expect(byAddress(await storage.findAddresses("test", "bitcoin", asked))).toEqual([address(), second]);
      expect(await storage.findAddresses("live", "bitcoin", asked)).toEqual([live]);
      expect(await storage.findAddresses("test", "litecoin", asked)).toEqual([litecoin]);
      // As exact as findAddress: another case is another address.
      expect(await storage.findAddresses("test", "ethereum", [evm.address, evm.address.toLowerCase(), evm.address.toUpperCase()])).toEqual([evm]);
      expect(await storage.findAddresses("test", "bitcoin", [])).toEqual([]);
      await storage.transaction(async (tx) => {
        const third = address({ address: "bc1qthird", invoiceId: "inv_3" });
        await tx.insertAddress(third);
        expect(byAddress(await tx.findAddresses("test", "bitcoin", ["bc1qthird", "bc1qexample", "bc1qnone"]))).toEqual([address(), third]);
        expect(await tx.findAddresses("test", "bitcoin", [])).toEqual([]);
      });
    });

    it("finds the issued ones among 2,000 addresses asked for at once", async () => {
      const storage = ctx.storage();
      const asked = Array.from({ length: 2_000 }, (_, i) => `bc1qbulk${String(i).padStart(4, "0")}`);
      const issued = asked.filter((_, i) => i % 10 === 3).map((value, i) => address({ address: value, invoiceId: `inv_${i}` }));
      await storage.transaction(async (tx) => {
        for (const record of issued) await tx.insertAddress(record);
      });
      expect(byAddress(await storage.findAddresses("test", "bitcoin", asked))).toEqual(issued);
      expect(await storage.findAddresses("live", "bitcoin", asked)).toEqual([]);
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
        await tx.insertDeposit(
          deposit({ amount: huge, fee: 2n ** 63n, creditedAt: T0 + 9, status: "CONFIRMED", confirmations: 120, countsTowardInvoice: false }),
        );
        await tx.insertPayout(payout({ amount: huge, refundOf: "inv_f", txHash: "0xdef", failureReason: "reverted", status: "FAILED" }));
        await tx.insertExchange(exchange({ amount: huge, toAmount: huge * 3n, invoiceId: "inv_f" }));
        await tx.insertPaymentLink(paymentLink({ amount: huge, acceptedCoins: null, metadata: null, returnUrl: null, settleCurrency: null, active: false }));
        await tx.insertWebhookEndpoint(endpoint({ events: null, status: "disabled", disabledReason: "the endpoint answered 410 Gone" }));
        await tx.insertWebhookDeliveries([
          delivery({ status: "failed", nextAttemptAt: null, leaseUntil: T0 + 5, lastStatusCode: 410, lastError: "gone", attempts: 3 }),
        ]);
        await tx.insertWebhookAttempt(attempt({ statusCode: null, error: "timeout" }));
        await tx.insertApiKey(apiKey({ revokedAt: T0 + 1 }));
        await tx.insertMerchant(merchant({ settleCurrency: "USDT" }));
        await tx.postLedgerEntries([
          { id: "le_h", merchantId: "m_1", mode: "test", asset: "BTC", amount: huge, kind: "deposit", causeKey: "huge", createdAt: T0 },
        ]);
      });
      expect(await storage.getInvoice(TEST, "inv_h")).toEqual(hosted);
      expect(await storage.getInvoice(TEST, "inv_f")).toEqual(full);
      expect(await storage.getInvoice(TEST, "inv_u")).toEqual(unsourced);
      const rateOf = (record: InvoiceRecord | null) => ({ rateAt: record?.rateAt, rateSources: record?.rateSources });
      expect(rateOf(await storage.getInvoice(TEST, "inv_h"))).toEqual({ rateAt: null, rateSources: null });
      expect(rateOf(await storage.getInvoice(TEST, "inv_f"))).toEqual({ rateAt: T0 - 61_234, rateSources: ["coinbase", "kraken", "bitstamp"] });
      expect(rateOf(await storage.getInvoice(TEST, "inv_u"))).toEqual({ rateAt: T0, rateSources: [] });
      expect((await storage.listDepositsForInvoice("inv_1"))[0]?.amount).toBe(huge);
      expect((await storage.getPayout(TEST, "po_1"))?.amount).toBe(huge);
      expect(await storage.getPayout(TEST, "po_1")).toEqual(
        payout({ amount: huge, refundOf: "inv_f", txHash: "0xdef", failureReason: "reverted", status: "FAILED" }),
      );
      expect((await storage.getExchange(TEST, "ex_1"))?.toAmount).toBe(huge * 3n);
      expect((await storage.findPaymentLink("pl_1"))?.amount).toBe(huge);
      expect((await storage.findPaymentLink("pl_1"))?.acceptedCoins).toBeNull();
      expect(await storage.getWebhookEndpoint(TEST, "we_1")).toEqual(
        endpoint({ events: null, status: "disabled", disabledReason: "the endpoint answered 410 Gone" }),
      );
      expect((await storage.getWebhookDelivery(TEST, "msg_1"))?.leaseUntil).toBe(T0 + 5);
      expect((await storage.listWebhookAttempts("msg_1"))[0]?.statusCode).toBeNull();
      expect(await storage.getBalance(TEST, "BTC")).toBe(huge);
      expect((await storage.listLedgerEntries(TEST))[0]?.amount).toBe(huge);
      expect((await storage.getMerchant("m_1"))?.settleCurrency).toBe("USDT");
      expect((await storage.findApiKeyByHash("hash_1"))?.key.revokedAt).toBe(T0 + 1);
    });
  });

  describe("copies", () => {
    it("stores a copy: mutating the record passed in changes nothing stored", async () => {
      const storage = ctx.storage();
      const inv = invoice();
      const evt = event();
      const dep = deposit();
      const link = paymentLink();
      const hook = endpoint();
      await storage.transaction(async (tx) => {
        await tx.insertInvoice(inv);
        await tx.appendEvents([evt]);
        await tx.insertDeposit(dep);
        await tx.insertPaymentLink(link);
        await tx.insertWebhookEndpoint(hook);
      });
      inv.status = "PAID";
      inv.acceptedCoins?.push("ETH");
      inv.rateSources?.push("bitstamp");
      (inv.metadata!.nested as { tags: string[] }).tags.push("b");
      (evt.data.metadata as Record<string, unknown>).orderId = "changed";
      dep.amount = 0n;
      link.acceptedCoins?.push("ETH");
      hook.secrets[0]!.expiresAt = 1;
      hook.events?.push("payment.created");
      expect(await storage.getInvoice(TEST, "inv_1")).toEqual(invoice());
      expect(await storage.listEvents(TEST)).toEqual([event()]);
      expect(await storage.listDepositsForInvoice("inv_1")).toEqual([deposit()]);
      expect(await storage.findPaymentLink("pl_1")).toEqual(paymentLink());
      expect(await storage.getWebhookEndpoint(TEST, "we_1")).toEqual(endpoint());
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
      const [evt] = await storage.listEvents(TEST);
      if (evt) evt.data.id = "changed";
      const po = await storage.getPayout(TEST, "po_1");
      if (po) po.amount = 0n;
      const hook = await storage.getWebhookEndpoint(TEST, "we_1");
      hook?.secrets.push({ secret: "whsec_x", createdAt: 0, expiresAt: null });
      const link = await storage.findPaymentLink("pl_1");
      if (link?.metadata) link.metadata.sku = "changed";
      await storage.transaction(async (tx) => {
        const locked = await tx.lockInvoice("inv_1");
        if (locked) locked.receivedAmount = 1n;
        locked?.rateSources?.push("bitstamp");
      });
      expect(await storage.getInvoice(TEST, "inv_1")).toEqual(invoice());
      expect(await storage.listEvents(TEST)).toEqual([event()]);
      expect(await storage.getPayout(TEST, "po_1")).toEqual(payout());
      expect(await storage.getWebhookEndpoint(TEST, "we_1")).toEqual(endpoint());
      expect(await storage.findPaymentLink("pl_1")).toEqual(paymentLink());
    });
  });
}
