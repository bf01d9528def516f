import { createServer } from "node:net";
import express from "express";
import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConnectionError,
  createPaymentClient,
  IdempotencyError,
  InvalidRequestError,
  PaymentError,
  RateLimitError,
  UnavailableError,
} from "../../src/index";
import { setup } from "../helpers";
import { ADDRESS } from "../http/v1/support";
import { CARRIER_NAMES, CARRIERS, listen, PUBLIC_URL, serve } from "./carriers";

/**
 * The error classes a `catch` tells apart, all `PaymentError`s keeping the API's code: the
 * same class for the same answer from the HTTP client and the in-process API.
 */

/** What a call rejected with. */
const caught = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => {
      throw new Error("expected the call to reject");
    },
    (error: unknown) => error,
  );

describe.each(CARRIER_NAMES)("errors through %s", (carrier) => {
  it("rejects refused requests as InvalidRequestError and a reused Idempotency-Key as IdempotencyError", async () => {
    const { api } = await CARRIERS[carrier]();
    const notFound = await caught(api.payments.retrieve("inv_nope"));
    expect(notFound).toBeInstanceOf(InvalidRequestError);
    expect(notFound).toBeInstanceOf(PaymentError);
    expect(notFound).toMatchObject({ name: "InvalidRequestError", status: 404, code: 40401, type: "not_found" });

    const invalid = await caught(api.payments.create({ amount: "-1", currency: "USDT", chain: "TRX" }));
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid).toMatchObject({ status: 400, code: 40001 });

    const poor = await caught(api.withdrawals.create({ currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS }));
    expect(poor).toBeInstanceOf(InvalidRequestError);
    expect(poor).toMatchObject({ status: 422, code: 42201, type: "insufficient_balance" });

    await api.payments.create({ amount: "10", currency: "TRX" }, { idempotencyKey: "order-1" });
    const reused = await caught(api.payments.create({ amount: "11", currency: "TRX" }, { idempotencyKey: "order-1" }));
    expect(reused).toBeInstanceOf(IdempotencyError);
    expect(reused).toMatchObject({ name: "IdempotencyError", status: 409, code: 40901 });
    expect(reused).not.toBeInstanceOf(InvalidRequestError);
  });
});

describe("errors of the HTTP client", () => {
  it("rejects a wrong key as AuthenticationError", async () => {
    const h = await setup();
    const client = createPaymentClient({ baseUrl: await serve(h), apiKey: "sk_test_wrong" });
    const error = await caught(client.payments.list());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ name: "AuthenticationError", status: 401, code: 40101 });
  });

  it("rejects a 429 as RateLimitError with its Retry-After, without retrying it", async () => {
    const h = await setup();
    let requests = 0;
    const front: express.RequestHandler = (_req, res) => {
      requests++;
      res.status(429).set("Retry-After", "7").json({ error: 42901, message: "Too many requests." });
    };
    const client = createPaymentClient({ baseUrl: await serve(h, front), apiKey: h.testKey });
    const error = await caught(client.payments.list());
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 42901, retryAfter: 7 });
    expect(requests).toBe(1);
  });

  it("rejects a 503 that outlasts the retries as UnavailableError", async () => {
    const h = await setup();
    const front: express.RequestHandler = (_req, res) => void res.status(503).json({ error: 50301, message: "No live chain." });
    const client = createPaymentClient({ baseUrl: await serve(h, front), apiKey: h.testKey, retries: 1 });
    const error = await caught(client.balances.retrieve());
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toMatchObject({ status: 503, code: 50301, type: "chain_unavailable" });
  });

  it("rejects a call that got no answer as ConnectionError, naming the URL and never the key", async () => {
    // A port that was listening and is closed now: the connection is refused.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    const client = createPaymentClient({ baseUrl: `http://127.0.0.1:${port}/pay`, apiKey: "sk_test_secret123", retries: 1 });
    const refused = await caught(client.payments.list());
    expect(refused).toBeInstanceOf(ConnectionError);
    expect(refused).toBeInstanceOf(PaymentError);
    expect(refused).toMatchObject({ name: "ConnectionError", code: 50311, type: "connection_failed" });
    expect((refused as Error).message).toContain(`GET http://127.0.0.1:${port}/pay/v1/payments`);
    expect((refused as Error).message).not.toContain("sk_test_secret123");
    expect((refused as Error).cause).toBeInstanceOf(Error);

    // A server that never answers: the attempt's time limit.
    const silent = express();
    silent.use(() => undefined);
    const slow = createPaymentClient({ baseUrl: await listen(silent), apiKey: "sk_test_x", retries: 0, timeoutMs: 150 });
    const timedOut = await caught(slow.payments.retrieve("inv_1"));
    expect(timedOut).toBeInstanceOf(ConnectionError);
    expect((timedOut as Error).message).toMatch(/no answer within 150 ms/);
  });
});

describe("errors of the in-process API", () => {
  it("rejects an unknown merchant as AuthenticationError", async () => {
    const h = await setup({ publicUrl: PUBLIC_URL });
    const error = await caught(h.router.forMerchant("mch_nope", "test").payments.list());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ code: 40101 });
  });
});
