import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { createOrderSystem } from "../../examples/order-system/app";
import { createPaymentRouter, memoryStorage, webhookHandler, type PaymentRouter } from "../../src/index";

const servers: Server[] = [];
const routers: PaymentRouter[] = [];
afterEach(async () => {
  await Promise.all(routers.splice(0).map((router) => router.close()));
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

function listen(app: express.Express): Promise<string> {
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    servers.push(server);
  });
}

/**
 * The payment service in one app on its own port, on the real clock, with its background loops
 * and webhook sender running as in production (fast retries so the test takes a second).
 */
async function startService() {
  const router = createPaymentRouter({
    storage: memoryStorage(), // not the default ./.data: a test leaves nothing behind
    backgroundIntervalMs: 50,
    // The receivers are apps on 127.0.0.1, a private address.
    webhooks: { retrySchedule: [30, 30, 60, 60, 120], intervalMs: 20, jitter: 0, allowPrivateUrls: true },
    logger: { warn: () => undefined, error: () => undefined },
  });
  routers.push(router);
  const app = express();
  app.use(router);
  const url = await listen(app);
  const merchant = await router.admin.createMerchant({ name: "Shop" });
  const { key } = await router.admin.issueApiKey(merchant.id, { mode: "test" });
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  return { url, key, call };
}

describe("webhooks end to end: the service in one app, the receiver in another", () => {
  it("runs payment.completed once with the orderId after failed first attempts, each event once", async () => {
    const service = await startService();

    // The receiving app: the first two requests fail on purpose (503), then webhookHandler.
    const received: Array<{ type: string; orderId: unknown; webhookId: string }> = [];
    const completed: Array<{ orderId: unknown }> = [];
    let requests = 0;
    let handler: express.RequestHandler = (_req, res) => void res.status(503).end();
    const receiver = express();
    receiver.post("/hooks/pay", (req, res, next) => {
      requests++;
      if (requests <= 2) return void res.status(503).json({ error: "warming up" });
      return handler(req, res, next);
    });
    const receiverUrl = await listen(receiver);

    const endpoint = await service.call("POST", "/v1/webhook-endpoints", { url: `${receiverUrl}/hooks/pay` });
    expect(endpoint.status).toBe(200);
    handler = webhookHandler({
      secret: endpoint.body.secret,
      on: {
        "*": (event, { id }) =>
          void received.push({ type: event.type, orderId: (event.data as { metadata?: { orderId?: unknown } }).metadata?.orderId, webhookId: id }),
        "payment.completed": (event) => void completed.push({ orderId: event.data.metadata?.orderId }),
      },
    }) as express.RequestHandler;

    const invoice = await service.call("POST", "/api/v1/merchants/whitelabel/create", {
      amount: 40,
      payCurrency: "USDT",
      network: "TRX",
      metadata: { orderId: "order-77" },
    });
    const deposit = await service.call("POST", "/api/v1/sandbox/deposit/create", { address: invoice.body.address, amount: 40, confirmations: 0 });
    await service.call("POST", "/api/v1/sandbox/deposit/confirm", { txHash: deposit.body.txHash, confirmations: 19 });

    await expect.poll(() => completed.length, { timeout: 5000, interval: 20 }).toBe(1);
    // Give any stray duplicate time to arrive before asserting "once".
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(completed).toEqual([{ orderId: "order-77" }]);
    // Each event on its own schedule: the ones refused wait for their retries, the rest go at once.
    expect(received.map((event) => event.type).sort()).toEqual(["payment.completed", "payment.confirmed", "payment.confirming", "payment.created"]);
    expect(received.every((event) => event.orderId === "order-77")).toBe(true);
    expect(requests).toBeGreaterThanOrEqual(6); // two refused on purpose, four delivered

    // The delivery log shows the refused attempts, each under the webhook-id its success came with.
    const log = await service.call("GET", "/v1/webhook-deliveries");
    const deliveries = log.body.data as Array<{ id: string; eventType: string; attempts: Array<{ statusCode: number }> }>;
    expect(deliveries.map((delivery) => delivery.id).sort()).toEqual(received.map((event) => event.webhookId).sort());
    expect(deliveries.flatMap((delivery) => delivery.attempts.map((attempt) => attempt.statusCode)).sort()).toEqual([200, 200, 200, 200, 503, 503]);
    for (const delivery of deliveries) expect(delivery.attempts.at(-1)!.statusCode).toBe(200);
  });

  it("marks an order of the example order system paid, once", async () => {
    const service = await startService();
    let shop: ReturnType<typeof createOrderSystem> | null = null;
    const shopApp = express();
    shopApp.use((req, res, next) => (shop ? shop.app(req, res, next) : res.status(503).end()));
    const shopUrl = await listen(shopApp);
    const endpoint = await service.call("POST", "/v1/webhook-endpoints", { url: `${shopUrl}/hooks/pay`, events: ["payment.completed", "payment.failed"] });
    shop = createOrderSystem({ paymentsUrl: service.url, apiKey: service.key, webhookSecret: endpoint.body.secret });

    const placed = await fetch(`${shopUrl}/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amountUsd: "12.50" }),
    });
    expect(placed.status).toBe(201);
    const order = (await placed.json()) as { id: string; paymentId: string; checkoutUrl: string };
    expect(order.checkoutUrl).toContain(`/pay/${order.paymentId}`);

    const payment = await service.call("GET", `/v1/payments/${order.paymentId}`);
    expect(payment.body).toMatchObject({ amount: "12.5", amountCurrency: "USD", currency: "USDT", metadata: { orderId: order.id } });
    await service.call("POST", "/api/v1/sandbox/deposit/create", { address: payment.body.address, amount: Number(payment.body.payAmount), confirmations: 19 });

    const readOrder = async () => (await (await fetch(`${shopUrl}/orders/${order.id}`)).json()) as { status: string; completions: number };
    await expect.poll(async () => (await readOrder()).status, { timeout: 5000, interval: 20 }).toBe("paid");

    // Redelivering the completed event is acknowledged without running the handler again.
    const log = await service.call("GET", "/v1/webhook-deliveries?eventType=payment.completed");
    await service.call("POST", `/v1/webhook-deliveries/${log.body.data[0].id}/redeliver`);
    await expect
      .poll(async () => (await service.call("GET", `/v1/webhook-deliveries/${log.body.data[0].id}`)).body.status, { timeout: 5000, interval: 20 })
      .toBe("succeeded");
    expect(await readOrder()).toMatchObject({ status: "paid", completions: 1 });
  });
});
