import pg from "pg";
import { simulatedLiveChain } from "../helpers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { memoryStorage } from "../../src/adapters/storage/memory/index";
import type { Storage, StorageTransaction } from "../../src/core/ports/storage/index";
import { createPaymentRouter } from "../../src/index";
import { postgresStorage } from "../../src/postgres";
import { DATABASE_URL, uniqueSchema } from "../adapters/storage/sql-fixtures";
import { generateWebhookSecret } from "../../src/webhook-secret";
import type { Harness } from "../helpers";
import {
  closeAfterTest,
  closeDeliveryTests,
  createEndpoint,
  createInvoice,
  drain,
  FAST,
  get,
  getDelivery,
  harness,
  LIFECYCLE,
  listDeliveries,
  payInFull,
  PERSISTED,
  signaturesOf,
  signedWith,
  startReceiver,
} from "./receiver";

/**
 * The webhook sender, end to end: events recorded by the service reach real HTTP receivers on
 * 127.0.0.1, signed, each with retries on its own schedule and the answers' rules.
 */

afterEach(closeDeliveryTests);

const testScope = (h: Harness) => ({ merchantId: h.merchant.id, mode: "test" as const });

describe("delivering an event", () => {
  it("posts the invoice's event on tick with the three headers, JSON content and a signature that verifies", async () => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver();
    const endpoint = await createEndpoint(h, receiver.url);
    const invoice = await createInvoice(h, { metadata: { orderId: "order-42" } });
    expect(receiver.requests).toHaveLength(0); // nothing is sent until the sender runs

    expect((await h.router.tick()).webhooksSent).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    const req = receiver.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/hook");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["user-agent"]).toMatch(/express-crypto-pay/);
    expect(req.headers["webhook-id"]).toMatch(/^msg_/);
    expect(req.headers["webhook-timestamp"]).toBe(String(Math.floor(h.clock.ms / 1000)));
    expect(signaturesOf(req)).toHaveLength(1);
    expect(signedWith(req, endpoint.secret)).toBe(true);
    expect(signedWith(req, generateWebhookSecret())).toBe(false);

    const body = JSON.parse(req.body);
    expect(Object.keys(body).sort()).toEqual(["data", "timestamp", "type"]);
    expect(body.type).toBe("payment.created");
    expect(body.timestamp).toBe(new Date(h.clock.ms).toISOString());
    expect(body.data).toMatchObject({ id: invoice.id, object: "payment", livemode: false, status: "PENDING", currency: "USDT", chain: "TRX" });
    expect(body.data.metadata).toEqual({ orderId: "order-42" });

    const [delivery] = await listDeliveries(h);
    expect(delivery).toMatchObject({
      id: req.headers["webhook-id"],
      endpointId: endpoint.id,
      eventType: "payment.created",
      status: "succeeded",
      attemptCount: 1,
      lastStatusCode: 200,
    });
  });

  it("delivers the whole lifecycle, retrying an event's 500s with the same webhook-id and body", async () => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver({ replies: [500, 500] });
    const endpoint = await createEndpoint(h, receiver.url);
    const invoice = await createInvoice(h, { metadata: { orderId: "order-7" } });
    await drain(h); // payment.created: 500, 500, then 200
    await payInFull(h, invoice);
    await drain(h);

    const [first, second, third] = receiver.requests;
    expect(
      receiver
        .events()
        .slice(0, 3)
        .map((event) => event.type),
    ).toEqual(["payment.created", "payment.created", "payment.created"]);
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(third!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(new Set([second!.body, third!.body])).toEqual(new Set([first!.body]));
    expect(new Set(receiver.requests.map((req) => req.headers["webhook-id"])).size).toBe(4);
    for (const req of receiver.requests) expect(signedWith(req, endpoint.secret)).toBe(true);
    // The later three go out together, in no promised order; each carries the payment as it was.
    expect(
      receiver
        .events()
        .map((event) => event.type)
        .sort(),
    ).toEqual(["payment.created", "payment.created", ...LIFECYCLE].sort());
    expect(receiver.events().map((event) => event.data.metadata?.orderId)).toEqual(Array(6).fill("order-7"));
    const statusOf = Object.fromEntries(receiver.events().map((event) => [event.type, event.data.status]));
    expect(statusOf).toEqual({ "payment.created": "PENDING", "payment.confirming": "CONFIRMING", "payment.confirmed": "PAID", "payment.completed": "PAID" });

    const log = await listDeliveries(h);
    expect(log.map((delivery) => delivery.eventType)).toEqual([...LIFECYCLE].reverse());
    expect(log.every((delivery) => delivery.status === "succeeded")).toBe(true);
    expect(log.at(-1)!.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 500, 200]);
  });

  it("sends an endpoint only the event types it subscribed to, each signed with its own secret", async () => {
    const h = await harness({ webhooks: FAST });
    const completedOnly = await startReceiver();
    const everything = await startReceiver();
    const narrow = await createEndpoint(h, completedOnly.url, { events: ["payment.completed"] });
    const wide = await createEndpoint(h, everything.url);
    await payInFull(h, await createInvoice(h));

    await drain(h);
    expect(completedOnly.events().map((event) => event.type)).toEqual(["payment.completed"]);
    expect(everything.events().map((event) => event.type)).toEqual(LIFECYCLE);
    expect(signedWith(completedOnly.requests[0]!, narrow.secret)).toBe(true);
    expect(signedWith(completedOnly.requests[0]!, wide.secret)).toBe(false);
    expect(await listDeliveries(h, { endpointId: narrow.id })).toHaveLength(1);
  });

  it("delivers payment.expired to an endpoint that subscribed to it", async () => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver();
    await createEndpoint(h, receiver.url, { events: ["payment.expired"] });
    const invoice = await createInvoice(h, { metadata: { orderId: "order-late" } });
    const expired = await h.post("/api/v1/sandbox/invoice/expire", { invoiceId: invoice.id });
    expect(expired.status, JSON.stringify(expired.body)).toBe(200);
    await drain(h);
    expect(receiver.events().map((event) => [event.type, event.data.status, event.data.metadata?.orderId])).toEqual([
      ["payment.expired", "EXPIRED", "order-late"],
    ]);
  });

  it("signs the exact UTF-8 bytes of a body with non-ASCII metadata", async () => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver();
    const endpoint = await createEndpoint(h, receiver.url);
    await createInvoice(h, { metadata: { orderId: "заказ-№7 🧾", note: "crème brûlée" } });
    await drain(h);
    const req = receiver.requests[0]!;
    expect(Number(req.headers["content-length"])).toBe(Buffer.byteLength(req.body));
    expect(signedWith(req, endpoint.secret)).toBe(true);
    expect(receiver.events()[0]!.data.metadata).toEqual({ orderId: "заказ-№7 🧾", note: "crème brûlée" });
  });

  it("sends another merchant's endpoint none of this merchant's events", async () => {
    const h = await harness({ webhooks: FAST });
    const mine = await startReceiver();
    const theirs = await startReceiver();
    await createEndpoint(h, mine.url);
    await createEndpoint(h, theirs.url, { key: h.otherTestKey });
    await payInFull(h, await createInvoice(h));
    await drain(h);
    expect(mine.events().map((event) => event.type)).toEqual(LIFECYCLE);
    expect(theirs.requests).toHaveLength(0);
  });

  it("keeps test-mode events from live endpoints and live-mode events from test endpoints", async () => {
    const liveChain = simulatedLiveChain();
    const h = await harness({ liveChain, webhooks: { ...FAST, allowPrivateUrls: true } });
    const testReceiver = await startReceiver();
    const liveReceiver = await startReceiver();
    await createEndpoint(h, testReceiver.url);
    await createEndpoint(h, liveReceiver.url, { key: h.liveKey });

    const testInvoice = await createInvoice(h);
    await drain(h);
    expect(testReceiver.events().map((event) => event.data.id)).toEqual([testInvoice.id]);
    expect(liveReceiver.requests).toHaveLength(0);

    const liveInvoice = await createInvoice(h, {}, h.liveKey);
    await drain(h);
    expect(liveReceiver.events().map((event) => [event.data.id, event.data.livemode])).toEqual([[liveInvoice.id, true]]);
    expect(testReceiver.requests).toHaveLength(1);
  });
});

