import { describe, expect, it } from "vitest";
import { memoryStorage } from "../../../src/adapters/storage/memory/index";
import type { InvoiceRecord } from "../../../src/core/invoices/records";
import { runStorageAdapterTests, storageFixtures } from "../../../src/testing/index";

const { address, apiKey, deposit, entry, gate, invoice, merchant, seed, TEST } = storageFixtures;

runStorageAdapterTests({ name: "memoryStorage", createAdapter: memoryStorage });

// What the contract leaves to each adapter, as memoryStorage does it.
describe("memoryStorage specifics", () => {
  it("names the record and the constraint when it refuses a write", async () => {
    const storage = memoryStorage();
    await seed(storage);
    await expect(storage.transaction((tx) => tx.insertMerchant(merchant()))).rejects.toThrow(/merchant m_1 exists/);
    await expect(storage.transaction((tx) => tx.insertApiKey(apiKey({ id: "key_other" })))).rejects.toThrow(/hash exists/);
    await expect(storage.transaction((tx) => tx.insertAddress(address({ invoiceId: "inv_2" })))).rejects.toThrow(
      /address bc1qexample on bitcoin \(test\) exists/,
    );
    await expect(storage.transaction((tx) => tx.insertDeposit(deposit({ id: "dep_other" })))).rejects.toThrow(/deposit tx_1:0 on bitcoin \(test\) exists/);
    await expect(storage.transaction((tx) => tx.updateInvoice(invoice({ id: "inv_x" })))).rejects.toThrow(/invoice inv_x: no such record/);
    await expect(storage.transaction((tx) => tx.postLedgerEntries([entry({ causeKey: "k" }), entry({ causeKey: "k" })]))).rejects.toThrow(/twice in one batch/);
  });

  it("makes reads outside a transaction wait for it, so they see it committed", async () => {
    const storage = memoryStorage();
    await seed(storage);
    const hold = gate();
    const written = gate();
    const running = storage.transaction(async (tx) => {
      await tx.updateInvoice(invoice({ status: "PAID" }));
      written.open();
      await hold.promise;
    });
    await written.promise;
    let outside: InvoiceRecord | null | undefined;
    const read = storage.getInvoice(TEST, "inv_1").then((value) => (outside = value));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(outside).toBeUndefined();
    hold.open();
    await running;
    await read;
    expect(outside?.status).toBe("PAID");
  });

  it("runs transactions one at a time, in the order they were started", async () => {
    const storage = memoryStorage();
    const log: string[] = [];
    const hold = gate();
    const first = storage.transaction(async () => {
      log.push("first:start");
      await hold.promise;
      log.push("first:end");
    });
    const second = storage.transaction(async () => void log.push("second"));
    const third = storage.transaction(async () => void log.push("third"));
    await new Promise((resolve) => setTimeout(resolve, 5));
    hold.open();
    await Promise.all([first, second, third]);
    expect(log).toEqual(["first:start", "first:end", "second", "third"]);
  });

  it("says which method was called on a tx after its transaction ended", async () => {
    const storage = memoryStorage();
    let leaked: Parameters<Parameters<typeof storage.transaction>[0]>[0] | undefined;
    await storage.transaction(async (tx) => void (leaked = tx));
    await expect(leaked!.insertMerchant(merchant())).rejects.toThrow(/tx\.insertMerchant\(\) was called after its transaction ended/);
  });
});
