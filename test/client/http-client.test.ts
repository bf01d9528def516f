import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { createPaymentClient, PaymentError } from "../../src/index";
import { setup, type Harness } from "../helpers";
import { ADDRESS, deposit } from "../http/v1/support";

/**
 * `createPaymentClient({ baseUrl, apiKey })` against a mounted router on a real port: typed
 * resources over fetch, one Idempotency-Key per call reused by its retries, retries on network
 * errors and 5xx only, API errors as PaymentError.
 */
const servers: Array<{ close(): void }> = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** Serves `h`'s router under /shop behind `front` (a middleware that can break requests), on a free port. */
async function serve(h: Harness, front?: express.RequestHandler): Promise<string> {
  const app = express();
  if (front) app.use(front);
  app.use("/shop", h.router);
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/shop`;
}

describe("createPaymentClient", () => {
  it("creates, retrieves and lists over HTTP with typed answers", async () => {
    const h = await setup();
    const client = createPaymentClient({ baseUrl: await serve(h), apiKey: h.testKey });
    const payment = await client.payments.create({ amount: "100", currency: "USDT", chain: "TRX", metadata: { orderId: "A-1" } });
    expect(payment).toMatchObject({ object: "payment", status: "PENDING", amount: "100", metadata: { orderId: "A-1" } });
    await deposit(h, payment.address!, payment.payAmount!, 19);
    const paid = await client.payments.retrieve(payment.id);
    expect(paid.status).toBe("PAID");
    expect((await client.payments.list({ limit: 5, status: "PAID" })).data.map((row) => row.id)).toEqual([payment.id]);
    const withdrawal = await client.withdrawals.create({ currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS });
    expect(await client.withdrawals.retrieve(withdrawal.id)).toMatchObject({ id: withdrawal.id, amount: "10" });
    expect((await client.balances.retrieve()).data.find((row) => row.currency === "USDT")).toBeDefined();
  });

  it("rejects with PaymentError carrying the API's code, without retrying a 4xx", async () => {
    const h = await setup();
    let requests = 0;
    const client = createPaymentClient({
      baseUrl: await serve(h, (_req, _res, next) => {
        requests++;
        next();
      }),
      apiKey: h.testKey,
    });
    const error = await client.withdrawals.create({ currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PaymentError);
    expect(error).toMatchObject({ code: 42201, type: "insufficient_balance", status: 422 });
    expect(requests).toBe(1);
    await expect(client.payments.retrieve("inv_nope")).rejects.toMatchObject({ code: 40401 });
    const wrongKey = createPaymentClient({ baseUrl: await serve(h), apiKey: "sk_test_wrong" });
    await expect(wrongKey.payments.list()).rejects.toMatchObject({ code: 40101 });
  });

  it("retries a create whose answer was lost with the same Idempotency-Key, creating once", async () => {
    const h = await setup();
    const keys: string[] = [];
    let cut = 1;
    // The first answer to a create never arrives: the router did the work, then the connection dies.
    const front: express.RequestHandler = (req, res, next) => {
      if (req.method === "POST") keys.push(req.get("Idempotency-Key")!);
      if (req.method === "POST" && cut-- > 0) {
        res.end = (() => {
          req.socket.destroy();
          return res;
        }) as never;
      }
      next();
    };
    const client = createPaymentClient({ baseUrl: await serve(h, front), apiKey: h.testKey });
    const payment = await client.payments.create({ amount: "10", currency: "TRX" });
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    const stored = await h.router.storage.listInvoices({ merchantId: h.merchant.id, mode: "test" }, {}, { limit: 10 });
    expect(stored.map((row) => row.id)).toEqual([payment.id]);
    // A key of the caller's own is used as given.
    await client.payments.create({ amount: "10", currency: "TRX" }, { idempotencyKey: "order-9" });
    expect(keys.at(-1)).toBe("order-9");
  });

  it("retries 5xx answers and gives up with their error after `retries`", async () => {
    const h = await setup();
    let failures = 2;
    let requests = 0;
    const front: express.RequestHandler = (_req, res, next) => {
      requests++;
      if (failures-- > 0) res.status(503).json({ error: 50302, message: "No price right now." });
      else next();
    };
    const client = createPaymentClient({ baseUrl: await serve(h, front), apiKey: h.testKey });
    expect((await client.payments.list()).data).toEqual([]);
    expect(requests).toBe(3);

    failures = 10;
    requests = 0;
    const once = createPaymentClient({ baseUrl: await serve(h, front), apiKey: h.testKey, retries: 1 });
    await expect(once.payments.list()).rejects.toMatchObject({ code: 50302, type: "pricing_unavailable" });
    expect(requests).toBe(2);
  });

  it("refuses a base URL that is not http(s)", () => {
    expect(() => createPaymentClient({ baseUrl: "ftp://pay.example", apiKey: "sk_test_x" })).toThrow(/http/);
  });
});