describe("the receiver's answers", () => {
  // Anything but a 2xx may succeed later: a 4xx is often a receiver not ready yet (a deploy
  // rolling out, a secret being rotated, webhookHandler's 409 for a delivery still in progress).
  it.each([400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503, 504])("retries after a %i and then succeeds", async (status) => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver({ replies: [status] });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await drain(h);
    const [delivery] = await listDeliveries(h);
    expect(delivery).toMatchObject({ status: "succeeded", attemptCount: 2, lastStatusCode: 200, lastError: null });
    expect(delivery!.attempts.map((attempt) => attempt.statusCode)).toEqual([status, 200]);
    expect(delivery!.attempts[0]!.error).toMatch(new RegExp(String(status)));
    expect(new Set(receiver.requests.map((req) => req.body)).size).toBe(1);
  });

  it("does not follow a redirect, and retries it like any other failure", async () => {
    const h = await harness({ webhooks: FAST });
    const target = await startReceiver();
    const receiver = await startReceiver({ replies: [{ status: 302, headers: { location: target.url } }] });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await drain(h);
    expect(receiver.requests).toHaveLength(2);
    expect(target.requests).toHaveLength(0);
    const [delivery] = await listDeliveries(h);
    expect(delivery).toMatchObject({ status: "succeeded", attemptCount: 2 });
    expect(delivery!.attempts.map((attempt) => attempt.statusCode)).toEqual([302, 200]);
  });

  it("disables the endpoint on a 410 and fails its other pending deliveries", async () => {
    const h = await harness({ webhooks: PERSISTED });
    const receiver = await startReceiver({ replies: [503], fallback: 410 });
    const other = await startReceiver();
    const gone = await createEndpoint(h, receiver.url);
    const kept = await createEndpoint(h, other.url);
    const invoice = await createInvoice(h);
    await h.router.tick(); // payment.created: 503, waits a minute for its retry
    await payInFull(h, invoice);
    await drain(h); // the other three go out together and are answered 410

    expect(receiver.requests).toHaveLength(4); // a 410 is never retried
    expect(
      other
        .events()
        .map((event) => event.type)
        .sort(),
    ).toEqual([...LIFECYCLE].sort());
    const endpoint = await get(h, `/v1/webhook-endpoints/${gone.id}`);
    expect(endpoint.body).toMatchObject({ status: "disabled", disabledReason: expect.stringMatching(/410/) });
    const log = await listDeliveries(h, { endpointId: gone.id });
    expect(log.map((delivery) => delivery.status)).toEqual(["failed", "failed", "failed", "failed"]);
    expect(log.every((delivery) => /410/.test(delivery.lastError ?? ""))).toBe(true);
    // payment.created was waiting for its retry: failed without being sent again.
    expect(log.at(-1)!.attempts.map((attempt) => attempt.statusCode)).toEqual([503]);

    h.clock.advanceMinutes(2);
    await createInvoice(h); // a disabled endpoint is not given new events
    await drain(h);
    expect(receiver.requests).toHaveLength(4);
    expect(await listDeliveries(h, { endpointId: gone.id })).toHaveLength(4);
    expect(await listDeliveries(h, { endpointId: kept.id })).toHaveLength(5);
  });

  it("delivers new events again once a disabled endpoint is re-enabled; what failed meanwhile stays failed", async () => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver({ replies: [410] });
    const endpoint = await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await drain(h);
    expect((await get(h, `/v1/webhook-endpoints/${endpoint.id}`)).body.status).toBe("disabled");
    await createInvoice(h); // while disabled: not queued for it at all

    const enabled = await h.post(`/v1/webhook-endpoints/${endpoint.id}/enable`);
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
    expect(enabled.body).toMatchObject({ id: endpoint.id, status: "enabled", disabledReason: null });
    expect(enabled.body.secret).toBeUndefined(); // the secret is shown on create and rotation only
    const again = await h.post(`/v1/webhook-endpoints/${endpoint.id}/enable`);
    expect(again.body).toEqual(enabled.body);

    const invoice = await createInvoice(h);
    await drain(h);
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.events().at(-1)!.data.id).toBe(invoice.id);
    expect((await listDeliveries(h, { endpointId: endpoint.id })).map((delivery) => delivery.status)).toEqual(["succeeded", "failed"]);
  });

  it("re-enables only an endpoint of the caller's merchant and mode: others are 404", async () => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver();
    const endpoint = await createEndpoint(h, receiver.url);
    for (const key of [h.liveKey, h.otherTestKey]) {
      const res = await h.post(`/v1/webhook-endpoints/${endpoint.id}/enable`, {}, key);
      expect(res.status).toBe(404);
      expect(res.body.error).toBe(40401);
    }
    expect((await h.post("/v1/webhook-endpoints/we_missing/enable")).status).toBe(404);
  });

  it("disables an endpoint on request: what was queued fails at once, new events are not queued, enable turns it back on", async () => {
    const h = await harness({ webhooks: PERSISTED });
    const receiver = await startReceiver({ replies: [503] });
    const endpoint = await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await h.router.tick(); // answered 503: waiting for its retry
    expect((await listDeliveries(h)).map((delivery) => delivery.status)).toEqual(["pending"]);

    const disabled = await h.post(`/v1/webhook-endpoints/${endpoint.id}/disable`);
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    const keyId = (await h.router.admin.listApiKeys(h.merchant.id)).find((key) => h.testKey.startsWith(key.prefix))!.id;
    expect(disabled.body).toMatchObject({ id: endpoint.id, status: "disabled", disabledReason: `disabled by ${keyId}` });
    expect(disabled.body.secret).toBeUndefined();
    expect((await h.post(`/v1/webhook-endpoints/${endpoint.id}/disable`)).body).toEqual(disabled.body);
    const [failed] = await listDeliveries(h);
    expect(failed).toMatchObject({ status: "failed", lastError: "the endpoint was disabled", nextAttemptAt: null });

    await createInvoice(h); // while disabled: not queued for it
    h.clock.advanceMinutes(5);
    await drain(h);
    expect(receiver.requests).toHaveLength(1);
    expect(await listDeliveries(h)).toHaveLength(1);
    expect((await h.post(`/v1/webhook-endpoints/${endpoint.id}/test`)).status).toBe(409);

    expect((await h.post(`/v1/webhook-endpoints/${endpoint.id}/enable`)).body).toMatchObject({ status: "enabled", disabledReason: null });
    await createInvoice(h);
    await drain(h);
    expect(receiver.requests).toHaveLength(2);
  });

  it("disables only an endpoint of the caller's merchant and mode: others are 404 and stay enabled", async () => {
    const h = await harness({ webhooks: FAST });
    const endpoint = await createEndpoint(h, "https://shop.example/hook");
    for (const key of [h.liveKey, h.otherTestKey]) {
      const res = await h.post(`/v1/webhook-endpoints/${endpoint.id}/disable`, {}, key);
      expect(res.status).toBe(404);
      expect(res.body.error).toBe(40401);
    }
    expect((await get(h, `/v1/webhook-endpoints/${endpoint.id}`)).body.status).toBe("enabled");
    expect((await h.post("/v1/webhook-endpoints/we_missing/disable")).status).toBe(404);
    expect((await h.post(`/v1/webhook-endpoints/${endpoint.id}/disable`, { reason: "x" })).status).toBe(400);
  });

  it("logs a timeout as an attempt without a status and retries it later", async () => {
    const h = await harness({ webhooks: { ...PERSISTED, timeoutMs: 100 } });
    const receiver = await startReceiver({ fallback: "hang" });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await h.router.tick();
    expect(receiver.requests).toHaveLength(1);
    const [delivery] = await listDeliveries(h);
    expect(delivery).toMatchObject({ status: "pending", attemptCount: 1, lastStatusCode: null });
    expect(delivery!.attempts).toHaveLength(1);
    expect(delivery!.attempts[0]!.statusCode).toBeNull();
    expect(delivery!.attempts[0]!.error).toMatch(/100 ms/);
    expect(delivery!.attempts[0]!.durationMs).toBeGreaterThanOrEqual(90);
    expect(Date.parse(delivery!.nextAttemptAt!) - h.clock.ms).toBeGreaterThan(50_000);
  });

  it("retries a refused connection later", async () => {
    const h = await harness({ webhooks: PERSISTED });
    const receiver = await startReceiver();
    await createEndpoint(h, receiver.url);
    await receiver.close();
    await createInvoice(h);
    await h.router.tick();
    const [delivery] = await listDeliveries(h);
    expect(delivery).toMatchObject({ status: "pending", attemptCount: 1, lastStatusCode: null });
    expect(delivery!.lastError).toMatch(/ECONNREFUSED/);
  });
});

