import { describe, expect, it } from "vitest";
import { webhookDeliveryId, webhookPayload } from "../../core/ports/fan-out";
import type { EventRecord, WebhookDeliveryRecord } from "../../core/webhooks/records";
import type { Storage } from "../../core/ports/storage/index";
import type { SuiteContext } from "./context";
import { type FreshnessCase, freshnessTests } from "./freshness";
import { attempt, delivery, endpoint, event, ids, LIVE, OTHER, seed, T0, TEST } from "./fixtures";
import { lockTests, missingUpdateTests, uniqueTests } from "./shared";
import { queues, webhookClaimTests } from "./webhook-claims";

const settled = delivery({ status: "succeeded", attempts: 1, nextAttemptAt: null, lastStatusCode: 200, updatedAt: T0 + 1 });

const FRESHNESS: FreshnessCase[] = [
  {
    read: "listEvents",
    write: "appendEvents",
    look: async (r) => ids(await r.listEvents(TEST)),
    change: (tx) => tx.appendEvents([event({ id: "evt_2", type: "payment.completed", createdAt: T0 + 1 })]),
    after: ["evt_1", "evt_2"],
  },
  {
    read: "readEventLog",
    write: "appendEvents",
    look: async (r) => ids((await r.readEventLog(TEST, null, 10)).events),
    change: (tx) => tx.appendEvents([event({ id: "evt_2", type: "payment.completed", createdAt: T0 + 1 })]),
    after: ["evt_1", "evt_2"],
  },
  {
    read: "eventLogEnd",
    write: "appendEvents",
    // What reading after the end answers (nothing, unless the end is stale), beside the whole log.
    look: async (r) => ({
      afterEnd: ids((await r.readEventLog(TEST, await r.eventLogEnd(TEST), 10)).events),
      all: ids((await r.readEventLog(TEST, null, 10)).events),
    }),
    change: (tx) => tx.appendEvents([event({ id: "evt_2", type: "payment.completed", createdAt: T0 + 1 })]),
    after: { afterEnd: [], all: ["evt_1", "evt_2"] },
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
 * WebhookOutboxStore: the event log, the fan-out of events to subscribed endpoints, the delivery
 * log, attempts and their outcomes, and claiming work (webhook-claims.ts): each delivery on its
 * own, a bounded number in flight per endpoint, in fair turns, leased, never twice.
 */
export function webhookOutboxTests(ctx: SuiteContext): void {
  describe("WebhookOutboxStore: events, deliveries and attempts", () => {
    it("returns null, empty lists or 0n for anything never stored", async () => {
      const storage = ctx.storage();
      expect(await storage.listEvents(TEST)).toEqual([]);
      expect(await storage.getWebhookDelivery(TEST, "msg_x")).toBeNull();
      expect(await storage.listWebhookDeliveries(TEST, {}, { limit: 10 })).toEqual([]);
      expect(await storage.listWebhookAttempts("msg_x")).toEqual([]);
      await storage.transaction(async (tx) => {
        expect(await tx.lockWebhookDelivery("msg_x")).toBeNull();
        expect(await tx.failPendingWebhookDeliveries("we_x", "gone", T0)).toBe(0);
        expect(await tx.claimWebhookDeliveries(T0 * 2, 10, 1000, 10)).toEqual([]);
      });
    });

    it("answers another merchant's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getWebhookDelivery(OTHER, "msg_1")).toBeNull();
      expect(await storage.listEvents(OTHER)).toEqual([]);
      expect(await storage.listWebhookDeliveries(OTHER, {}, { limit: 10 })).toEqual([]);
    });

    it("answers the other mode's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getWebhookDelivery(LIVE, "msg_1")).toBeNull();
      expect(await storage.listEvents(LIVE)).toEqual([]);
      expect(await storage.listWebhookDeliveries(LIVE, {}, { limit: 10 })).toEqual([]);
    });

    it("lets lockWebhookDelivery reach a delivery whatever its merchant", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction(async (tx) => {
        expect((await tx.lockWebhookDelivery("msg_1"))?.id).toBe("msg_1");
      });
    });

    it("returns records as they were stored, bigints, nulls and nested data included", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.listEvents(TEST)).toEqual([event()]);
      expect(await storage.getWebhookDelivery(TEST, "msg_1")).toEqual(delivery());
      expect(await storage.listWebhookAttempts("msg_1")).toEqual([attempt()]);
    });

    it("keeps every optional field either way", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertWebhookDeliveries([
          delivery({ status: "failed", nextAttemptAt: null, leaseUntil: T0 + 5, lastStatusCode: 410, lastError: "gone", attempts: 3 }),
        ]);
        await tx.insertWebhookAttempt(attempt({ statusCode: null, error: "timeout" }));
      });
      expect((await storage.getWebhookDelivery(TEST, "msg_1"))?.leaseUntil).toBe(T0 + 5);
      expect((await storage.listWebhookAttempts("msg_1"))[0]?.statusCode).toBeNull();
    });

    it("stores a copy: mutating the record passed in changes nothing stored", async () => {
      const storage = ctx.storage();
      const evt = event();
      await storage.transaction((tx) => tx.appendEvents([evt]));
      (evt.data.metadata as Record<string, unknown>).orderId = "changed";
      expect(await storage.listEvents(TEST)).toEqual([event()]);
    });

    it("returns a copy: mutating a record read back changes nothing stored", async () => {
      const storage = ctx.storage();
      await seed(storage);
      const [evt] = await storage.listEvents(TEST);
      if (evt) evt.data.id = "changed";
      expect(await storage.listEvents(TEST)).toEqual([event()]);
    });

    uniqueTests(ctx, [["webhook delivery id", (tx) => tx.insertWebhookDeliveries([delivery({ id: "msg_new" }), delivery()])]]);

    missingUpdateTests(ctx, [["webhook delivery", (tx) => tx.updateWebhookDelivery(delivery())]]);

    it("lists events in the order appended, all of a scope or those of one resource", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.appendEvents([event({ id: "ev2", createdAt: T0 + 2 }), event({ id: "ev1", createdAt: T0 + 1, invoiceId: "inv_2" })]);
        await tx.appendEvents([event({ id: "ev3", createdAt: T0 + 3 })]);
      });
      expect((await storage.listEvents(TEST)).map((e) => e.id)).toEqual(["ev2", "ev1", "ev3"]);
      expect((await storage.listEvents(TEST, { invoiceId: "inv_1" })).map((e) => e.id)).toEqual(["ev2", "ev3"]);
    });

    it("reads the event log of a scope page by page, in the order appended, from a position it returned", async () => {
      const storage = ctx.storage();
      const empty = await storage.readEventLog(TEST, null, 10);
      expect(empty.events).toEqual([]);
      expect(await storage.readEventLog(TEST, empty.position, 10)).toEqual(empty);
      const start = await storage.eventLogEnd(TEST);
      expect(start).toMatch(/^[0-9]+(_[0-9]+)?$/);
      await storage.transaction(async (tx) => {
        await tx.appendEvents([event({ id: "ev2", createdAt: T0 + 2 }), event({ id: "ev1", createdAt: T0 + 1, invoiceId: "inv_2" })]);
        await tx.appendEvents([event({ id: "ev_other", merchantId: "m_2" }), event({ id: "ev_live", mode: "live" })]);
        await tx.appendEvents([event({ id: "ev3", createdAt: T0 + 3 })]);
      });
      const first = await storage.readEventLog(TEST, null, 2);
      expect(first.events).toEqual([event({ id: "ev2", createdAt: T0 + 2 }), event({ id: "ev1", createdAt: T0 + 1, invoiceId: "inv_2" })]);
      const second = await storage.readEventLog(TEST, first.position, 2);
      expect(ids(second.events)).toEqual(["ev3"]);
      const third = await storage.readEventLog(TEST, second.position, 2);
      expect(third).toEqual({ events: [], position: second.position });
      // The position at the end, taken before the appends, reads them all; taken after, none.
      expect(ids((await storage.readEventLog(TEST, start, 10)).events)).toEqual(["ev2", "ev1", "ev3"]);
      const end = await storage.eventLogEnd(TEST);
      expect(await storage.readEventLog(TEST, end, 10)).toEqual({ events: [], position: end });
      await storage.transaction((tx) => tx.appendEvents([event({ id: "ev4", createdAt: T0 + 4 })]));
      expect(ids((await storage.readEventLog(TEST, end, 10)).events)).toEqual(["ev4"]);
      // Other merchants' and modes' events are in their own logs only.
      expect(ids((await storage.readEventLog(OTHER, null, 10)).events)).toEqual(["ev_other"]);
      expect(ids((await storage.readEventLog(LIVE, null, 10)).events)).toEqual(["ev_live"]);
    });

    it("keeps the log newest first by insertion, filtered, one page at a time", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        // createdAt runs against insertion order on purpose: the log follows insertion.
        await tx.insertWebhookDeliveries([
          delivery({ id: "m1", endpointId: "we_1", eventType: "payment.created", createdAt: T0 + 9 }),
          delivery({ id: "m2", endpointId: "we_2", eventId: "evt_2", eventType: "payment.completed", createdAt: T0 + 8 }),
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
      expect(await page({ eventId: "evt_2" }, 10)).toEqual(["m2"]);
      expect(await page({ eventId: "evt_1", endpointId: "we_1" }, 10)).toEqual(["m4", "m3", "m1"]);
      expect(await page({ eventId: "evt_none" }, 10)).toEqual([]);
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

    lockTests(ctx, [
      [
        "lockWebhookDelivery",
        (tx) => tx.lockWebhookDelivery("msg_1"),
        (tx) => tx.updateWebhookDelivery(delivery({ status: "succeeded", nextAttemptAt: null })),
        async (tx) => (await tx.lockWebhookDelivery("msg_1"))?.status,
      ],
    ]);

    freshnessTests(ctx, FRESHNESS);

    webhookClaimTests(ctx);
  });
}
