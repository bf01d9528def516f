import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { memoryStorage } from "../../src/adapters/storage/memory/index";
import { createPaymentRouter, webhookHandler } from "../../src/index";
import { DEFAULT_RETRY_SCHEDULE } from "../../src/delivery/sender";
import {
  closeAfterTest,
  closeDeliveryTests,
  createEndpoint,
  createInvoice,
  drain,
  FAST,
  getDelivery,
  harness,
  LIFECYCLE,
  listDeliveries,
  payInFull,
  PERSISTED,
  startReceiver,
  type ReceivedRequest,
} from "./receiver";

/**
 * Each message on its own schedule: a failing delivery delays only itself, several
 * deliveries go to one endpoint at once up to its bound, every non-2xx answer is retried
 * (honouring Retry-After), a receiver can abort one message, and a delivery whose instance died
 * is taken over once its lease runs out.
 */

const servers: Server[] = [];
afterEach(async () => {
  await closeDeliveryTests();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

const orderOf = (req: ReceivedRequest) => (JSON.parse(req.body) as { data: { metadata: { orderId?: string } | null } }).data.metadata?.orderId;
const typeOf = (req: ReceivedRequest) => (JSON.parse(req.body) as { type: string }).type;

describe("a failing delivery delays only itself", () => {
  it("sends every other event to an endpoint at once while one event fails there forever, and keeps the failed one redeliverable", async () => {
    const h = await harness(); // the default schedule, every retry stored
    const receiver = await startReceiver({ decide: (req) => (orderOf(req) === "poison" ? 500 : undefined) });
    await createEndpoint(h, receiver.url, { events: LIFECYCLE }); // not payment.expired: the poison payment expires meanwhile
    await createInvoice(h, { metadata: { orderId: "poison" } });
    await h.router.tick();
    const [poison] = await listDeliveries(h);
    expect(poison).toMatchObject({ status: "pending", attemptCount: 1 });

    // Five payments later, while the poison message waits for its retry: each of their events is
    // sent in the same tick as it happened, at its first attempt.
    for (let i = 0; i < 5; i++) {
      await payInFull(h, await createInvoice(h, { metadata: { orderId: `order-${i}` } }));
      await h.router.tick();
    }
    const others = receiver.requests.filter((req) => orderOf(req) !== "poison");
    expect(others).toHaveLength(5 * 4);
    expect(
      others
        .filter((req) => typeOf(req) === "payment.completed")
        .map(orderOf)
        .sort(),
    ).toEqual(["order-0", "order-1", "order-2", "order-3", "order-4"]);
    const log = await listDeliveries(h);
    expect(log.filter((delivery) => delivery.id !== poison!.id).every((delivery) => delivery.status === "succeeded" && delivery.attemptCount === 1)).toBe(true);

    // The poison message goes through its whole schedule on its own, then stays in the log.
    for (const delay of DEFAULT_RETRY_SCHEDULE) {
      h.clock.ms += Math.ceil(delay * 1.1);
      expect((await h.router.tick()).webhooksSent).toBe(1);
    }
    const exhausted = await getDelivery(h, poison!.id);
    expect(exhausted).toMatchObject({ status: "failed", attemptCount: 8, lastStatusCode: 500 });
    expect(receiver.requests.filter((req) => orderOf(req) !== "poison")).toHaveLength(20); // nothing else was sent again
    expect((await h.post(`/v1/webhook-deliveries/${poison!.id}/redeliver`)).status).toBe(200);
    await h.router.tick();
    expect(receiver.requests.at(-1)!.headers["webhook-id"]).toBe(poison!.id);
  });

  it("delivers later payments' payment.completed at once after a receiver failed its first two deliveries", async () => {
    // The report: an order system down for its first two deliveries held five later
    // payment.completed back for the five minutes of the retry.
    const h = await harness();
    const receiver = await startReceiver({ replies: [503, 503] });
    await createEndpoint(h, receiver.url, { events: ["payment.completed"] });
    await payInFull(h, await createInvoice(h, { metadata: { orderId: "first" } }));
    await payInFull(h, await createInvoice(h, { metadata: { orderId: "second" } }));
    await h.router.tick();
    expect(await listDeliveries(h, { status: "pending" })).toHaveLength(2);

    const later = ["a", "b", "c", "d", "e"];
    for (const orderId of later) await payInFull(h, await createInvoice(h, { metadata: { orderId } }));
    await h.router.tick(); // no time has passed: nothing waited for the two retries
    expect(receiver.requests.slice(2).map(orderOf).sort()).toEqual(later);
  });
});

describe("answers that are retried", () => {
  it("retries a 404, a 401 and a 409 on the schedule and delivers once the receiver recovers", async () => {
    const h = await harness({ webhooks: { retrySchedule: [5_000, 300_000, 1_800_000], jitter: 0, intervalMs: false } });
    const receiver = await startReceiver({ replies: [404, 401, 409] });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await h.router.tick();
    const id = (await listDeliveries(h))[0]!.id;
    for (const [delay, status] of [
      [5_000, 401],
      [300_000, 409],
      [1_800_000, 200],
    ] as const) {
      const waiting = await getDelivery(h, id);
      expect(Date.parse(waiting.nextAttemptAt!) - h.clock.ms).toBe(delay);
      h.clock.ms += delay - 1;
      expect((await h.router.tick()).webhooksSent).toBe(0);
      h.clock.ms += 1;
      await h.router.tick();
      expect((await getDelivery(h, id)).lastStatusCode).toBe(status);
    }
    const delivered = await getDelivery(h, id);
    expect(delivered).toMatchObject({ status: "succeeded", attemptCount: 4 });
    expect(delivered.attempts.map((attempt) => attempt.statusCode)).toEqual([404, 401, 409, 200]);
    expect(new Set(receiver.requests.map((req) => `${req.headers["webhook-id"]} ${req.body}`)).size).toBe(1);
  });

  it("gets an event through webhookHandler's 409 for a retry that overlaps a slow first attempt", async () => {
    const h = await harness({ webhooks: { retrySchedule: [1000, 1000], jitter: 0, timeoutMs: 200, intervalMs: false } });
    let runs = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    let handler: express.RequestHandler = (_req, res) => void res.status(503).end();
    const app = express();
    app.post("/hooks/pay", (req, res, next) => handler(req, res, next));
    const server = app.listen(0, "127.0.0.1");
    servers.push(server);
    await new Promise((resolve) => server.once("listening", resolve));
    const endpoint = await createEndpoint(h, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/pay`);
    handler = webhookHandler({
      secret: endpoint.secret,
      now: h.clock.now,
      logger: { warn: () => undefined, error: () => undefined },
      on: {
        "payment.created": async () => {
          runs++;
          await gate; // slower than the sender's 200 ms timeout
          finished();
        },
      },
    }) as express.RequestHandler;
    await createInvoice(h);

    await h.router.tick(); // times out: the handler is still running
    h.clock.ms += 1000;
    await h.router.tick(); // the retry overlaps it: 409 with Retry-After: 5
    const id = (await listDeliveries(h))[0]!.id;
    const waiting = await getDelivery(h, id);
    expect(waiting).toMatchObject({ status: "pending", lastStatusCode: 409 });
    expect(Date.parse(waiting.nextAttemptAt!) - h.clock.ms).toBe(5000); // Retry-After beats the 1 s schedule

    open();
    await done;
    h.clock.ms += 4999;
    expect((await h.router.tick()).webhooksSent).toBe(0);
    h.clock.ms += 1;
    await h.router.tick(); // now a duplicate of a processed id: 200
    const delivered = await getDelivery(h, id);
    expect(delivered.status).toBe("succeeded");
    expect(delivered.attempts.map((attempt) => attempt.statusCode)).toEqual([null, 409, 200]);
    expect(runs).toBe(1);
  });

  it.each([
    ["404 with Retry-After in seconds", { status: 404, headers: { "retry-after": "120" } }, 120_000],
    ["500 with a Retry-After date", { status: 500, headers: { "retry-after": "DATE+600" } }, 600_000],
    ["429 with a Retry-After of a year, taken as a day", { status: 429, headers: { "retry-after": String(365 * 86_400) } }, 86_400_000],
  ])("waits as a %s asks, not for the shorter schedule", async (_what, reply, wait) => {
    const h = await harness({ webhooks: FAST });
    const headers = { "retry-after": reply.headers["retry-after"].replace("DATE+600", new Date(h.clock.ms + 600_000).toUTCString()) };
    const receiver = await startReceiver({ replies: [{ status: reply.status, headers }] });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await h.router.tick();
    const [delivery] = await listDeliveries(h);
    expect(delivery).toMatchObject({ status: "pending", attemptCount: 1 });
    expect(Date.parse(delivery!.nextAttemptAt!) - h.clock.ms).toBe(wait);
    h.clock.ms += wait - 1000;
    expect((await h.router.tick()).webhooksSent).toBe(0);
    h.clock.ms += 1000;
    await h.router.tick();
    expect((await getDelivery(h, delivery!.id)).status).toBe("succeeded");
  });
});

describe("webhook-delivery: abort-message", () => {
  it.each([
    ["a 500", { status: 500, headers: { "webhook-delivery": "abort-message" } }],
    ["a 409, in another case among other directives", { status: 409, headers: { "webhook-delivery": "foo, Abort-Message" } }],
  ])("stops retrying the one message answered with it on %s; the others go on", async (_what, aborted) => {
    const h = await harness({ webhooks: PERSISTED });
    const receiver = await startReceiver({ decide: (req) => (typeOf(req) === "payment.confirmed" ? aborted : undefined) });
    await createEndpoint(h, receiver.url);
    await payInFull(h, await createInvoice(h));
    await drain(h);
    h.clock.advanceMinutes(5);
    await drain(h);

    expect(receiver.requests.map(typeOf).sort()).toEqual([...LIFECYCLE].sort()); // sent once each
    const [confirmed] = await listDeliveries(h, { eventType: "payment.confirmed" });
    expect(confirmed).toMatchObject({ status: "failed", attemptCount: 1, nextAttemptAt: null, lastStatusCode: aborted.status });
    expect(confirmed!.lastError).toMatch(/abort-message/);
    expect(await listDeliveries(h, { status: "succeeded" })).toHaveLength(3);
    // Stopped, not lost: it can be sent again.
    expect((await h.post(`/v1/webhook-deliveries/${confirmed!.id}/redeliver`)).status).toBe(200);
    await drain(h);
    expect(receiver.requests).toHaveLength(5);
  });

  it("changes nothing on a 2xx", async () => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver({ replies: [{ status: 200, headers: { "webhook-delivery": "abort-message" } }] });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await drain(h);
    expect((await listDeliveries(h))[0]).toMatchObject({ status: "succeeded", attemptCount: 1, lastError: null });
  });
});

describe("deliveries in flight", () => {
  it("keeps at most concurrencyPerEndpoint requests open to one endpoint", async () => {
    const h = await harness({ webhooks: { intervalMs: 20, retrySchedule: [], concurrencyPerEndpoint: 3 } });
    const receiver = await startReceiver({ fallback: "hang" });
    await createEndpoint(h, receiver.url);
    for (let i = 0; i < 3; i++) await payInFull(h, await createInvoice(h)); // twelve events

    await expect.poll(() => receiver.requests.length, { timeout: 1000, interval: 10 }).toBe(3);
    await sleep(200); // ten sender passes: nothing more goes out while three are open
    expect(receiver.requests).toHaveLength(3);
    // Answer what is open, a few at a time, until all twelve arrived.
    await expect
      .poll(
        () => {
          receiver.release();
          return receiver.requests.length;
        },
        { timeout: 5000, interval: 20 },
      )
      .toBe(12);
    expect(receiver.maxOpen()).toBe(3);
    expect(new Set(receiver.requests.map((req) => req.headers["webhook-id"])).size).toBe(12);
  });

  it("shares the instance's slots: a hanging endpoint holds only its own share, other endpoints and merchants go on", async () => {
    const h = await harness({ webhooks: { intervalMs: 20, retrySchedule: [], concurrency: 5, concurrencyPerEndpoint: 3 } });
    const dead = await startReceiver({ fallback: "hang" });
    const alive = await startReceiver();
    const neighbour = await startReceiver();
    await createEndpoint(h, dead.url);
    await createEndpoint(h, alive.url);
    await createEndpoint(h, neighbour.url, { key: h.otherTestKey });
    for (let i = 0; i < 4; i++) await payInFull(h, await createInvoice(h)); // sixteen events for each of ours

    await expect.poll(() => alive.requests.length, { timeout: 2000, interval: 10 }).toBe(16);
    await createInvoice(h, {}, h.otherTestKey);
    await expect.poll(() => neighbour.requests.length, { timeout: 1000, interval: 10 }).toBe(1);
    expect(dead.requests).toHaveLength(3);
    expect(dead.maxOpen()).toBe(3);
  });

  it("takes a delivery over once the lease of an instance that stopped answering ran out; the old instance's late answer is only logged", async () => {
    const storage = memoryStorage();
    const h = await harness({ storage });
    const receiver = await startReceiver({ replies: ["hang"] });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    const stuck = h.router.tick(); // this instance's request hangs (as if the instance froze)
    await expect.poll(() => receiver.requests.length, { timeout: 1000, interval: 10 }).toBe(1);
    const [claimed] = await listDeliveries(h);

    const other = closeAfterTest(
      createPaymentRouter({
        storage,
        now: h.clock.now,
        logger: h.logger,
        backgroundIntervalMs: false,
        webhooks: { intervalMs: false, allowPrivateUrls: true },
      }),
    );
    expect((await other.tick()).webhooksSent).toBe(0);
    h.clock.ms += 25_000 - 1; // the default lease: timeoutMs (15 s) + 10 s
    expect((await other.tick()).webhooksSent).toBe(0);
    h.clock.ms += 1;
    expect((await other.tick()).webhooksSent).toBe(1);
    expect((await getDelivery(h, claimed!.id)).status).toBe("succeeded");

    receiver.release(500); // the first instance's answer comes in at last
    await stuck;
    const delivery = await getDelivery(h, claimed!.id);
    expect(delivery.status).toBe("succeeded"); // a late failure does not undo a success
    expect(delivery.attempts.map((attempt) => attempt.statusCode).sort()).toEqual([200, 500]);
    expect(new Set(receiver.requests.map((req) => `${req.headers["webhook-id"]} ${req.body}`)).size).toBe(1);
  });
});
