import { describe, expect, it } from "vitest";
import type { InvoiceRecord } from "../../core/invoices/records";
import { hasStoragePart, type StorageTransaction } from "../../core/ports/storage/index";
import type { SuiteContext } from "./context";
import {
  LEASE,
  address,
  apiKey,
  attempt,
  delivery,
  deposit,
  endpoint,
  entry,
  event,
  exchange,
  gate,
  idempotency,
  invoice,
  merchant,
  paymentLink,
  payout,
  seed,
  sleep,
  snapshot,
  T0,
  TEST,
} from "./fixtures";

/**
 * Storage.transaction, over every part at once: all of a unit of work commits or none of it, its
 * own writes are visible to it and to nobody else until the commit, and a failed one leaves the
 * storage serving.
 */
export function transactionTests(ctx: SuiteContext): void {
  describe("transaction: one unit of work over every part", () => {
    it("commits the writes and returns what the work returned", async () => {
      const storage = ctx.storage();
      const result = await storage.transaction(async (tx) => {
        await tx.insertMerchant(merchant());
        return "done";
      });
      expect(result).toBe("done");
      expect(await storage.getMerchant("m_1")).toEqual(merchant());
    });

    it("rolls back every write when the work throws, and rethrows that very error", async () => {
      const storage = ctx.storage();
      await seed(storage);
      const before = await snapshot(storage);
      const failure = new Error("boom");
      await expect(
        storage.transaction(async (tx) => {
          await tx.insertMerchant(merchant({ id: "m_2" }));
          await tx.updateMerchant(merchant({ name: "Renamed" }));
          await tx.insertApiKey(apiKey({ id: "key_2", hash: "hash_2" }));
          await tx.revokeApiKey("key_1", T0 + 1);
          await tx.insertInvoice(invoice({ id: "inv_2" }));
          await tx.updateInvoice(invoice({ status: "PAID", metadata: null }));
          await tx.insertAddress(address({ address: "bc1qother" }));
          await tx.insertDeposit(deposit({ id: "dep_2", txHash: "tx_2", invoiceId: "inv_2" }));
          await tx.updateDeposit(deposit({ confirmations: 9, status: "CONFIRMED", txHash: "tx_moved" }));
          expect(
            await tx.postLedgerEntries([entry({ id: "le_n", causeKey: "c_new", amount: 5n }), entry({ id: "le_e", causeKey: "c_eth", asset: "ETH" })]),
          ).toEqual({
            status: "posted",
          });
          await tx.insertPayout(payout({ id: "po_2" }));
          await tx.insertPayout(payout({ id: "rf_2", refundOf: "inv_1" }));
          await tx.updatePayout(payout({ status: "FAILED" }));
          await tx.insertExchange(exchange({ id: "ex_2" }));
          await tx.appendEvents([event({ id: "evt_2" })]);
          await tx.setCursor("bitcoin", "200");
          if (hasStoragePart(tx, "paymentLinks", true)) {
            await tx.insertPaymentLink(paymentLink({ id: "pl_2" }));
            await tx.updatePaymentLink(paymentLink({ active: false }));
          }
          await tx.insertWebhookEndpoint(endpoint({ id: "we_2" }));
          await tx.updateWebhookEndpoint(endpoint({ status: "disabled" }));
          await tx.insertWebhookDeliveries([delivery({ id: "msg_2", endpointId: "we_2" })]);
          await tx.updateWebhookDelivery(delivery({ status: "succeeded", nextAttemptAt: null }));
          await tx.insertWebhookAttempt(attempt({ id: "att_2" }));
          expect(await tx.completeIdempotencyKey(TEST, "idem_1", "lease_1", 200, "{}")).toBe(true);
          expect(await tx.claimIdempotencyKey(idempotency({ key: "idem_2" }), LEASE)).toBeNull();
          throw failure;
        }),
      ).rejects.toBe(failure);

      expect(await snapshot(storage)).toEqual(before);
      expect(await storage.getMerchant("m_2")).toBeNull();
      expect(await storage.findApiKeyByHash("hash_1")).toEqual({ key: apiKey(), merchant: merchant() });
      expect(await storage.getBalance(TEST, "BTC")).toBe(100n);
      expect(await storage.getBalance(TEST, "ETH")).toBe(0n);
      expect(await storage.getWebhookEndpoint(TEST, "we_2")).toBeNull();
      expect(await storage.getWebhookDelivery(TEST, "msg_2")).toBeNull();
      // Unique keys and cause keys were released too: the same writes succeed now.
      await storage.transaction(async (tx) => {
        await tx.insertApiKey(apiKey({ id: "key_2", hash: "hash_2" }));
        await tx.insertDeposit(deposit({ id: "dep_2", txHash: "tx_2" }));
        expect(await tx.lockDeposit("test", "bitcoin", "tx_1", 0)).toEqual(deposit());
        expect(await tx.lockDeposit("test", "bitcoin", "tx_moved", 0)).toBeNull();
        expect(await tx.postLedgerEntries([entry({ id: "le_n", causeKey: "c_new", amount: 5n })])).toEqual({ status: "posted" });
        expect(await tx.claimIdempotencyKey(idempotency({ key: "idem_2" }), LEASE)).toBeNull();
        expect(await tx.claimIdempotencyKey(idempotency({ requestHash: "x" }), LEASE)).toEqual(idempotency());
      });
      expect(await storage.getBalance(TEST, "BTC")).toBe(105n);
    });

    it("lets the work read its own uncommitted writes", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction(async (tx) => {
        await tx.updateInvoice(invoice({ status: "CONFIRMING" }));
        await tx.postLedgerEntries([entry({ id: "le_2", causeKey: "c2", amount: 7n })]);
        await tx.insertPayout(payout({ id: "po_2", createdAt: T0 + 1 }));
        expect((await tx.getInvoice(TEST, "inv_1"))?.status).toBe("CONFIRMING");
        expect((await tx.listInvoices(TEST, { status: "CONFIRMING" }, { limit: 5 })).map((i) => i.id)).toEqual(["inv_1"]);
        expect(await tx.getBalance(TEST, "BTC")).toBe(107n);
        expect((await tx.listPayouts(TEST, { kind: "payout" }, { limit: 5 })).map((p) => p.id)).toEqual(["po_2", "po_1"]);
      });
    });

    it("never shows a running transaction's writes to reads made outside it", async () => {
      const storage = ctx.storage();
      await seed(storage);
      const hold = gate();
      const written = gate();
      const running = storage.transaction(async (tx) => {
        await tx.updateInvoice(invoice({ status: "PAID" }));
        await tx.postLedgerEntries([entry({ id: "le_2", causeKey: "c2", amount: 7n })]);
        written.open();
        await hold.promise;
      });
      await written.promise;
      // An adapter may answer at once from committed data, or wait for the transaction to end:
      // an answer that came while the transaction was surely still open must show the old state.
      let released = false;
      const seen: Array<{ status: InvoiceRecord["status"] | undefined; balance: bigint; whileOpen: boolean }> = [];
      const reads = Promise.all([storage.getInvoice(TEST, "inv_1"), storage.getBalance(TEST, "BTC")]).then(([found, balance]) =>
        seen.push({ status: found?.status, balance, whileOpen: !released }),
      );
      await sleep(30);
      released = true;
      hold.open();
      await running;
      await reads;
      const [read] = seen;
      if (read?.whileOpen) expect([read.status, read.balance]).toEqual(["PENDING", 100n]);
      expect((await storage.getInvoice(TEST, "inv_1"))?.status).toBe("PAID");
    });

    it("never shows a rolled-back write, to reads made during or after the transaction", async () => {
      const storage = ctx.storage();
      await seed(storage);
      const hold = gate();
      const written = gate();
      const running = storage.transaction(async (tx) => {
        await tx.updateInvoice(invoice({ status: "PAID" }));
        written.open();
        await hold.promise;
        throw new Error("abort");
      });
      await written.promise;
      const read = storage.getInvoice(TEST, "inv_1");
      hold.open();
      await expect(running).rejects.toThrow("abort");
      expect((await read)?.status).toBe("PENDING");
      expect((await storage.getInvoice(TEST, "inv_1"))?.status).toBe("PENDING");
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

    it("refuses a tx used after its transaction ended", async () => {
      const storage = ctx.storage();
      let leaked: StorageTransaction | undefined;
      await storage.transaction(async (tx) => void (leaked = tx));
      await expect(Promise.resolve().then(() => leaked!.insertMerchant(merchant()))).rejects.toThrow();
      expect(await storage.getMerchant("m_1")).toBeNull();
    });

    it("keeps serving after a failed transaction", async () => {
      const storage = ctx.storage();
      await expect(storage.transaction(async () => Promise.reject(new Error("x")))).rejects.toThrow("x");
      await expect(storage.transaction((tx) => tx.updateInvoice(invoice()))).rejects.toThrow();
      await storage.transaction((tx) => tx.insertMerchant(merchant()));
      expect(await storage.getMerchant("m_1")).not.toBeNull();
    });
  });
}
