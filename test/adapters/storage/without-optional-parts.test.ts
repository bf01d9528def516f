/**
 * A storage with the required part alone (docs/storage.md, "Optional parts"): memoryStorage()
 * with every optional part's members hidden, on the storage and on its transactions. It passes
 * the conformance suite declared with no optional part (whose tests are then not registered),
 * takes payments through the router, and each feature that needs a missing part answers
 * `storage_feature_unavailable` (501, 50101) naming the part, while health and metrics go on.
 */
import { describe, expect, it } from "vitest";
import { memoryStorage } from "../../../src/adapters/storage/memory/index";
import { OPTIONAL_STORAGE_PARTS, type Storage, type StorageTransaction, storageParts } from "../../../src/core/ports/storage/index";
import { PaymentError } from "../../../src/errors";
import { runStorageAdapterTests } from "../../../src/testing/index";
import { expectErrorObject, setup } from "../../helpers";

const HIDDEN = new Set<string>(Object.values(OPTIONAL_STORAGE_PARTS).flatMap((part) => [...part.reads, ...part.writes]));

/** A copy of `target` without the optional parts' members (memoryStorage's methods are closures: no `this`). */
function strip<T extends object>(target: T): T {
  return Object.fromEntries(Object.entries(target).filter(([name]) => !HIDDEN.has(name))) as T;
}

/** The storage of a custom adapter that wrote the required part only. */
function requiredPartOnly(inner: Storage = memoryStorage()): Storage {
  const outer = strip(inner);
  return { ...outer, transaction: (work: (tx: StorageTransaction) => Promise<unknown>) => inner.transaction((tx) => work(strip(tx))) } as Storage;
}

runStorageAdapterTests({ name: "memoryStorage with the required part only", createAdapter: () => requiredPartOnly(), parts: [] });

describe("a storage with the required part only", () => {
  it("has no optional part, on the storage nor on its transactions", async () => {
    const storage = requiredPartOnly();
    expect(storageParts(storage)).toEqual([]);
    expect(storageParts(memoryStorage())).toEqual(Object.keys(OPTIONAL_STORAGE_PARTS));
    await storage.transaction(async (tx) => {
      for (const name of HIDDEN) expect((tx as unknown as Record<string, unknown>)[name], name).toBeUndefined();
    });
  });

  it("takes payments, and answers 501 storage_feature_unavailable for the features of a missing part", async () => {
    const inner = memoryStorage();
    const h = await setup({ storage: requiredPartOnly(inner) });
    const created = await h.post("/v1/payments", { amount: "10", currency: "USDT" });
    expect(created.status, created.text).toBe(200);

    const refused = async (call: () => unknown, part: string) => {
      const error = await Promise.resolve()
        .then(call)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(PaymentError);
      expect(error).toMatchObject({ type: "storage_feature_unavailable", status: 501, code: 50101 });
      expect((error as Error).message).toContain(`"${part}" part of the storage`);
    };
    await refused(() => h.router.admin.export({ kind: "payments", from: "2026-01-01", to: "2026-02-01" }), "exports");
    await refused(() => h.router.admin.reconcile(), "reconcile");
    await refused(() => h.router.admin.operatorReport(), "operatorReport");
    await refused(() => h.router.admin.listAuditLog(), "auditLog");
    await refused(() => h.router.admin.listMerchants(), "operatorLists");
    await refused(() => h.router.admin.listDeliveries(), "operatorLists");

    const links = await h.post("/v1/payment-links", { amount: "25" });
    expectErrorObject(links, 501, 50101);
    expect(links.body.message).toMatch(/"paymentLinks" part of the storage \(PaymentLinkStore\).*implement getPaymentLink/);
    expectErrorObject(await h.post("/v1/subscriptions", { customer: "c", amount: "10", currency: "USDT", interval: "week" }), 501, 50101);

    // Audited actions are still audited (AuditLogStore is required): the keys setup issued, read from the storage underneath.
    expect((await inner.listAuditLog({ limit: 10 })).map((entry) => entry.action)).toContain("api_key.issued");
    // Health goes on, the webhook backlog unknown.
    const health = await h.router.health();
    expect(health.webhooks).toBeNull();
  });
});
