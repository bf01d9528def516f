import { describe, expect, it } from "vitest";
import type { SuiteContext } from "./context";
import { delivery, endpoint, T0 } from "./fixtures";

/** webhookBacklog: due deliveries, the oldest due, retrying deliveries and failing endpoints, across merchants and modes, bounded. */
export function webhookBacklogTests(ctx: SuiteContext): void {
  describe("WebhookBacklogReads: the outbox's backlog across merchants", () => {
    it("is empty for an empty outbox", async () => {
      expect(await ctx.full().webhookBacklog(T0, 1000)).toEqual({ due: 0, oldestDueAt: null, retrying: 0, failingEndpoints: 0 });
    });

    it("counts due unleased deliveries of every merchant and mode, the oldest due, and the endpoints whose deliveries wait for a retry", async () => {
      const storage = ctx.full();
      await storage.transaction(async (tx) => {
        await tx.insertWebhookEndpoint(endpoint({ id: "we_a" }));
        await tx.insertWebhookEndpoint(endpoint({ id: "we_b", merchantId: "m_2" }));
        await tx.insertWebhookEndpoint(endpoint({ id: "we_c", mode: "live" }));
        await tx.insertWebhookDeliveries([
          // we_a: failed twice, due since T0 - 5000; a fresh one due now; one held by a worker.
          delivery({ id: "a1", endpointId: "we_a", attempts: 2, nextAttemptAt: T0 - 5000, lastStatusCode: 500 }),
          delivery({ id: "a2", endpointId: "we_a", nextAttemptAt: T0 }),
          delivery({ id: "a3", endpointId: "we_a", nextAttemptAt: T0 - 9000, leaseUntil: T0 + 1000 }),
          // we_b (another merchant): failed once, its retry not due yet.
          delivery({ id: "b1", merchantId: "m_2", endpointId: "we_b", attempts: 1, nextAttemptAt: T0 + 60_000, lastError: "timeout" }),
          // we_c (live): due, its lease ran out (a worker died).
          delivery({ id: "c1", mode: "live", endpointId: "we_c", nextAttemptAt: T0 - 100, leaseUntil: T0 - 1 }),
          // Settled ones never count, whatever their attempts.
          delivery({ id: "a4", endpointId: "we_a", status: "succeeded", attempts: 3, nextAttemptAt: null }),
          delivery({ id: "c2", mode: "live", endpointId: "we_c", status: "failed", attempts: 8, nextAttemptAt: null, lastStatusCode: 503 }),
        ]);
      });
      expect(await storage.webhookBacklog(T0, 1000)).toEqual({ due: 3, oldestDueAt: T0 - 5000, retrying: 2, failingEndpoints: 2 });
      // Later: b1 is due too, and a3's lease has run out (the oldest due now).
      expect(await storage.webhookBacklog(T0 + 60_000, 1000)).toEqual({ due: 5, oldestDueAt: T0 - 9000, retrying: 2, failingEndpoints: 2 });
    });

    it("follows the deliveries as they are attempted, claimed and settled", async () => {
      const storage = ctx.full();
      await storage.transaction(async (tx) => {
        await tx.insertWebhookEndpoint(endpoint({ id: "we_a" }));
        await tx.insertWebhookDeliveries([delivery({ id: "a1", endpointId: "we_a", nextAttemptAt: T0 })]);
      });
      expect(await storage.webhookBacklog(T0, 10)).toEqual({ due: 1, oldestDueAt: T0, retrying: 0, failingEndpoints: 0 });
      const [claimed] = await storage.transaction((tx) => tx.claimWebhookDeliveries(T0, 10, 30_000, 10));
      expect(await storage.webhookBacklog(T0 + 1, 10)).toEqual({ due: 0, oldestDueAt: null, retrying: 0, failingEndpoints: 0 });
      await storage.transaction((tx) =>
        tx.recordWebhookAttempt({ id: "att_1", deliveryId: "a1", at: T0 + 1, statusCode: 500, durationMs: 5, error: "HTTP 500" }, claimed!.leaseUntil!, {
          status: "pending",
          nextAttemptAt: T0 + 5000,
          leaseUntil: null,
          lastStatusCode: 500,
          lastError: "HTTP 500",
          updatedAt: T0 + 1,
        }),
      );
      expect(await storage.webhookBacklog(T0 + 2, 10)).toEqual({ due: 0, oldestDueAt: null, retrying: 1, failingEndpoints: 1 });
      expect(await storage.webhookBacklog(T0 + 7000, 10)).toEqual({ due: 1, oldestDueAt: T0 + 5000, retrying: 1, failingEndpoints: 1 });
      await storage.transaction((tx) => tx.failPendingWebhookDeliveries("we_a", "the endpoint was deleted", T0 + 7000));
      expect(await storage.webhookBacklog(T0 + 7000, 10)).toEqual({ due: 0, oldestDueAt: null, retrying: 0, failingEndpoints: 0 });
    });

    it("counts an endpoint healthy from its first success after a failure, while its older deliveries wait for their retries", async () => {
      const storage = ctx.full();
      await storage.transaction(async (tx) => {
        await tx.insertWebhookEndpoint(endpoint({ id: "we_a" }));
        await tx.insertWebhookDeliveries(["a1", "a2", "a3", "a4"].map((id) => delivery({ id, endpointId: "we_a", nextAttemptAt: T0 })));
      });
      const claimed = await storage.transaction((tx) => tx.claimWebhookDeliveries(T0, 10, 30_000, 10));
      const leaseOf = (id: string) => claimed.find((entry) => entry.id === id)!.leaseUntil!;
      /** Records one attempt of a claimed delivery, answered `code` at `at`. */
      const answer = (id: string, code: number, at: number, heldUntil = leaseOf(id)) =>
        storage.transaction((tx) =>
          tx.recordWebhookAttempt(
            { id: `att_${id}_${at}`, deliveryId: id, at, statusCode: code, durationMs: 5, error: code < 300 ? null : `HTTP ${code}` },
            heldUntil,
            code < 300
              ? { status: "succeeded", nextAttemptAt: null, leaseUntil: null, lastStatusCode: code, lastError: null, updatedAt: at }
              : { status: "pending", nextAttemptAt: T0 + 5000, leaseUntil: null, lastStatusCode: code, lastError: `HTTP ${code}`, updatedAt: at },
          ),
        );
      await answer("a1", 500, T0 + 1);
      await answer("a2", 503, T0 + 2);
      expect(await storage.webhookBacklog(T0 + 3, 10)).toMatchObject({ retrying: 2, failingEndpoints: 1 });
      // The receiver is back: its next answer is a 2xx. a1 and a2 still wait for their retry.
      await answer("a3", 200, T0 + 3);
      expect(await storage.webhookBacklog(T0 + 4, 10)).toMatchObject({ retrying: 2, failingEndpoints: 0 });
      // A failure answered before that success, recorded after it, does not count it failing again.
      await answer("a4", 500, T0 + 2);
      expect(await storage.webhookBacklog(T0 + 4, 10)).toMatchObject({ retrying: 3, failingEndpoints: 0 });
      // The next failure does.
      const retried = await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 5000, 1, 30_000, 10));
      await answer(retried[0]!.id, 500, T0 + 5001, retried[0]!.leaseUntil!);
      expect(await storage.webhookBacklog(T0 + 5002, 10)).toMatchObject({ retrying: 3, failingEndpoints: 1 });
    });

    it("stops each count at the limit, and still finds the oldest due", async () => {
      const storage = ctx.full();
      await storage.transaction(async (tx) => {
        for (const id of ["we_a", "we_b", "we_c"]) await tx.insertWebhookEndpoint(endpoint({ id }));
        await tx.insertWebhookDeliveries(
          ["we_a", "we_b", "we_c"].flatMap((endpointId, e) =>
            [0, 1].map((i) => delivery({ id: `${endpointId}_${i}`, endpointId, attempts: 1, nextAttemptAt: T0 - 10 * e - i })),
          ),
        );
      });
      expect(await storage.webhookBacklog(T0, 2)).toEqual({ due: 2, oldestDueAt: T0 - 21, retrying: 2, failingEndpoints: 2 });
      expect(await storage.webhookBacklog(T0, 100)).toEqual({ due: 6, oldestDueAt: T0 - 21, retrying: 6, failingEndpoints: 3 });
    });

    it("sees a transaction's own deliveries inside it, and only committed ones outside", async () => {
      const storage = ctx.full();
      await storage.transaction(async (tx) => {
        await tx.insertWebhookEndpoint(endpoint({ id: "we_a" }));
        await tx.insertWebhookDeliveries([delivery({ id: "a1", endpointId: "we_a", attempts: 1, nextAttemptAt: T0 })]);
        expect(await tx.webhookBacklog(T0, 10)).toEqual({ due: 1, oldestDueAt: T0, retrying: 1, failingEndpoints: 1 });
      });
      await expect(
        storage.transaction(async (tx) => {
          await tx.insertWebhookDeliveries([delivery({ id: "a2", endpointId: "we_a", nextAttemptAt: T0 - 50 })]);
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect(await storage.webhookBacklog(T0, 10)).toEqual({ due: 1, oldestDueAt: T0, retrying: 1, failingEndpoints: 1 });
    });
  });
}
