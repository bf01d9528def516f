import { describe, expect, it } from "vitest";
import type { Storage } from "../../core/ports/storage/index";
import type { EventRecord, WebhookDeliveryRecord } from "../../core/ports/records";
import type { SuiteContext } from "./context";
import { webhookDeliveryId, webhookPayload } from "../../core/ports/fan-out";
import { attempt, delivery, endpoint, event, ids, LIVE, OTHER, T0, TEST } from "./fixtures";

/** Three endpoints with queues: we_a [a1 due, a2 due], we_b [b1 due later], we_c [c1 not due yet]. */
async function queues(storage: Storage): Promise<void> {
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

/** Endpoints, the delivery log, attempts, and claiming work: each delivery on its own, a bounded number in flight per endpoint, in fair turns, leased, never twice. */
export function webhookTests(ctx: SuiteContext): void {
  describe("webhook endpoints and the delivery log", () => {
    it("lists endpoints oldest first by (createdAt, id), disabled ones included, and updates them", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertWebhookEndpoint(endpoint({ id: "we_b", createdAt: T0 + 1 }));
        await tx.insertWebhookEndpoint(endpoint({ id: "we_c", createdAt: T0 }));
        await tx.insertWebhookEndpoint(endpoint({ id: "we_a", createdAt: T0 + 1, status: "disabled" }));
        await tx.insertWebhookEndpoint(endpoint({ id: "we_live", mode: "live" }));
      });
      expect((await storage.listWebhookEndpoints(TEST)).map((e) => e.id)).toEqual(["we_c", "we_a", "we_b"]);
      const rotated = endpoint({
        id: "we_b",
        createdAt: T0 + 1,
        secrets: [
          { secret: "whsec_new", createdAt: T0 + 9, expiresAt: null },
          { secret: "whsec_old", createdAt: T0, expiresAt: T0 + 99 },
        ],
        updatedAt: T0 + 9,
      });
      await storage.transaction((tx) => tx.updateWebhookEndpoint(rotated));
      expect(await storage.getWebhookEndpoint(TEST, "we_b")).toEqual(rotated);
    });

    it("keeps the log newest first by insertion, filtered, one page at a time", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        // createdAt runs against insertion order on purpose: the log follows insertion.
        await tx.insertWebhookDeliveries([
          delivery({ id: "m1", endpointId: "we_1", eventType: "payment.created", createdAt: T0 + 9 }),
          delivery({ id: "m2", endpointId: "we_2", eventType: "payment.completed", createdAt: T0 + 8 }),
        ]);
        await tx.insertWebhookDeliveries([delivery({ id: "m3", endpointId: "we_1", eventType: "payment.completed", status: "succeeded", createdAt: T0 + 7 })]);
        await tx.insertWebhookDeliveries([
          delivery({ id: "m4", endpointId: "we_1", eventType: "payment.completed", status: "failed", createdAt: T0 + 6 }),
          delivery({ id: "m_other", merchantId: "m_2", createdAt: T0 }),
        ]);
      });
      const page = async (filter: Parameters<Storage["listWebhookDeliveries"]>[1], limit: number, after?: string) =>
        ids(await storage.listWebhookDeliveries(TEST, filter, { limit, after: after ?? null }));
      expect(await page({}, 10)).toEqual(["m4", "m3", "m2", "m1"]);
      expect(await page({}, 2)).toEqual(["m4", "m3"]);
      expect(await page({}, 2, "m3")).toEqual(["m2", "m1"]);
      expect(await page({}, 2, "m1")).toEqual([]);
      expect(await page({ endpointId: "we_1" }, 10)).toEqual(["m4", "m3", "m1"]);
      expect(await page({ eventType: "payment.completed" }, 10)).toEqual(["m4", "m3", "m2"]);
      expect(await page({ status: "pending" }, 10)).toEqual(["m2", "m1"]);
      expect(await page({ endpointId: "we_1", eventType: "payment.completed", status: "succeeded" }, 10)).toEqual(["m3"]);
      expect(await page({ endpointId: "we_1" }, 1, "m4")).toEqual(["m3"]);
      // An update keeps a delivery's place in the log.
      await storage.transaction((tx) =>
        tx.updateWebhookDelivery(delivery({ id: "m1", endpointId: "we_1", eventType: "payment.created", status: "failed", createdAt: T0 + 9 })),
      );
      expect(await page({}, 10)).toEqual(["m4", "m3", "m2", "m1"]);
    });

    it("keeps each delivery's attempts, oldest first", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertWebhookDeliveries([delivery()]);
        await tx.insertWebhookAttempt(attempt({ id: "att_2", at: T0 + 5 }));
        await tx.insertWebhookAttempt(attempt({ id: "att_1", at: T0 + 1, statusCode: 200, error: null }));
        await tx.insertWebhookAttempt(attempt({ id: "att_x", deliveryId: "msg_other" }));
      });
      expect((await storage.listWebhookAttempts("msg_1")).map((a) => a.id)).toEqual(["att_2", "att_1"]);
    });

    it("settles every pending delivery of an endpoint as failed, and only those", async () => {
      const storage = ctx.storage();
      await queues(storage);
      await storage.transaction((tx) => tx.insertWebhookDeliveries([delivery({ id: "a0", endpointId: "we_a", status: "succeeded", nextAttemptAt: null })]));
      const count = await storage.transaction((tx) => tx.failPendingWebhookDeliveries("we_a", "the endpoint was deleted", T0 + 50));
      expect(count).toBe(2);
      for (const id of ["a1", "a2"]) {
        expect(await storage.getWebhookDelivery(TEST, id)).toMatchObject({
          status: "failed",
          nextAttemptAt: null,
          leaseUntil: null,
          lastError: "the endpoint was deleted",
          updatedAt: T0 + 50,
        });
      }
      expect((await storage.getWebhookDelivery(TEST, "a0"))?.status).toBe("succeeded");
      expect((await storage.getWebhookDelivery(TEST, "b1"))?.status).toBe("pending");
      expect(await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 1000, 10, 1000, 10)).then(ids)).toEqual(["b1", "c1"]);
    });
  });

  describe("the outbox fan-out (queueWebhookDeliveries)", () => {
    const outboxEvent = (id: string, type: EventRecord["type"], scope = TEST) => event({ id, ...scope, type, invoiceId: `inv_${id}` });

    it("queues each event, in order, to the enabled endpoints of its scope subscribed to its type, oldest endpoint first", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertWebhookEndpoint(endpoint({ id: "we_b", createdAt: T0 + 1, events: null }));
        await tx.insertWebhookEndpoint(endpoint({ id: "we_a", createdAt: T0 + 1, events: ["payment.completed"] }));
        await tx.insertWebhookEndpoint(endpoint({ id: "we_c", createdAt: T0, events: ["payment.created", "payment.completed"] }));
        await tx.insertWebhookEndpoint(endpoint({ id: "we_off", events: null, status: "disabled", disabledReason: "the endpoint answered 410 Gone" }));
        await tx.insertWebhookEndpoint(endpoint({ id: "we_other", merchantId: "m_2", events: null }));
        await tx.insertWebhookEndpoint(endpoint({ id: "we_live", mode: "live", events: null }));
      });
      await storage.transaction((tx) =>
        tx.queueWebhookDeliveries(
          [
            outboxEvent("evt_1", "payment.created"),
            outboxEvent("evt_2", "payment.completed"),
            outboxEvent("evt_3", "payment.created", OTHER),
            outboxEvent("evt_4", "payment.expired", LIVE),
            outboxEvent("evt_5", "payment.confirming"),
          ],
          T0 + 50,
        ),
      );
      const log = async (scope: typeof TEST) => (await storage.listWebhookDeliveries(scope, {}, { limit: 20 })).reverse();
      const pairs = (deliveries: WebhookDeliveryRecord[]) => deliveries.map((d) => `${d.eventId}>${d.endpointId}`);
      expect(pairs(await log(TEST))).toEqual(["evt_1>we_c", "evt_1>we_b", "evt_2>we_c", "evt_2>we_a", "evt_2>we_b", "evt_5>we_b"]);
      expect(pairs(await log(OTHER))).toEqual(["evt_3>we_other"]);
      expect(pairs(await log(LIVE))).toEqual(["evt_4>we_live"]);
      expect((await log(TEST))[3]).toEqual(
        delivery({
          id: webhookDeliveryId("evt_2", "we_a"),
          endpointId: "we_a",
          eventId: "evt_2",
          eventType: "payment.completed",
          payload: webhookPayload(outboxEvent("evt_2", "payment.completed")),
          nextAttemptAt: T0 + 50,
          createdAt: T0 + 50,
          updatedAt: T0 + 50,
        }),
      );
      // Queued deliveries are claimable work like any other, each on its own.
      const claimed = await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 50, 10, 1000, 10));
      expect(claimed.map((d) => `${d.eventId}>${d.endpointId}`).sort()).toEqual(
        ["evt_1>we_b", "evt_1>we_c", "evt_2>we_a", "evt_2>we_b", "evt_2>we_c", "evt_3>we_other", "evt_4>we_live", "evt_5>we_b"].sort(),
      );
    });

    it("matches the endpoints as the transaction sees them, and queues nothing when none matches or the transaction rolls back", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.queueWebhookDeliveries([outboxEvent("evt_0", "payment.created")], T0);
        await tx.insertWebhookEndpoint(endpoint({ id: "we_new", events: null }));
        await tx.queueWebhookDeliveries([outboxEvent("evt_1", "payment.created")], T0);
        await tx.updateWebhookEndpoint(endpoint({ id: "we_new", events: null, status: "disabled", disabledReason: "off" }));
        await tx.queueWebhookDeliveries([outboxEvent("evt_2", "payment.created")], T0);
      });
      expect((await storage.listWebhookDeliveries(TEST, {}, { limit: 10 })).map((d) => d.eventId)).toEqual(["evt_1"]);
      await storage.transaction((tx) => tx.updateWebhookEndpoint(endpoint({ id: "we_new", events: null })));
      await expect(
        storage.transaction(async (tx) => {
          await tx.queueWebhookDeliveries([outboxEvent("evt_3", "payment.created")], T0);
          throw new Error("abort");
        }),
      ).rejects.toThrow("abort");
      await storage.transaction((tx) => tx.queueWebhookDeliveries([], T0));
      expect((await storage.listWebhookDeliveries(TEST, {}, { limit: 10 })).map((d) => d.eventId)).toEqual(["evt_1"]);
    });

    it("refuses to queue the same event to the same endpoint twice (the id is derived from both)", async () => {
      const storage = ctx.storage();
      await storage.transaction((tx) => tx.insertWebhookEndpoint(endpoint({ events: null })));
      await storage.transaction((tx) => tx.queueWebhookDeliveries([outboxEvent("evt_1", "payment.created")], T0));
      await expect(storage.transaction((tx) => tx.queueWebhookDeliveries([outboxEvent("evt_1", "payment.created")], T0 + 1))).rejects.toThrow();
      expect(await storage.listWebhookDeliveries(TEST, {}, { limit: 10 })).toHaveLength(1);
    });
  });

  describe("recording an attempt (recordWebhookAttempt)", () => {
    const leased = delivery({ id: "msg_1", endpointId: "we_1", leaseUntil: T0 + 1000 });
    const retry = {
      status: "pending",
      nextAttemptAt: T0 + 5000,
      leaseUntil: null,
      lastStatusCode: 503,
      lastError: "the endpoint answered 503",
      updatedAt: T0 + 10,
    } as const;

    it("logs the attempt and applies its outcome, attempts one up, while the claim holds the delivery", async () => {
      const storage = ctx.storage();
      await storage.transaction((tx) => tx.insertWebhookDeliveries([{ ...leased, attempts: 2 }]));
      await storage.transaction((tx) =>
        tx.recordWebhookAttempt(attempt({ id: "att_1", statusCode: 503, error: "the endpoint answered 503" }), T0 + 1000, retry),
      );
      expect(await storage.getWebhookDelivery(TEST, "msg_1")).toEqual({ ...leased, ...retry, attempts: 3 });
      expect(await storage.listWebhookAttempts("msg_1")).toEqual([attempt({ id: "att_1", statusCode: 503, error: "the endpoint answered 503" })]);
      // Nothing of it stays when its transaction rolls back.
      await expect(
        storage.transaction(async (tx) => {
          await tx.recordWebhookAttempt(attempt({ id: "att_2" }), T0 + 1000, { ...retry, status: "succeeded", nextAttemptAt: null });
          throw new Error("abort");
        }),
      ).rejects.toThrow("abort");
      expect(await storage.listWebhookAttempts("msg_1")).toHaveLength(1);
      expect((await storage.getWebhookDelivery(TEST, "msg_1"))?.status).toBe("pending");
    });

    it("only logs the attempt of a claim that no longer holds the delivery, unless it succeeded", async () => {
      const storage = ctx.storage();
      // Taken over by another worker (a later lease), and one settled meanwhile (its endpoint was deleted).
      const takenOver = { ...leased, leaseUntil: T0 + 9000 };
      const settled = delivery({ id: "msg_2", status: "failed", nextAttemptAt: null, lastError: "the endpoint was deleted" });
      await storage.transaction((tx) => tx.insertWebhookDeliveries([takenOver, settled]));
      await storage.transaction(async (tx) => {
        await tx.recordWebhookAttempt(attempt({ id: "att_1" }), T0 + 1000, retry);
        await tx.recordWebhookAttempt(attempt({ id: "att_2", deliveryId: "msg_2" }), T0 + 1000, retry);
      });
      expect(await storage.getWebhookDelivery(TEST, "msg_1")).toEqual(takenOver);
      expect(await storage.getWebhookDelivery(TEST, "msg_2")).toEqual(settled);
      expect((await storage.listWebhookAttempts("msg_2")).map((a) => a.id)).toEqual(["att_2"]);
      // A success counts whoever holds the delivery: the message did arrive.
      const success = { status: "succeeded", nextAttemptAt: null, leaseUntil: null, lastStatusCode: 200, lastError: null, updatedAt: T0 + 20 } as const;
      await storage.transaction(async (tx) => {
        await tx.recordWebhookAttempt(attempt({ id: "att_3", statusCode: 200, error: null }), T0 + 1000, success);
        await tx.recordWebhookAttempt(attempt({ id: "att_4", deliveryId: "msg_2", statusCode: 200, error: null }), T0 + 1000, success);
      });
      expect(await storage.getWebhookDelivery(TEST, "msg_1")).toEqual({ ...takenOver, ...success, attempts: 1 });
      expect(await storage.getWebhookDelivery(TEST, "msg_2")).toEqual({ ...settled, ...success, attempts: 1 });
      expect((await storage.listWebhookAttempts("msg_1")).map((a) => a.id)).toEqual(["att_1", "att_3"]);
    });
  });

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