describe("the persisted retry schedule", () => {
  it("persists a long retry, sends nothing before it is due and then the same message", async () => {
    const h = await harness({ webhooks: PERSISTED });
    const receiver = await startReceiver({ replies: [503] });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    const failedAt = h.clock.ms;
    await h.router.tick();

    const [pending] = await listDeliveries(h);
    expect(pending).toMatchObject({ status: "pending", attemptCount: 1, lastStatusCode: 503 });
    const delay = Date.parse(pending!.nextAttemptAt!) - failedAt;
    expect(delay).toBeGreaterThanOrEqual(54_000); // 60 s with the default 10% jitter
    expect(delay).toBeLessThanOrEqual(66_000);

    expect((await h.router.tick()).webhooksSent).toBe(0);
    h.clock.ms = failedAt + delay - 1;
    expect((await h.router.tick()).webhooksSent).toBe(0);
    expect(receiver.requests).toHaveLength(1);

    h.clock.ms = failedAt + delay;
    expect((await h.router.tick()).webhooksSent).toBe(1);
    expect(receiver.requests).toHaveLength(2);
    const [first, retry] = receiver.requests;
    expect(retry!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(retry!.body).toBe(first!.body);
    // The header carries the time of this attempt (a receiver checks it against its clock).
    expect(retry!.headers["webhook-timestamp"]).toBe(String(Math.floor(h.clock.ms / 1000)));
    expect(await getDelivery(h, pending!.id)).toMatchObject({ status: "succeeded", attemptCount: 2, nextAttemptAt: null });
  });

  it("waits short delays in process and persists the first long one, exactly when jitter is 0", async () => {
    const h = await harness({ webhooks: { retrySchedule: [5, 60_000], jitter: 0, inProcessRetryMaxMs: 10, intervalMs: false } });
    const receiver = await startReceiver({ replies: [500, 502] });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await h.router.tick();
    expect(receiver.requests).toHaveLength(2);
    const [delivery] = await listDeliveries(h);
    expect(delivery).toMatchObject({ status: "pending", attemptCount: 2, lastStatusCode: 502, nextAttemptAt: new Date(h.clock.ms + 60_000).toISOString() });

    h.clock.ms += 60_000;
    await h.router.tick();
    expect(await getDelivery(h, delivery!.id)).toMatchObject({ status: "succeeded", attemptCount: 3 });
    expect(new Set(receiver.requests.map((req) => req.headers["webhook-id"]))).toEqual(new Set([delivery!.id]));
  });

  it("stores every retry by default, however short, rather than wait for it in process", async () => {
    const h = await harness({ webhooks: { retrySchedule: [5], jitter: 0, intervalMs: false } });
    const receiver = await startReceiver({ replies: [500] });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await h.router.tick();
    expect(receiver.requests).toHaveLength(1);
    const [delivery] = await listDeliveries(h);
    expect(delivery).toMatchObject({ status: "pending", attemptCount: 1, nextAttemptAt: new Date(h.clock.ms + 5).toISOString() });
    h.clock.ms += 5;
    await h.router.tick();
    expect(await getDelivery(h, delivery!.id)).toMatchObject({ status: "succeeded", attemptCount: 2 });
  });

  it("waits at least as long as a Retry-After in seconds asks", async () => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver({ replies: [{ status: 429, headers: { "retry-after": "120" } }] });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await h.router.tick();
    expect(receiver.requests).toHaveLength(1); // the 5 ms schedule did not override it
    const [delivery] = await listDeliveries(h);
    expect(delivery!.status).toBe("pending");
    expect(Date.parse(delivery!.nextAttemptAt!)).toBeGreaterThanOrEqual(h.clock.ms + 120_000);
    h.clock.ms += 119_000;
    expect((await h.router.tick()).webhooksSent).toBe(0);
    h.clock.ms += 1_000;
    await h.router.tick();
    expect((await getDelivery(h, delivery!.id)).status).toBe("succeeded");
  });

  it("waits at least until a Retry-After date", async () => {
    const h = await harness({ webhooks: FAST });
    const until = new Date(h.clock.ms + 300_000).toUTCString();
    const receiver = await startReceiver({ replies: [{ status: 503, headers: { "retry-after": until } }] });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await h.router.tick();
    const [delivery] = await listDeliveries(h);
    expect(delivery!.status).toBe("pending");
    expect(Date.parse(delivery!.nextAttemptAt!)).toBeGreaterThanOrEqual(h.clock.ms + 300_000);
  });

  it("gives a delivery up when the in-process schedule runs out", async () => {
    const h = await harness({ webhooks: { ...FAST, retrySchedule: [5, 5] } });
    const receiver = await startReceiver({ fallback: 500 });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await drain(h);
    expect(receiver.requests).toHaveLength(3);
    const [delivery] = await listDeliveries(h);
    expect(delivery).toMatchObject({ status: "failed", attemptCount: 3, lastStatusCode: 500, nextAttemptAt: null });
    expect(delivery!.lastError).toMatch(/500/);
  });

  it("gives a delivery up when the persisted schedule runs out", async () => {
    const h = await harness({ webhooks: PERSISTED });
    const receiver = await startReceiver({ fallback: 503 });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await h.router.tick();
    h.clock.advanceMinutes(2);
    await h.router.tick();
    h.clock.advanceMinutes(60);
    expect((await h.router.tick()).webhooksSent).toBe(0);
    expect(receiver.requests).toHaveLength(2);
    const [delivery] = await listDeliveries(h);
    expect(delivery).toMatchObject({ status: "failed", attemptCount: 2, nextAttemptAt: null });
  });
});

