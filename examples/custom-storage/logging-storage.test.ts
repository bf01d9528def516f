/**
 * How an adapter proves it keeps the Storage contract: one call of the conformance suite from
 * "express-crypto-pay/testing" (here via src/), inside your own vitest.
 */
import { describe, expect, it } from "vitest";
import { memoryStorage } from "../../src/index";
import { runStorageAdapterTests, storageFixtures } from "../../src/testing/index";
import { loggingStorage, type StorageCall } from "./logging-storage";

runStorageAdapterTests({
  name: "loggingStorage(memoryStorage())",
  createAdapter: () => loggingStorage(memoryStorage(), { log: () => undefined }),
});

// The adapter's own behaviour, beyond the contract.
describe("loggingStorage", () => {
  it("reports each call with its duration, and the failures with their error", async () => {
    const calls: StorageCall[] = [];
    const storage = loggingStorage(memoryStorage(), { log: (call) => calls.push(call) });
    await storage.transaction((tx) => tx.insertMerchant(storageFixtures.merchant()));
    await storage.getMerchant("m_1");
    await expect(storage.transaction((tx) => tx.insertMerchant(storageFixtures.merchant()))).rejects.toThrow();
    expect(calls.map((call) => [call.method, call.error === undefined])).toEqual([
      ["tx.insertMerchant", true],
      ["transaction", true],
      ["getMerchant", true],
      ["tx.insertMerchant", false],
      ["transaction", false],
    ]);
    expect(calls.every((call) => call.ms >= 0)).toBe(true);
  });

  it("leaves out calls faster than slowMs, never failures", async () => {
    const calls: StorageCall[] = [];
    const storage = loggingStorage(memoryStorage(), { log: (call) => calls.push(call), slowMs: 60_000 });
    await storage.getMerchant("m_1");
    await expect(storage.transaction(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(calls.map((call) => call.method)).toEqual(["transaction"]);
  });
});
