import { describe, expect, it } from "vitest";
import type { Storage } from "../../adapters/storage/types";
import type { EventRecord, WebhookDeliveryRecord } from "../../core/types";
import type { SuiteContext } from "./context";
import { webhookDeliveryId, webhookPayload } from "../../core/outbox";
import { attempt, delivery, endpoint, event, LIVE, OTHER, T0, TEST } from "./fixtures";

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

const ids = (deliveries: WebhookDeliveryRecord[]) => deliveries.map((d) => d.id);

/** Endpoints, the delivery log, attempts, and claiming work: ordered per endpoint, one in flight, leased, never twice. */
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
      await storage.transaction((tx) => tx.updateWebhookDelivery(delivery({ id: "m1", endpointId: "we_1", eventType: "payment.created", status: "failed", createdAt: T0 + 9 })));
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
        expect(await storage.getWebhookDelivery(TEST, id)).toMatchObject({ status: "failed", nextAttemptAt: null, leaseUntil: null, lastError: "the endpoint was deleted", updatedAt: T0 + 50 });
      }
      expect((await storage.getWebhookDelivery(TEST, "a0"))?.status).toBe("succeeded");
      expect((await storage.getWebhookDelivery(TEST, "b1"))?.status).toBe("pending");
      expect(await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 1000, 10, 1000)).then(ids)).toEqual(["b1", "c1"]);
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
      // Queued deliveries are claimable work like any other, per endpoint in event order.
      const claimed = await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 50, 10, 1000));
      expect(claimed.map((d) => `${d.eventId}>${d.endpointId}`).sort()).toEqual(["evt_1>we_b", "evt_1>we_c", "evt_2>we_a", "evt_3>we_other", "evt_4>we_live"]);
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

  describe("claiming webhook deliveries", () => {
    it("claims only each endpoint's oldest pending delivery, when due, earliest due first, at most limit", async () => {
      const storage = ctx.storage();
      await queues(storage);
      // a1 is we_a's head (inserted first) although a2 is due earlier.
      expect(await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 4, 10, 1000)).then(ids)).toEqual(["b1"]);
      const claimed = await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 5, 10, 1000));
      expect(ids(claimed)).toEqual(["a1"]); // b1 is leased now
      expect(claimed[0]).toEqual(delivery({ id: "a1", endpointId: "we_a", nextAttemptAt: T0 + 5, leaseUntil: T0 + 1005 }));
      expect((await storage.getWebhookDelivery(TEST, "a1"))?.leaseUntil).toBe(T0 + 1005);
    });

    it("honours the limit, earliest due first", async () => {
      const storage = ctx.storage();
      await queues(storage);
      expect(await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 500, 2, 1000)).then(ids)).toEqual(["b1", "a1"]);
      expect(await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 500, 0, 1000)).then(ids)).toEqual([]);
    });

    it("keeps a leased head from its endpoint's next deliveries, and hands it out again once the lease ran out", async () => {
      const storage = ctx.storage();
      await queues(storage);
      expect(await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 10, 10, 100)).then(ids)).toEqual(["b1", "a1"]);
      // Leased until T0 + 110: nothing of we_a or we_b, a2 included, can be claimed before.
      expect(await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 109, 10, 100)).then(ids)).toEqual(["c1"]);
      // The worker died: at the end of the lease the same deliveries are claimed again.
      expect(await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 110, 10, 100)).then(ids)).toEqual(["b1", "a1"]);
    });

    it("moves on to an endpoint's next delivery once its head is settled, and back to an old one redelivered", async () => {
      const storage = ctx.storage();
      await queues(storage);
      const [a1] = await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 5, 1, 100).then((list) => list.filter((d) => d.id === "a1")));
      const head = a1 ?? (await storage.getWebhookDelivery(TEST, "a1"))!;
      await storage.transaction((tx) => tx.updateWebhookDelivery({ ...head, status: "succeeded", nextAttemptAt: null, leaseUntil: null, attempts: 1 }));
      expect(await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 1000, 10, 100)).then(ids)).toContain("a2");
      // a1 redelivered: pending again, it is older than a2, so it goes first once a2's lease ends.
      await storage.transaction(async (tx) => {
        const settled = await tx.lockWebhookDelivery("a1");
        await tx.updateWebhookDelivery({ ...settled!, status: "pending", nextAttemptAt: T0 + 2000 });
        const a2 = await tx.lockWebhookDelivery("a2");
        await tx.updateWebhookDelivery({ ...a2!, leaseUntil: null, nextAttemptAt: T0 + 1500 });
      });
      expect(await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 1900, 10, 100)).then((list) => ids(list).filter((id) => id.startsWith("a")))).toEqual([]);
      expect(await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 2000, 10, 100)).then((list) => ids(list).filter((id) => id.startsWith("a")))).toEqual(["a1"]);
    });

    it("claims nothing of an endpoint while one of its deliveries is leased, even an older one redelivered to the head", async () => {
      const storage = ctx.storage();
      await queues(storage);
      // a1 settles, a2 becomes the head and is claimed (leased until T0 + 1100).
      await storage.transaction(async (tx) => {
        const a1 = await tx.lockWebhookDelivery("a1");
        await tx.updateWebhookDelivery({ ...a1!, status: "succeeded", nextAttemptAt: null });
      });
      expect(await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 1000, 10, 100)).then((list) => ids(list).filter((id) => id.startsWith("a")))).toEqual(["a2"]);
      // a1 redelivered while a2 is in flight: a1 is the head again, but we_a has a request out.
      await storage.transaction(async (tx) => {
        const a1 = await tx.lockWebhookDelivery("a1");
        await tx.updateWebhookDelivery({ ...a1!, status: "pending", nextAttemptAt: T0 + 1000 });
      });
      expect(await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 1050, 10, 100)).then((list) => ids(list).filter((id) => id.startsWith("a")))).toEqual([]);
      // Once a2's lease is over, the head (a1) goes first.
      expect(await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 1100, 10, 100)).then((list) => ids(list).filter((id) => id.startsWith("a")))).toEqual(["a1"]);
    });

    it("never hands one delivery to two workers claiming at once", async () => {
      const storage = ctx.storage();
      const endpoints = Math.max(8, ctx.parallelism);
      await storage.transaction(async (tx) => {
        for (let e = 0; e < endpoints; e++) {
          await tx.insertWebhookEndpoint(endpoint({ id: `we_${e}` }));
          await tx.insertWebhookDeliveries([
            delivery({ id: `d_${e}_head`, endpointId: `we_${e}`, nextAttemptAt: T0 + e }),
            delivery({ id: `d_${e}_next`, endpointId: `we_${e}`, nextAttemptAt: T0 }),
          ]);
        }
      });
      const workers = 4;
      const perWorker = Math.ceil(endpoints / 3);
      const claims = await Promise.all(
        Array.from({ length: workers }, () =>
          storage.transaction(async (tx) => {
            const claimed = await tx.claimWebhookDeliveries(T0 + 10_000, perWorker, 60_000);
            await new Promise((resolve) => setImmediate(resolve)); // hold the claim open a moment
            return ids(claimed);
          }),
        ),
      );
      const all = claims.flat();
      expect(new Set(all).size).toBe(all.length); // nobody got a delivery someone else got
      expect(all.every((id) => id.endsWith("_head"))).toBe(true); // and only heads of queues
      // Whatever was not claimed is still there to claim; what was, is leased.
      const rest = await storage.transaction((tx) => tx.claimWebhookDeliveries(T0 + 10_000, endpoints * 2, 60_000));
      expect(ids(rest).filter((id) => all.includes(id))).toEqual([]);
      expect(all.length + rest.length).toBe(endpoints);
    });
  });
}