describe("waking the sender", () => {
  // The poll is a minute away: only the wake-up after the commit can send the event in time,
  // on the PostgreSQL server when there is one (there the commit is a round trip of its own).
  it("sends an event as soon as the change that recorded it committed, without waiting for the poll", async () => {
    const schema = uniqueSchema("kick");
    const pool = DATABASE_URL ? new pg.Pool({ connectionString: DATABASE_URL, max: 4 }) : null;
    const storage = pool ? postgresStorage({ pool, schema }) : postgresStorage({ dataDir: "memory://" });
    try {
      const h = await harness({ storage, webhooks: { intervalMs: 60_000 } });
      const receiver = await startReceiver();
      await createEndpoint(h, receiver.url);
      const invoice = await createInvoice(h);
      await vi.waitFor(() => expect(receiver.events().map((event) => event.data.id)).toEqual([invoice.id]), { timeout: 5000, interval: 10 });
      await h.router.close();
    } finally {
      await pool?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool?.end();
    }
  });
});

describe("instances and restarts", () => {
  it("delivers after a restart what the previous instance left pending", async () => {
    const storage = memoryStorage();
    const h = await harness({ storage, webhooks: PERSISTED });
    const receiver = await startReceiver({ replies: [503] });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await h.router.tick();
    const [pending] = await listDeliveries(h);
    expect(pending!.status).toBe("pending");

    // The first instance is gone; a new one starts on the same storage.
    const restarted = createPaymentRouter({
      storage,
      now: h.clock.now,
      logger: h.logger,
      backgroundIntervalMs: false,
      webhooks: { intervalMs: false, allowPrivateUrls: true },
    });
    closeAfterTest(restarted);
    h.clock.advanceMinutes(2);
    expect((await restarted.tick()).webhooksSent).toBe(1);
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]!.headers["webhook-id"]).toBe(pending!.id);
    expect(await storage.getWebhookDelivery(testScope(h), pending!.id)).toMatchObject({ status: "succeeded", attempts: 2 });
  });

  it("takes over a delivery whose worker died, once that worker's lease has run out", async () => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver();
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    // Another instance claims the delivery for ten minutes and dies without a word.
    const [claimed] = await h.router.storage.transaction((tx: StorageTransaction) => tx.claimWebhookDeliveries(h.clock.ms, 10, 600_000, 10));
    expect(claimed).toBeDefined();

    expect((await h.router.tick()).webhooksSent).toBe(0);
    h.clock.advanceMinutes(9);
    expect((await h.router.tick()).webhooksSent).toBe(0);
    h.clock.advanceMinutes(1);
    expect((await h.router.tick()).webhooksSent).toBe(1);
    expect(receiver.requests.map((req) => req.headers["webhook-id"])).toEqual([claimed!.id]);
  });

  it("sends each delivery once when two instances share the storage", async () => {
    const storage = memoryStorage();
    const h = await harness({ storage, webhooks: FAST });
    const second = createPaymentRouter({
      storage,
      now: h.clock.now,
      logger: h.logger,
      backgroundIntervalMs: false,
      webhooks: { ...FAST, allowPrivateUrls: true },
    });
    closeAfterTest(second);
    const receivers = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
    for (const receiver of receivers) await createEndpoint(h, receiver.url);
    await payInFull(h, await createInvoice(h));

    await Promise.all([
      drain(h),
      (async () => {
        for (let i = 0; i < 20; i++) await second.tick();
      })(),
    ]);
    await drain(h);
    for (const receiver of receivers) expect(receiver.events().map((event) => event.type)).toEqual(LIFECYCLE);
  });

  it("does not let a hanging endpoint delay another endpoint's deliveries", async () => {
    const h = await harness({ webhooks: { intervalMs: 20, timeoutMs: 3000, retrySchedule: [] } });
    const slow = await startReceiver({ fallback: "hang" });
    const fast = await startReceiver();
    const slowEndpoint = await createEndpoint(h, slow.url);
    await createEndpoint(h, fast.url);
    await payInFull(h, await createInvoice(h));

    // Well inside the slow endpoint's 3 s timeout: its hanging requests hold up nothing else.
    await expect.poll(() => fast.requests.length, { timeout: 1000, interval: 10 }).toBe(4);
    expect(
      fast
        .events()
        .map((event) => event.type)
        .sort(),
    ).toEqual([...LIFECYCLE].sort());
    await expect.poll(() => slow.requests.length, { timeout: 1000, interval: 10 }).toBe(4); // each hanging on its own
    const slowLog = await listDeliveries(h, { endpointId: slowEndpoint.id });
    expect(slowLog.map((delivery) => delivery.status)).toEqual(["pending", "pending", "pending", "pending"]);
  });
});

