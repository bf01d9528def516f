import express from "express";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  IdempotencyError,
  InvalidRequestError,
  PaymentError,
  webhookHandler,
  type PaymentEvent,
  type WebhookDelivery,
  type WebhookEndpoint,
} from "../../src/index";
import { setup } from "../helpers";
import { CARRIER_NAMES, CARRIERS, listen, PUBLIC_URL } from "./carriers";

/**
 * `webhookEndpoints` and `webhookDeliveries`, the same methods on the HTTP client and on the
 * in-process API, and a shop that registers its endpoint at boot and verifies real deliveries
 * with the secret it got back.
 */
describe.each(CARRIER_NAMES)("webhook resources through %s", (carrier) => {
  it("creates, lists, retrieves, rotates, disables, enables and deletes an endpoint", async () => {
    const { api, other } = await CARRIERS[carrier]();
    const endpoint = await api.webhookEndpoints.create({ url: "http://127.0.0.1:9/hooks", events: ["payment.completed"] });
    expectTypeOf(endpoint.secret).toEqualTypeOf<string>();
    expect(endpoint).toMatchObject({ object: "webhook_endpoint", status: "enabled", events: ["payment.completed"], livemode: false });
    expect(endpoint.secret).toMatch(/^whsec_/);

    // The secret is in the creating answer only.
    const retrieved = await api.webhookEndpoints.retrieve(endpoint.id);
    expect(retrieved).toEqual({ ...endpoint, secret: undefined, updatedAt: retrieved.updatedAt });
    expect("secret" in retrieved).toBe(false);
    const listed = await api.webhookEndpoints.list();
    expect(listed.data.map((row) => row.id)).toEqual([endpoint.id]);
    const iterated: WebhookEndpoint[] = [];
    for await (const row of api.webhookEndpoints.list()) iterated.push(row);
    expect(iterated.map((row) => row.id)).toEqual([endpoint.id]);

    const rotated = await api.webhookEndpoints.rotateSecret(endpoint.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(await api.webhookEndpoints.disable(endpoint.id)).toMatchObject({ id: endpoint.id, status: "disabled" });
    expect(await api.webhookEndpoints.enable(endpoint.id)).toMatchObject({ id: endpoint.id, status: "enabled", disabledReason: null });

    // Another merchant's endpoint is unknown to this one, exactly like a missing id.
    const foreign = await other.webhookEndpoints.retrieve(endpoint.id).catch((error: unknown) => error);
    expect(foreign).toBeInstanceOf(InvalidRequestError);
    expect(foreign).toMatchObject({ status: 404, code: 40401 });
    await expect(other.webhookEndpoints.delete(endpoint.id)).rejects.toMatchObject({ code: 40401 });

    expect(await api.webhookEndpoints.delete(endpoint.id)).toEqual({ id: endpoint.id, object: "webhook_endpoint", deleted: true });
    expect((await api.webhookEndpoints.list()).data).toEqual([]);
    await expect(api.webhookEndpoints.retrieve(endpoint.id)).rejects.toBeInstanceOf(PaymentError);
  });

  it("refuses a replayed create, whose answer has no secret, naming rotateSecret", async () => {
    const { api } = await CARRIERS[carrier]();
    const endpoint = await api.webhookEndpoints.create({ url: "http://127.0.0.1:9/hooks" }, { idempotencyKey: "boot" });
    expect(endpoint.secret).toMatch(/^whsec_/);
    const replayed = await api.webhookEndpoints.create({ url: "http://127.0.0.1:9/hooks" }, { idempotencyKey: "boot" }).catch((error: unknown) => error);
    expect(replayed).toBeInstanceOf(IdempotencyError);
    expect(replayed).toMatchObject({ code: 40901, message: expect.stringContaining(`webhookEndpoints.rotateSecret("${endpoint.id}")`) });
    // Still one endpoint: the replay created nothing.
    expect((await api.webhookEndpoints.list()).data.map((row) => row.id)).toEqual([endpoint.id]);
  });

  it("sends a test event of any type the service sends", async () => {
    const { api } = await CARRIERS[carrier]();
    const endpoint = await api.webhookEndpoints.create({ url: "http://127.0.0.1:9/hooks" });
    expect(await api.webhookEndpoints.sendTest(endpoint.id, { type: "payout.completed" })).toMatchObject({ eventType: "payout.completed" });
    await expect(api.webhookEndpoints.sendTest(endpoint.id, { type: "payment.exploded" as never })).rejects.toMatchObject({ code: 40001 });
  });

  it("sends a test event, lists, retrieves and redelivers its delivery", async () => {
    const { h, api } = await CARRIERS[carrier]();
    const endpoint = await api.webhookEndpoints.create({ url: "http://127.0.0.1:9/hooks" });
    const delivery = await api.webhookEndpoints.sendTest(endpoint.id, {}, { idempotencyKey: "test-1" });
    expectTypeOf(delivery).toEqualTypeOf<WebhookDelivery>();
    expect(delivery).toMatchObject({ object: "webhook_delivery", endpointId: endpoint.id, eventType: "payment.created", status: "pending" });
    // The same key replays: one delivery, not two.
    expect((await api.webhookEndpoints.sendTest(endpoint.id, {}, { idempotencyKey: "test-1" })).id).toBe(delivery.id);

    const page = await api.webhookDeliveries.list({ endpointId: endpoint.id });
    expect(page).toMatchObject({ hasMore: false, nextCursor: null });
    expect(page.data.map((row) => row.id)).toEqual([delivery.id]);
    expect(await api.webhookDeliveries.retrieve(delivery.id)).toMatchObject({ id: delivery.id, eventType: "payment.created" });

    // Port 9 answers nothing: after the attempt the delivery waits for its retry; a redelivery starts over.
    await h.router.tick();
    expect((await api.webhookDeliveries.retrieve(delivery.id)).attemptCount).toBe(1);
    const again = await api.webhookDeliveries.redeliver(delivery.id);
    expect(again).toMatchObject({ id: delivery.id, status: "pending" });
  });
});

describe("a shop that registers its endpoint at boot", () => {
  it("builds webhookHandler from the secret forMerchant returned and receives a signed event over HTTP", async () => {
    const h = await setup({ publicUrl: PUBLIC_URL });
    const received: PaymentEvent[] = [];

    // The shop's app: its receiver is mounted before it knows its own port, and the handler is
    // built, once, from the endpoint's secret before the app serves anything.
    const shop = express();
    let hooks: express.RequestHandler = (_req, res) => void res.status(503).end();
    shop.post("/hooks", (req, res, next) => hooks(req, res, next));
    const shopUrl = await listen(shop);
    const payments = h.router.forMerchant(h.merchant.id, "test");
    const endpoint = await payments.webhookEndpoints.create({ url: `${shopUrl}/hooks`, events: ["payment.created"] });
    hooks = webhookHandler({
      secret: endpoint.secret,
      now: h.clock.now, // the router runs on the harness's clock
      on: {
        "payment.created": (event) => {
          received.push(event);
        },
      },
    });

    const payment = await payments.payments.create({ amount: "25", currency: "USDT", chain: "TRX", metadata: { orderId: "A-7" } });
    expect((await h.router.tick()).webhooksSent).toBe(1);
    expect(received.map((event) => [event.type, event.data.id, event.data.metadata])).toEqual([["payment.created", payment.id, { orderId: "A-7" }]]);
    const [delivery] = (await payments.webhookDeliveries.list({ endpointId: endpoint.id })).data;
    expect(delivery).toMatchObject({ status: "succeeded", lastStatusCode: 200 });

    // A receiver holding another secret refuses the same delivery: the signature is checked for real.
    hooks = webhookHandler({
      secret: (await payments.webhookEndpoints.create({ url: `${shopUrl}/other` })).secret,
      on: { "*": (event) => void received.push(event as PaymentEvent) },
      now: h.clock.now,
    });
    await payments.webhookDeliveries.redeliver(delivery!.id);
    await h.router.tick();
    expect((await payments.webhookDeliveries.retrieve(delivery!.id)).lastStatusCode).toBe(401);
    expect(received).toHaveLength(1);
  });
});
