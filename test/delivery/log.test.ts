import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { EVENT_STATUSES } from "../../src/webhooks/index";
import { EVENT_TYPES } from "../../src/storage";
import { type EventType, verifyWebhook } from "../../src/index";
import type { Harness } from "../helpers";
import {
  closeDeliveryTests,
  createEndpoint,
  createInvoice,
  del,
  drain,
  FAST,
  get,
  getDelivery,
  harness,
  LIFECYCLE,
  listDeliveries,
  ONCE,
  payInFull,
  PERSISTED,
  signedWith,
  startReceiver,
  type DeliveryView,
} from "./receiver";

/** The delivery log (GET /v1/webhook-deliveries), redelivery and test events. */

const DELIVERIES = "/v1/webhook-deliveries";
afterEach(closeDeliveryTests);

function expectStatus(res: { status: number; body: { error?: unknown } }, status: number, code: number): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error).toBe(code);
}

/** Queues `count` test events to an endpoint and returns their delivery ids, oldest first. */
async function queueTestEvents(h: Harness, endpointId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await h.post(`/v1/webhook-endpoints/${endpointId}/test`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(res.body.id);
  }
  return ids;
}

describe("test events", () => {
  it("sends a payment.created marked test: true through the normal delivery path", async () => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver();
    // Subscribed to something else: a test event goes to the endpoint whatever it subscribes to.
    const endpoint = await createEndpoint(h, receiver.url, { events: ["payment.completed"] });
    const res = await h.post(`/v1/webhook-endpoints/${endpoint.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^msg_/),
      object: "webhook_delivery",
      endpointId: endpoint.id,
      eventType: "payment.created",
      status: "pending",
      attemptCount: 0,
      attempts: [],
    });

    await h.router.tick();
    expect(receiver.requests).toHaveLength(1);
    const req = receiver.requests[0]!;
    expect(req.headers["webhook-id"]).toBe(res.body.id);
    expect(signedWith(req, endpoint.secret)).toBe(true);
    const [event] = receiver.events();
    expect(event!.type).toBe("payment.created");
    expect(event!.data.test).toBe(true);
    expect(event!.data).toMatchObject({ object: "payment", livemode: false, status: "PENDING", metadata: { orderId: "test-order" } });
    expect((await getDelivery(h, res.body.id)).status).toBe("succeeded");
  });

  it("sends an event of every type named in `type`, its sample resource in that type's status, which the receiver's checks accept", async () => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver();
    const endpoint = await createEndpoint(h, receiver.url);
    for (const type of EVENT_TYPES) {
      const res = await h.post(`/v1/webhook-endpoints/${endpoint.id}/test`, { type });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.eventType).toBe(type);
    }
    await drain(h);
    expect(receiver.requests).toHaveLength(EVENT_TYPES.length);
    const objects = { payment: "payment", payout: "withdrawal", refund: "refund", conversion: "conversion", subscription: "subscription" } as const;
    for (const req of receiver.requests) {
      // verifyWebhook checks the signature and the body against the event schemas, status included.
      const event = verifyWebhook(req.body, req.headers as Record<string, string>, endpoint.secret, { now: () => h.clock.ms });
      expect(event.data).toMatchObject({ test: true, object: objects[event.type.split(".")[0] as keyof typeof objects] });
      expect(EVENT_STATUSES[event.type as EventType] as readonly string[]).toContain((event.data as { status: string }).status);
    }
    expect(receiver.events().map((event) => event.type)).toEqual([...EVENT_TYPES]);
    // Nothing of it is in the event log.
    expect((await get(h, "/v1/events")).body.data).toEqual([]);
  });

  it("refuses an unknown type or another field with 400 (40001)", async () => {
    const h = await harness();
    const endpoint = await createEndpoint(h, "https://shop.example/hook");
    expectStatus(await h.post(`/v1/webhook-endpoints/${endpoint.id}/test`, { type: "payment.paid" }), 400, 40001);
    expectStatus(await h.post(`/v1/webhook-endpoints/${endpoint.id}/test`, { type: "payment.completed", extra: 1 }), 400, 40001);
  });
});

describe("redelivery", () => {
  it("queues a failed delivery again with the same webhook-id and body, and it succeeds", async () => {
    const h = await harness({ webhooks: ONCE });
    const receiver = await startReceiver({ replies: [400] });
    const endpoint = await createEndpoint(h, receiver.url);
    await createInvoice(h, { metadata: { orderId: "order-9" } });
    await drain(h);
    const [failed] = await listDeliveries(h);
    expect(failed).toMatchObject({ status: "failed", lastStatusCode: 400 });

    const res = await h.post(`${DELIVERIES}/${failed!.id}/redeliver`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: failed!.id, status: "pending", nextAttemptAt: new Date(h.clock.ms).toISOString() });

    await drain(h);
    expect(receiver.requests).toHaveLength(2);
    const [first, again] = receiver.requests;
    expect(again!.headers["webhook-id"]).toBe(failed!.id);
    expect(again!.body).toBe(first!.body);
    expect(signedWith(again!, endpoint.secret)).toBe(true);
    const delivered = await getDelivery(h, failed!.id);
    expect(delivered.status).toBe("succeeded");
    expect(delivered.attempts.map((attempt) => attempt.statusCode)).toEqual([400, 200]);
  });

  it("sends a succeeded delivery again when asked", async () => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver();
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await drain(h);
    const [delivery] = await listDeliveries(h);
    expect((await h.post(`${DELIVERIES}/${delivery!.id}/redeliver`)).status).toBe(200);
    await drain(h);
    expect(receiver.requests.map((req) => req.headers["webhook-id"])).toEqual([delivery!.id, delivery!.id]);
  });

  it("sends a redelivered event at once, whatever else of its endpoint waits for a retry", async () => {
    const h = await harness({ webhooks: PERSISTED });
    const aborted = { status: 400, headers: { "webhook-delivery": "abort-message" } };
    const receiver = await startReceiver({ replies: [aborted] });
    await createEndpoint(h, receiver.url);
    const invoice = await createInvoice(h);
    await drain(h); // payment.created is aborted by the receiver: failed for good
    const created = (await listDeliveries(h, { eventType: "payment.created" }))[0]!;
    expect(created.status).toBe("failed");

    receiver.reply(503); // the first of the next three waits a minute for its retry
    await payInFull(h, invoice);
    await drain(h);
    expect(await listDeliveries(h, { status: "pending" })).toHaveLength(1);

    expect((await h.post(`${DELIVERIES}/${created.id}/redeliver`)).status).toBe(200);
    await drain(h);
    expect(receiver.requests.at(-1)!.headers["webhook-id"]).toBe(created.id);
    expect(await getDelivery(h, created.id)).toMatchObject({ status: "succeeded" });

    h.clock.advanceMinutes(2);
    await drain(h);
    expect(await listDeliveries(h, { status: "pending" })).toEqual([]);
    expect(new Set(receiver.events().map((event) => event.type))).toEqual(new Set(LIFECYCLE));
  });

  it("holds a redelivered event back while the endpoint has its concurrencyPerEndpoint in flight", async () => {
    const h = await harness({ webhooks: { intervalMs: 20, timeoutMs: 5000, retrySchedule: [], concurrencyPerEndpoint: 1 } });
    const receiver = await startReceiver({ replies: [400, "hang"] });
    await createEndpoint(h, receiver.url);
    const invoice = await createInvoice(h);
    await expect.poll(async () => (await listDeliveries(h))[0]?.status, { timeout: 1000, interval: 10 }).toBe("failed");
    const [failed] = await listDeliveries(h);

    await payInFull(h, invoice);
    await expect.poll(() => receiver.requests.length, { timeout: 1000, interval: 10 }).toBe(2); // one of the three hangs

    expect((await h.post(`${DELIVERIES}/${failed!.id}/redeliver`)).status).toBe(200);
    await sleep(200); // ten sender passes
    // One at a time to this endpoint: nothing more may go out while that one is in flight.
    expect(receiver.requests).toHaveLength(2);

    receiver.release(200);
    await expect.poll(() => receiver.requests.length, { timeout: 1000, interval: 10 }).toBe(5);
    expect(receiver.maxOpen()).toBe(1);
    expect(
      receiver
        .events()
        .map((event) => event.type)
        .sort(),
    ).toEqual(["payment.created", ...LIFECYCLE].sort());
  });

  it("leaves a pending delivery as it is", async () => {
    const h = await harness({ webhooks: PERSISTED });
    const receiver = await startReceiver({ replies: [503] });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await h.router.tick();
    const before = await getDelivery(h, (await listDeliveries(h))[0]!.id);
    expect(before.status).toBe("pending");

    const res = await h.post(`${DELIVERIES}/${before.id}/redeliver`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(before);
    expect(await getDelivery(h, before.id)).toEqual(before);
    expect((await h.router.tick()).webhooksSent).toBe(0);
    expect(receiver.requests).toHaveLength(1);
  });

  it("refuses with 409 (40902) when the endpoint was disabled by a 410", async () => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver({ fallback: 410 });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await drain(h);
    const [delivery] = await listDeliveries(h);
    const res = await h.post(`${DELIVERIES}/${delivery!.id}/redeliver`);
    expectStatus(res, 409, 40902);
    expect(res.body.message).toMatch(/disabled/);
    expect((await getDelivery(h, delivery!.id)).status).toBe("failed");
  });

  it("refuses with 409 (40902) when the endpoint was deleted", async () => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver({ replies: [400] });
    const endpoint = await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await drain(h);
    const [delivery] = await listDeliveries(h);
    expect((await del(h, `/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(200);
    expectStatus(await h.post(`${DELIVERIES}/${delivery!.id}/redeliver`), 409, 40902);
  });

  it("answers 404 (40401) to another merchant's or another mode's delivery, and sends nothing", async () => {
    const h = await harness({ webhooks: ONCE });
    const receiver = await startReceiver({ replies: [400] });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await drain(h);
    const [delivery] = await listDeliveries(h);
    for (const key of [h.otherTestKey, h.liveKey]) {
      expectStatus(await h.post(`${DELIVERIES}/${delivery!.id}/redeliver`, undefined, key), 404, 40401);
      expectStatus(await get(h, `${DELIVERIES}/${delivery!.id}`, key), 404, 40401);
    }
    expectStatus(await h.post(`${DELIVERIES}/msg_nope/redeliver`), 404, 40401);
    await drain(h);
    expect(receiver.requests).toHaveLength(1);
    expect((await getDelivery(h, delivery!.id)).status).toBe("failed");
  });
});