describe("secret rotation", () => {
  it("signs with both secrets during the overlap and with the new one only after it", async () => {
    const h = await harness({ webhooks: { ...FAST, rotationOverlapMinutes: 60 } });
    const receiver = await startReceiver();
    const endpoint = await createEndpoint(h, receiver.url);
    const rotated = await h.post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret as string;

    await createInvoice(h);
    await drain(h);
    const during = receiver.requests[0]!;
    expect(String(during.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(
      String(during.headers["webhook-signature"])
        .split(" ")
        .every((entry) => entry.startsWith("v1,")),
    ).toBe(true);
    expect(signedWith(during, newSecret)).toBe(true);
    expect(signedWith(during, endpoint.secret)).toBe(true);

    h.clock.advanceMinutes(59);
    await createInvoice(h);
    await drain(h);
    expect(signaturesOf(receiver.requests[1]!)).toHaveLength(2);

    h.clock.advanceMinutes(1);
    await createInvoice(h);
    await drain(h);
    const after = receiver.requests[2]!;
    expect(signaturesOf(after)).toHaveLength(1);
    expect(signedWith(after, newSecret)).toBe(true);
    expect(signedWith(after, endpoint.secret)).toBe(false);
  });

  it("signs with every secret still in its overlap after two rotations", async () => {
    const h = await harness({ webhooks: { ...FAST, rotationOverlapMinutes: 60 } });
    const receiver = await startReceiver();
    const endpoint = await createEndpoint(h, receiver.url);
    const second = (await h.post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`)).body.secret as string;
    h.clock.advanceMinutes(30);
    const third = (await h.post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`)).body.secret as string;
    await createInvoice(h);
    await drain(h);
    const req = receiver.requests[0]!;
    expect(signaturesOf(req)).toHaveLength(3);
    for (const secret of [endpoint.secret, second, third]) expect(signedWith(req, secret)).toBe(true);

    // The first secret's overlap started with the first rotation and is not extended by the second.
    h.clock.advanceMinutes(30);
    await createInvoice(h);
    await drain(h);
    const later = receiver.requests[1]!;
    expect(signedWith(later, endpoint.secret)).toBe(false);
    expect(signedWith(later, third)).toBe(true);
  });
  it("stops signing with the old secret at once when the overlap is 0", async () => {
    const h = await harness({ webhooks: { ...FAST, rotationOverlapMinutes: 0 } });
    const receiver = await startReceiver();
    const endpoint = await createEndpoint(h, receiver.url);
    const rotated = (await h.post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`)).body.secret as string;
    await createInvoice(h);
    await drain(h);
    expect(signaturesOf(receiver.requests[0]!)).toHaveLength(1);
    expect(signedWith(receiver.requests[0]!, rotated)).toBe(true);
  });
});

// The address checks made before each delivery are in address-policy.test.ts.

describe("tick()", () => {
  it("delivers every due event of an endpoint in one call", async () => {
    const h = await harness({ webhooks: FAST });
    const receiver = await startReceiver();
    await createEndpoint(h, receiver.url);
    await payInFull(h, await createInvoice(h));
    const { webhooksSent } = await h.router.tick();
    expect(
      receiver
        .events()
        .map((event) => event.type)
        .sort(),
    ).toEqual([...LIFECYCLE].sort());
    expect(webhooksSent).toBe(4);
  });

  it("still delivers due webhooks when another part of the round fails", async () => {
    // A live chain that is down: its deposit sync throws on every round.
    const down = { ...simulatedLiveChain(), pollDeposits: async () => Promise.reject(new Error("live node unreachable")) };
    const h = await harness({ liveChain: down, webhooks: FAST });
    const receiver = await startReceiver();
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await h.router.tick().catch(() => undefined); // the failure may be reported; it must not hold up the webhooks
    expect(receiver.events().map((event) => event.type)).toEqual(["payment.created"]);
  });
});

describe("options", () => {
  it.each([
    ["a negative retry delay", { retrySchedule: [-1] }],
    ["a zero timeout", { timeoutMs: 0 }],
    ["a jitter above 1", { jitter: 2 }],
    ["a zero concurrency", { concurrency: 0 }],
    ["a zero concurrencyPerEndpoint", { concurrencyPerEndpoint: 0 }],
    ["a lease shorter than a second", { leaseMs: 500 }],
    ["a lease no longer than an attempt", { timeoutMs: 20_000, leaseMs: 20_000 }],
    [
      "a lease no longer than an attempt and its in-process retries",
      { timeoutMs: 5000, retrySchedule: [1000, 1000], inProcessRetryMaxMs: 1000, leaseMs: 17_000 },
    ],
    ["an unknown option", { retries: 3 }],
  ])("refuses %s at start-up", (_what, webhooks) => {
    expect(() => createPaymentRouter({ backgroundIntervalMs: false, webhooks: webhooks as never })).toThrow(/createPaymentRouter: .*/);
  });

  it("accepts a lease just longer than what one claim can take", () => {
    // 3 attempts of 5 s and two waits of up to 1.1 s: 17.2 s.
    // Memory storage: the test is about the option, and the embedded default is slow to open and close on a busy machine.
    const router = createPaymentRouter({
      storage: memoryStorage(),
      backgroundIntervalMs: false,
      webhooks: { timeoutMs: 5000, retrySchedule: [1000, 1000], inProcessRetryMaxMs: 1000, leaseMs: 17_201, intervalMs: false },
    });
    closeAfterTest(router);
  });
});

describe("the transactional outbox", () => {
  /** Memory storage whose transactions fail at commit, after their work ran, while `failing` is set and they changed an invoice. */
  function storageFailingInvoiceCommits() {
    const inner = memoryStorage();
    const control = { failing: false };
    const storage: Storage = {
      ...inner,
      transaction: <T>(work: (tx: StorageTransaction) => Promise<T>) =>
        inner.transaction(async (tx) => {
          let touched = false;
          const updateInvoice: StorageTransaction["updateInvoice"] = (invoice) => {
            touched = true;
            return tx.updateInvoice(invoice);
          };
          const wrapped: StorageTransaction = { ...tx, updateInvoice };
          const result = await work(wrapped);
          if (control.failing && touched) throw new Error("simulated commit failure");
          return result;
        }),
    };
    return { storage, control };
  }

  it("queues nothing for a state change that rolls back, and each event once when it is retried", async () => {
    const { storage, control } = storageFailingInvoiceCommits();
    const h = await harness({ storage, webhooks: FAST });
    const receiver = await startReceiver();
    await createEndpoint(h, receiver.url);
    const invoice = await createInvoice(h);
    await drain(h);
    expect(receiver.events().map((event) => event.type)).toEqual(["payment.created"]);

    control.failing = true;
    const res = await h.post("/api/v1/sandbox/deposit/create", { address: invoice.address, amount: invoice.payAmount, confirmations: 19 });
    expect(res.status).toBe(500);
    expect((await h.router.storage.listEvents(testScope(h), { invoiceId: invoice.id })).map((event) => event.type)).toEqual(["payment.created"]);
    expect((await listDeliveries(h)).map((delivery) => delivery.eventType)).toEqual(["payment.created"]);
    await h.router.tick().catch(() => undefined); // the chain still reports the transfer; applying it fails again
    expect(receiver.events().map((event) => event.type)).toEqual(["payment.created"]);

    control.failing = false;
    await drain(h);
    expect(receiver.events().map((event) => event.type)).toEqual(LIFECYCLE);
  });
});
