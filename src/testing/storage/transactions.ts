import { describe, expect, it } from "vitest";
import type { InvoiceRecord } from "../../core/ports/records";
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
  type Tx,
} from "./fixtures";

/** Atomicity, isolation of uncommitted writes, and what `lock*` holds. */
export function transactionTests(ctx: SuiteContext): void {
  describe("transactions", () => {
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
          await tx.insertPaymentLink(paymentLink({ id: "pl_2" }));
          await tx.updatePaymentLink(paymentLink({ active: false }));
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

    const locks: Array<[string, (tx: Tx) => Promise<unknown>, (tx: Tx) => Promise<void>, (tx: Tx) => Promise<unknown>]> = [
      [
        "lockInvoice",
        (tx) => tx.lockInvoice("inv_1"),
        (tx) => tx.updateInvoice(invoice({ status: "PAID" })),
        async (tx) => (await tx.lockInvoice("inv_1"))?.status,
      ],
      [
        "lockPayout",
        (tx) => tx.lockPayout("po_1"),
        (tx) => tx.updatePayout(payout({ status: "COMPLETED" })),
        async (tx) => (await tx.lockPayout("po_1"))?.status,
      ],
      [
        "lockDeposit",
        (tx) => tx.lockDeposit("test", "bitcoin", "tx_1", 0),
        (tx) => tx.updateDeposit(deposit({ status: "CONFIRMED" })),
        async (tx) => (await tx.lockDeposit("test", "bitcoin", "tx_1", 0))?.status,
      ],
      [
        "lockPaymentLink",
        (tx) => tx.lockPaymentLink("pl_1"),
        (tx) => tx.updatePaymentLink(paymentLink({ active: false })),
        async (tx) => (await tx.lockPaymentLink("pl_1"))?.active,
      ],
      [
        "lockWebhookEndpoint",
        (tx) => tx.lockWebhookEndpoint("we_1"),
        (tx) => tx.updateWebhookEndpoint(endpoint({ status: "disabled" })),
        async (tx) => (await tx.lockWebhookEndpoint("we_1"))?.status,
      ],
      [
        "lockWebhookDelivery",
        (tx) => tx.lockWebhookDelivery("msg_1"),
        (tx) => tx.updateWebhookDelivery(delivery({ status: "succeeded", nextAttemptAt: null })),
        async (tx) => (await tx.lockWebhookDelivery("msg_1"))?.status,
      ],
      ["lockCursor", (tx) => tx.lockCursor("bitcoin"), (tx) => tx.setCursor("bitcoin", "200"), (tx) => tx.lockCursor("bitcoin")],
    ];

    it.each(locks)("%s holds the record: a second transaction locking it waits, then sees the first one's write", async (_name, lock, write, lockAndRead) => {
      const storage = ctx.storage();
      await seed(storage);
      const before = await storage.transaction(lockAndRead);
      const hold = gate();
      const locked = gate();
      const log: string[] = [];
      const first = storage.transaction(async (tx) => {
        await lock(tx);
        locked.open();
        await hold.promise;
        await write(tx);
        log.push("first wrote");
      });
      await locked.promise;
      const second = storage.transaction(async (tx) => {
        const value = await lockAndRead(tx);
        log.push("second locked");
        return value;
      });
      await sleep(50);
      expect(log).toEqual([]); // still waiting for the first transaction
      hold.open();
      await first;
      const after = await second;
      expect(log).toEqual(["first wrote", "second locked"]);
      expect(after).not.toEqual(before);
    });

    it("lockCursor returns null for a name never stored, then what setCursor stored, inside the transaction and after it", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        expect(await tx.lockCursor("ethereum:nonce")).toBeNull();
        await tx.setCursor("ethereum:nonce", "0");
        // Locking a name the transaction holds already does not wait for itself.
        expect(await tx.lockCursor("ethereum:nonce")).toBe("0");
      });
      expect(await storage.transaction((tx) => tx.lockCursor("ethereum:nonce"))).toBe("0");
      expect(await storage.getCursor("ethereum:nonce")).toBe("0");
    });

    it("lockCursor holds a name nothing is stored under yet: a second transaction locking it waits, then sees the first one's value", async () => {
      const storage = ctx.storage();
      const hold = gate();
      const locked = gate();
      const log: string[] = [];
      const first = storage.transaction(async (tx) => {
        log.push(`first locked ${await tx.lockCursor("ethereum:nonce")}`);
        locked.open();
        await hold.promise;
        await tx.setCursor("ethereum:nonce", "1");
        log.push("first wrote");
      });
      await locked.promise;
      const second = storage.transaction(async (tx) => {
        const value = await tx.lockCursor("ethereum:nonce");
        log.push("second locked");
        return value;
      });
      await sleep(50);
      const whileHeld = [...log];
      hold.open();
      await first;
      expect(await second).toBe("1");
      expect(whileHeld).toEqual(["first locked null"]); // the second was still waiting for the first
      expect(log).toEqual(["first locked null", "first wrote", "second locked"]);
    });

    it("lockCursor serializes read-increment-write: N transactions counting on one new name hand out N numbers and lose no update", async () => {
      const storage = ctx.storage();
      const handedOut: number[] = [];
      await Promise.all(
        Array.from({ length: ctx.parallelism }, () =>
          storage.transaction(async (tx) => {
            const nonce = Number((await tx.lockCursor("ethereum:nonce")) ?? "0");
            await sleep(1); // signing with the nonce, between reading it and storing the next one
            await tx.setCursor("ethereum:nonce", String(nonce + 1));
            handedOut.push(nonce);
          }),
        ),
      );
      expect(handedOut.sort((a, b) => a - b)).toEqual(Array.from({ length: ctx.parallelism }, (_, i) => i));
      expect(await storage.getCursor("ethereum:nonce")).toBe(String(ctx.parallelism));
    });

    it("lockCursor holds only its own name: transactions holding different names both run, one committing while the other is still open", async () => {
      const storage = ctx.storage();
      const holdFirst = gate();
      const holdSecond = gate();
      const firstLocked = gate();
      const secondLocked = gate();
      const holding = (name: string, locked: { open: () => void }, hold: Promise<void>) =>
        storage.transaction(async (tx) => {
          await tx.lockCursor(name);
          locked.open();
          await hold;
          await tx.setCursor(name, "1");
        });
      const first = holding("ethereum:nonce", firstLocked, holdFirst.promise);
      await firstLocked.promise;
      const second = holding("polygon:nonce", secondLocked, holdSecond.promise);
      // Only an adapter that runs transactions side by side can keep this promise: one that runs
      // them one at a time (as memoryStorage and PGlite do) holds every name while any transaction
      // is open, which the contract allows. A transaction locking nothing tells which kind this is.
      const probe = storage.transaction((tx) => tx.getCursor("bitcoin"));
      const sideBySide = await Promise.race([probe.then(() => true), sleep(250).then(() => false)]);
      let bothHeld: boolean | null = null;
      if (sideBySide) {
        bothHeld = await Promise.race([secondLocked.promise.then(() => true), sleep(5_000).then(() => false)]);
        holdFirst.open();
        await first; // commits while the second still holds its name
      }
      holdFirst.open();
      holdSecond.open();
      await Promise.all([first, second, probe]);
      if (sideBySide) expect(bothHeld).toBe(true);
      expect(await storage.getCursor("ethereum:nonce")).toBe("1");
      expect(await storage.getCursor("polygon:nonce")).toBe("1");
    });

    it("lockCursor's name is released by a rollback, which writes nothing", async () => {
      const storage = ctx.storage();
      const hold = gate();
      const locked = gate();
      const log: string[] = [];
      const failed = storage.transaction(async (tx) => {
        await tx.lockCursor("ethereum:nonce");
        await tx.setCursor("ethereum:nonce", "1");
        locked.open();
        await hold.promise;
        log.push("first threw");
        throw new Error("signing failed");
      });
      await locked.promise;
      const next = storage.transaction(async (tx) => {
        const value = await tx.lockCursor("ethereum:nonce");
        log.push("second locked");
        await tx.setCursor("ethereum:nonce", "7");
        return value;
      });
      await sleep(50);
      const whileHeld = [...log];
      hold.open();
      await expect(failed).rejects.toThrow("signing failed");
      expect(await next).toBeNull();
      expect(whileHeld).toEqual([]);
      expect(log).toEqual(["first threw", "second locked"]);
      expect(await storage.getCursor("ethereum:nonce")).toBe("7");
    });

    it("refuses a tx used after its transaction ended", async () => {
      const storage = ctx.storage();
      let leaked: Tx | undefined;
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