describe("the delivery log", () => {
  it("lists each attempt with its status code, duration and error", async () => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver({ replies: [503, 500] });
    const endpoint = await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await drain(h);
    const [delivery] = await listDeliveries(h);
    expect(delivery).toMatchObject({
      object: "webhook_delivery",
      livemode: false,
      endpointId: endpoint.id,
      eventId: expect.stringMatching(/^evt_/),
      status: "succeeded",
      attemptCount: 3,
    });
    expect(delivery!.attempts).toHaveLength(3);
    for (const attempt of delivery!.attempts) {
      expect(typeof attempt.durationMs).toBe("number");
      expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
      expect(Number.isNaN(Date.parse(attempt.at))).toBe(false);
    }
    expect(delivery!.attempts.map((attempt) => [attempt.statusCode, attempt.error])).toEqual([
      [503, expect.stringMatching(/503/)],
      [500, expect.stringMatching(/500/)],
      [200, null],
    ]);
    expect(await getDelivery(h, delivery!.id)).toEqual(delivery);
  });

  it("filters by endpoint, event type and status", async () => {
    const h = await harness({ webhooks: FAST });
    const good = await startReceiver();
    const bad = await startReceiver({ fallback: 400 });
    const goodEndpoint = await createEndpoint(h, good.url);
    const badEndpoint = await createEndpoint(h, bad.url);
    await payInFull(h, await createInvoice(h));
    await drain(h);

    const byEndpoint = await listDeliveries(h, { endpointId: badEndpoint.id });
    expect(byEndpoint).toHaveLength(4);
    expect(byEndpoint.every((delivery) => delivery.endpointId === badEndpoint.id)).toBe(true);

    const completed = await listDeliveries(h, { eventType: "payment.completed" });
    expect(completed.map((delivery) => delivery.endpointId).sort()).toEqual([goodEndpoint.id, badEndpoint.id].sort());

    const failed = await listDeliveries(h, { status: "failed" });
    expect(failed.map((delivery) => delivery.endpointId)).toEqual(Array(4).fill(badEndpoint.id));
    expect((await listDeliveries(h, { status: "succeeded" })).every((delivery) => delivery.endpointId === goodEndpoint.id)).toBe(true);
    expect(await listDeliveries(h, { status: "pending" })).toEqual([]);

    const combined = await listDeliveries(h, { endpointId: goodEndpoint.id, eventType: "payment.confirming", status: "succeeded" });
    expect(combined).toHaveLength(1);
    expect(await listDeliveries(h, { endpointId: "we_unknown" })).toEqual([]);
  });

  it("walks 25 deliveries in pages of 10, newest first, each exactly once", async () => {
    const h = await harness({ webhooks: FAST });
    const endpoint = await createEndpoint(h, "https://shop.example/hook");
    const created = await queueTestEvents(h, endpoint.id, 25);

    const seen: string[] = [];
    const pages: number[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const res = await get(h, DELIVERIES).query({ limit: 10, ...(cursor ? { cursor } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      pages.push(res.body.data.length);
      seen.push(...res.body.data.map((delivery: DeliveryView) => delivery.id));
      expect(res.body.hasMore).toBe(res.body.nextCursor !== null);
      cursor = res.body.nextCursor;
      if (!res.body.hasMore) break;
    }
    expect(pages).toEqual([10, 10, 5]);
    expect(seen).toEqual([...created].reverse());
  });

  it("keeps its pages stable while new deliveries are recorded", async () => {
    const h = await harness({ webhooks: FAST });
    const endpoint = await createEndpoint(h, "https://shop.example/hook");
    const created = await queueTestEvents(h, endpoint.id, 6);
    const first = await get(h, DELIVERIES).query({ limit: 3 });
    await queueTestEvents(h, endpoint.id, 2);
    const second = await get(h, DELIVERIES).query({ limit: 3, cursor: first.body.nextCursor });
    expect(second.body.data.map((delivery: DeliveryView) => delivery.id)).toEqual(created.slice(0, 3).reverse());
    expect(second.body.hasMore).toBe(false);
  });

  it("pages through a filtered list", async () => {
    const h = await harness({ webhooks: FAST });
    const one = await createEndpoint(h, "https://shop.example/one");
    const two = await createEndpoint(h, "https://shop.example/two");
    const ones: string[] = [];
    for (let i = 0; i < 5; i++) {
      ones.push(...(await queueTestEvents(h, one.id, 1)));
      await queueTestEvents(h, two.id, 1);
    }
    const first = await get(h, DELIVERIES).query({ limit: 3, endpointId: one.id });
    const second = await get(h, DELIVERIES).query({ limit: 3, endpointId: one.id, cursor: first.body.nextCursor });
    expect([...first.body.data, ...second.body.data].map((delivery: DeliveryView) => delivery.id)).toEqual([...ones].reverse());
    expect(second.body).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it("answers 20 deliveries by default", async () => {
    const h = await harness({ webhooks: FAST });
    const endpoint = await createEndpoint(h, "https://shop.example/hook");
    await queueTestEvents(h, endpoint.id, 21);
    const res = await get(h, DELIVERIES);
    expect(res.body.data).toHaveLength(20);
    expect(res.body.hasMore).toBe(true);
  });

  it.each([
    ["an unknown cursor", { cursor: "msg_unknown" }],
    ["limit 0", { limit: 0 }],
    ["limit 101", { limit: 101 }],
    ["a limit that is not a number", { limit: "ten" }],
    ["a fractional limit", { limit: 2.5 }],
    ["an unknown status", { status: "queued" }],
    ["an unknown event type", { eventType: "payment.refunded" }],
    ["an unknown query parameter", { endpoint: "we_1" }],
  ])("refuses %s with 400 (40001)", async (_what, query) => {
    const h = await harness();
    expectStatus(await get(h, DELIVERIES).query(query), 400, 40001);
  });

  it("refuses another merchant's delivery id as a cursor", async () => {
    const h = await harness();
    const endpoint = await createEndpoint(h, "https://shop.example/hook");
    const [id] = await queueTestEvents(h, endpoint.id, 1);
    expectStatus(await get(h, DELIVERIES, h.otherTestKey).query({ cursor: id! }), 400, 40001);
    expectStatus(await get(h, DELIVERIES, h.liveKey).query({ cursor: id! }), 400, 40001);
  });

  it("shows each merchant and mode only its own deliveries", async () => {
    const h = await harness({ webhooks: FAST });
    const endpoint = await createEndpoint(h, "https://shop.example/hook");
    await queueTestEvents(h, endpoint.id, 2);
    expect(await listDeliveries(h)).toHaveLength(2);
    expect(await listDeliveries(h, {}, h.otherTestKey)).toEqual([]);
    expect(await listDeliveries(h, {}, h.liveKey)).toEqual([]);
  });
});

describe("deleting an endpoint with queued deliveries", () => {
  it("fails its pending deliveries, sends none of them and keeps them in the log", async () => {
    const h = await harness({ webhooks: PERSISTED });
    const receiver = await startReceiver({ fallback: 503 });
    const endpoint = await createEndpoint(h, receiver.url);
    await payInFull(h, await createInvoice(h));
    await h.router.tick(); // each of the four fails once and waits a minute for its retry
    expect(receiver.requests).toHaveLength(4);
    expect(await listDeliveries(h, { status: "pending" })).toHaveLength(4);

    expect((await del(h, `/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(200);
    const log = await listDeliveries(h, { endpointId: endpoint.id });
    expect(log).toHaveLength(4);
    for (const delivery of log) {
      expect(delivery).toMatchObject({ status: "failed", nextAttemptAt: null, lastError: expect.stringMatching(/deleted/) });
    }

    h.clock.advanceMinutes(5);
    expect((await h.router.tick()).webhooksSent).toBe(0);
    expect(receiver.requests).toHaveLength(4);
  });
});
