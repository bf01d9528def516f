import { describe, expect, it } from "vitest";
import type { Storage } from "../../core/ports/storage/index";
import type { SuiteContext } from "./context";
import { delivery, endpoint, ids, T0, TEST } from "./fixtures";

/** Three endpoints with queues: we_a [a1 due, a2 due], we_b [b1 due later], we_c [c1 not due yet]. */
export async function queues(storage: Storage): Promise<void> {
  await storage.transaction(async (tx) => {
    for (const id of ["we_a", "we_b", "we_c"]) await tx.insertWebhookEndpoint(endpoint({ id }));
    await tx.insertWebhookDeliveries([
      delivery({ id: "a1", endpointId: "we_a", nextAttemptAt: T0 + 5 }),
      delivery({ id: "b1", endpointId: "we_b", nextAttemptAt: T0 + 1 }),
      delivery({ id: "a2", endpointId: "we_a", nextAttemptAt: T0 }),
      delivery({ id: "c1", endpointId: "we_c", nextAttemptAt: T0 + 100 }),
    ]);
  });
}

/** claimWebhookDeliveries: each delivery on its own schedule, a bounded number in flight per endpoint, in fair turns, leased, never twice. */
export function webhookClaimTests(ctx: SuiteContext): void {
  describe("claiming webhook deliveries", () => {
    const claim = (storage: Storage, now: number, limit: number, leaseMs: number, perEndpoint = 10) =>
      storage.transaction((tx) => tx.claimWebhookDeliveries(now, limit, leaseMs, perEndpoint)).then(ids);

    it("claims every due delivery of an endpoint, not only its oldest, earliest due first", async () => {
      const storage = ctx.storage();
      await queues(storage);
      // a2 is due before a1 although inserted after it: each delivery keeps its own time.
      expect(await claim(storage, T0 + 4, 10, 1000)).toEqual(["a2", "b1"]);
      const claimed = await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 5, 10, 1000, 10));
      expect(ids(claimed)).toEqual(["a1"]); // a2 and b1 are leased now
      expect(claimed[0]).toEqual(delivery({ id: "a1", endpointId: "we_a", nextAttemptAt: T0 + 5, leaseUntil: T0 + 1005 }));
      expect((await storage.getWebhookDelivery(TEST, "a1"))?.leaseUntil).toBe(T0 + 1005);
    });

    it("lets a later delivery of an endpoint go while an earlier one waits for its retry", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertWebhookEndpoint(endpoint({ id: "we_a" }));
        await tx.insertWebhookDeliveries([
          delivery({ id: "failing", endpointId: "we_a", attempts: 3, nextAttemptAt: T0 + 300_000, lastStatusCode: 500 }),
          delivery({ id: "later", endpointId: "we_a", nextAttemptAt: T0 + 10 }),
        ]);
      });
      expect(await claim(storage, T0 + 10, 10, 600_000)).toEqual(["later"]);
      expect(await claim(storage, T0 + 300_000, 10, 600_000)).toEqual(["failing"]);
    });

    it("honours the limit, and claims nothing for a limit or perEndpoint of 0", async () => {
      const storage = ctx.storage();
      await queues(storage);
      expect(await claim(storage, T0 + 500, 2, 1000)).toEqual(["a2", "b1"]);
      expect(await claim(storage, T0 + 500, 0, 1000)).toEqual([]);
      expect(await claim(storage, T0 + 500, 10, 1000, 0)).toEqual([]);
    });

    it("leases at most perEndpoint of an endpoint at once, counting its live leases, the earliest due first", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertWebhookEndpoint(endpoint({ id: "we_a" }));
        await tx.insertWebhookEndpoint(endpoint({ id: "we_b" }));
        await tx.insertWebhookDeliveries([
          ...["a1", "a2", "a3", "a4", "a5"].map((id, i) => delivery({ id, endpointId: "we_a", nextAttemptAt: T0 + 5 - i })),
          delivery({ id: "b1", endpointId: "we_b" }),
        ]);
      });
      expect(await claim(storage, T0 + 10, 10, 100, 2)).toEqual(["b1", "a5", "a4"]);
      expect(await claim(storage, T0 + 10, 10, 100, 2)).toEqual([]); // we_a has two out, we_b nothing left
      // One of we_a's comes back settled: one more may go.
      await storage.transaction(async (tx) => {
        const a5 = await tx.lockWebhookDelivery("a5");
        await tx.updateWebhookDelivery({ ...a5!, status: "succeeded", nextAttemptAt: null, leaseUntil: null, attempts: 1 });
      });
      expect(await claim(storage, T0 + 20, 10, 100, 2)).toEqual(["a3"]);
      // A higher perEndpoint (another instance's setting) counts the same leases.
      expect(await claim(storage, T0 + 20, 10, 100, 3)).toEqual(["a2"]);
    });

    it("shares a claim out in turns, between merchants and between a merchant's endpoints", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        for (const [id, merchantId] of [
          ["we_big", "m_1"],
          ["we_small", "m_1"],
          ["we_other", "m_2"],
        ] as const) {
          await tx.insertWebhookEndpoint(endpoint({ id, merchantId }));
        }
        await tx.insertWebhookDeliveries([
          ...[1, 2, 3, 4, 5, 6].map((n) => delivery({ id: `big${n}`, endpointId: "we_big" })),
          delivery({ id: "small1", endpointId: "we_small" }),
          delivery({ id: "other1", merchantId: "m_2", endpointId: "we_other" }),
          delivery({ id: "other2", merchantId: "m_2", endpointId: "we_other" }),
        ]);
      });
      // Turn 1: each merchant's first; turn 2: m_1's other endpoint, m_2's second; then the backlog.
      expect(await claim(storage, T0, 5, 1000)).toEqual(["big1", "other1", "small1", "other2", "big2"]);
      expect(await claim(storage, T0, 10, 1000)).toEqual(["big3", "big4", "big5", "big6"]);
    });

    it("hands a delivery out again once its lease ran out (its worker died)", async () => {
      const storage = ctx.storage();
      await queues(storage);
      expect(await claim(storage, T0 + 10, 10, 100)).toEqual(["a2", "b1", "a1"]);
      expect(await claim(storage, T0 + 109, 10, 100)).toEqual(["c1"]); // the others are leased until T0 + 110
      expect(await claim(storage, T0 + 110, 10, 100)).toEqual(["a2", "b1", "a1"]);
    });

    it("frees an endpoint's slot when a delivery settles, and a redelivered one waits for a slot like any other", async () => {
      const storage = ctx.storage();
      await queues(storage);
      const settle = (id: string) =>
        storage.transaction(async (tx) => {
          const current = await tx.lockWebhookDelivery(id);
          await tx.updateWebhookDelivery({ ...current!, status: "succeeded", nextAttemptAt: null, leaseUntil: null, attempts: 1 });
        });
      expect(await claim(storage, T0 + 10, 10, 100, 1)).toEqual(["a2", "b1"]);
      expect(await claim(storage, T0 + 50, 10, 100, 1)).toEqual([]); // a2 holds we_a's one slot
      await settle("a2");
      expect(await claim(storage, T0 + 60, 10, 100, 1)).toEqual(["a1"]);
      await storage.transaction(async (tx) => {
        const a2 = await tx.lockWebhookDelivery("a2");
        await tx.updateWebhookDelivery({ ...a2!, status: "pending", nextAttemptAt: T0 + 60 });
      });
      expect(await claim(storage, T0 + 70, 10, 100, 1)).toEqual([]); // a1 holds it now
      await settle("a1");
      expect(await claim(storage, T0 + 80, 10, 100, 1)).toEqual(["a2"]);
    });

    it("never hands one delivery to two workers claiming at once", async () => {
      const storage = ctx.storage();
      const endpoints = Math.max(8, ctx.parallelism);
      await storage.transaction(async (tx) => {
        for (let e = 0; e < endpoints; e++) {
          await tx.insertWebhookEndpoint(endpoint({ id: `we_${e}` }));
          await tx.insertWebhookDeliveries([
            delivery({ id: `d_${e}_first`, endpointId: `we_${e}`, nextAttemptAt: T0 + e }),
            delivery({ id: `d_${e}_second`, endpointId: `we_${e}`, nextAttemptAt: T0 }),
          ]);
        }
      });
      const workers = 4;
      const perWorker = Math.ceil(endpoints / 2);
      const claims = await Promise.all(
        Array.from({ length: workers }, () =>
          storage.transaction(async (tx) => {
            const claimed = await tx.claimWebhookDeliveries(T0 + 10_000, perWorker, 60_000, 10);
            await new Promise((resolve) => setImmediate(resolve)); // hold the claim open a moment
            return ids(claimed);
          }),
        ),
      );
      const all = claims.flat();
      expect(new Set(all).size).toBe(all.length); // nobody got a delivery someone else got
      // Whatever was not claimed is still there to claim; what was, is leased.
      const rest = await claim(storage, T0 + 10_000, endpoints * 2, 60_000);
      expect(rest.filter((id) => all.includes(id))).toEqual([]);
      expect(all.length + rest.length).toBe(endpoints * 2);
    });

    it("never leases more than perEndpoint of one endpoint to workers claiming at once", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertWebhookEndpoint(endpoint({ id: "we_busy" }));
        await tx.insertWebhookDeliveries(Array.from({ length: 40 }, (_, i) => delivery({ id: `busy_${i}`, endpointId: "we_busy" })));
      });
      const claims = await Promise.all(
        Array.from({ length: Math.max(4, Math.min(ctx.parallelism, 12)) }, () =>
          storage.transaction(async (tx) => {
            const claimed = await tx.claimWebhookDeliveries(T0 + 10, 10, 60_000, 3);
            await new Promise((resolve) => setImmediate(resolve));
            return ids(claimed);
          }),
        ),
      );
      const all = claims.flat();
      expect(new Set(all).size).toBe(all.length);
      expect(all.sort()).toEqual(["busy_0", "busy_1", "busy_2"]);
    });
  });
}
