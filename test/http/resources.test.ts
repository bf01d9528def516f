import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { MerchantApiViews } from "../../src/core/views/merchant-api";
import type { RouteOperation } from "../../src/api/route-table";
import type { V1Views } from "../../src/core/views/v1";
import { apiReferenceOf } from "../../src/http/routes/docs";
import type { deliveryView, endpointView } from "../../src/core/views/webhook-endpoints";
import type { EventType } from "../../src/core/webhooks/records";
import { eventSchemas } from "../../src/schemas/events";
import * as resources from "../../src/schemas/resources";
import type * as v1 from "../../src/schemas/v1-resources";
import type { subscription as subscriptionSchema } from "../../src/schemas/v1-subscriptions";
import type { subscriptionView } from "../../src/core/views/subscription";
import { setup, type Harness } from "../helpers";

/**
 * Real answers of every mounted route, checked twice: with the zod schema the route was
 * documented with, and with the JSON Schema the served OpenAPI document gives for it. A field
 * added to a presenter, renamed or retyped fails here until its schema follows.
 */

type Json = Record<string, any>;
type Method = "GET" | "POST" | "DELETE";

/** A local webhook receiver on 127.0.0.1 that answers 200 and keeps the bodies. */
async function startReceiver(): Promise<{ url: string; bodies: string[]; server: Server }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      bodies.push(body);
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies, server };
}

describe("responses conform to the documented schemas", () => {
  let h: Harness;
  let document: Json;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let routes: { key: string; pattern: RegExp; params: number; prefix: string; route: RouteOperation }[];
  const checked = new Set<string>();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat("int32", { type: "number", validate: (value: number) => Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31 });
  const compiled = new Map<string, ValidateFunction>();

  /** The document's JSON Schema at `pointer` (e.g. a response's schema), compiled with the document's components. */
  function documented(key: string, schema: Json): ValidateFunction {
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile({ ...schema, components: document.components });
      compiled.set(key, validate);
    }
    return validate;
  }

  function expectValid(validate: ValidateFunction, body: unknown, what: string): void {
    const valid = validate(body);
    expect(valid ? "" : ajv.errorsText(validate.errors), what).toBe("");
  }

  /** Sends a request with the test key and checks a 200 answer against its route's schemas. */
  async function call(method: Method, url: string, body?: object): Promise<Json> {
    let test = (request(h.app) as unknown as Record<string, (url: string) => request.Test>)[method.toLowerCase()]!(url).set(
      "Authorization",
      `Bearer ${h.testKey}`,
    );
    if (body !== undefined) test = test.send(body);
    const res = await test;
    const path = url.split("?")[0]!;
    expect(res.status, `${method} ${url}: ${res.text}`).toBe(200);
    const match = routes.filter((entry) => entry.route.method === method && entry.pattern.test(path)).sort((a, b) => a.params - b.params)[0];
    expect(match, `${method} ${path} is a mounted route`).toBeDefined();
    const { route, key, prefix } = match!;
    const parsed = route.docs!.response.safeParse(res.body);
    expect(parsed.success ? [] : parsed.error.issues, `${key}: zod schema`).toEqual([]);
    const schema = document.paths[prefix + route.path][method.toLowerCase()].responses["200"].content["application/json"].schema;
    expectValid(documented(key, schema), res.body, `${key}: document's JSON Schema`);
    checked.add(key);
    return res.body;
  }

  function expectErrorConforms(res: request.Response, status: number): void {
    expect(res.status).toBe(status);
    expect(resources.errorObject.safeParse(res.body).success).toBe(true);
    expectValid(documented("Error", { $ref: "#/components/schemas/Error" }), res.body, "error object");
  }

  beforeAll(async () => {
    h = await setup();
    receiver = await startReceiver();
    document = (await request(h.app).get("/api/openapi")).body;
    const reference = apiReferenceOf(h.router)!;
    routes = reference.apis.flatMap(({ prefix, table }) =>
      table.operations().map((route) => ({
        key: `${route.method} ${prefix}${route.path}`,
        pattern: new RegExp(`^${(prefix + route.path).replace(/\{[^}]+\}/g, "[^/]+")}$`),
        params: route.pathParams.length,
        prefix,
        route,
      })),
    );
  });
  afterAll(async () => {
    await h.router.close();
    await new Promise((resolve) => receiver.server.close(resolve));
  });

  let endpointId = "";

  it("webhook endpoint views: create (with its secret), list, fetch, rotate", async () => {
    const created = await call("POST", "/v1/webhook-endpoints", { url: receiver.url });
    expect(created.secret).toMatch(/^whsec_/);
    endpointId = created.id;
    await call("GET", "/v1/webhook-endpoints");
    const fetched = await call("GET", `/v1/webhook-endpoints/${endpointId}`);
    expect(fetched.secret).toBeUndefined();
    await call("POST", `/v1/webhook-endpoints/${endpointId}/rotate-secret`);
    await call("POST", `/v1/webhook-endpoints/${endpointId}/disable`);
    await call("POST", `/v1/webhook-endpoints/${endpointId}/enable`);
  });

  it("invoices: hosted, whitelabel, fetched, paid through the sandbox, expired", async () => {
    const hosted = await call("POST", "/api/v1/merchants/invoice/create", { amount: 25, metadata: { orderId: "o-1" }, returnUrl: "https://shop.example/done" });
    expect(hosted.address).toBeNull();
    const invoice = await call("POST", "/api/v1/merchants/whitelabel/create", { amount: 100, payCurrency: "USDT", network: "TRX" });
    const deposit = await call("POST", "/api/v1/sandbox/deposit/create", { address: invoice.address, amount: invoice.payAmount });
    await call("POST", "/api/v1/sandbox/deposit/confirm", { txHash: deposit.txHash, confirmations: 19 });
    const paid = await call("POST", "/api/v1/merchants/invoice/fetch", { invoiceId: invoice.id });
    expect(paid.status).toBe("PAID");

    const other = await call("POST", "/api/v1/merchants/whitelabel/create", { amount: 5, payCurrency: "USDT", network: "TRX" });
    const dropped = await call("POST", "/api/v1/sandbox/deposit/create", { address: other.address, amount: 1 });
    await call("POST", "/api/v1/sandbox/deposit/drop", { txHash: dropped.txHash });
    const expired = await call("POST", "/api/v1/sandbox/invoice/expire", { invoiceId: hosted.id });
    expect(expired.status).toBe("EXPIRED");
  });

  it("payouts: created, fetched, failed by the sandbox", async () => {
    const payout = await call("POST", "/api/v1/merchants/payout/create", {
      currency: "USDT",
      network: "TRX",
      amount: 10,
      address: "TCUmA2JEPuSiBFmNGRiVktBZKbLB89JnSq",
    });
    await call("POST", "/api/v1/merchants/payout/fetch", { payoutId: payout.id });
    const failed = await call("POST", "/api/v1/sandbox/payout/fail", { payoutId: payout.id, reason: "rejected" });
    expect(failed.failureReason).toBe("rejected");
  });

  it("reference lists and exchanges", async () => {
    await call("POST", "/api/v1/currencies");
    const pairs = (await call("POST", "/api/v1/exchange/pairs")) as unknown as Json[];
    const pair = pairs.find((entry) => entry.fromCurrency.symbol === "USDT" && entry.minAmount <= 20)!;
    expect(pair).toBeDefined();
    await call("POST", "/api/v1/merchants/exchange/create", { fromCurrency: "USDT", toCurrency: pair.toCurrency.symbol, amount: 20 });
  });

  it("webhook deliveries: test event, delivered, listed, fetched, redelivered; then the endpoint deleted", async () => {
    await call("POST", `/v1/webhook-endpoints/${endpointId}/test`);
    await h.router.tick();
    const page = await call("GET", `/v1/webhook-deliveries?limit=2&endpointId=${endpointId}`);
    expect(page.hasMore).toBe(true);
    await call("GET", `/v1/webhook-deliveries?cursor=${page.nextCursor}`);
    const delivery = await call("GET", `/v1/webhook-deliveries/${page.data[0].id}`);
    expect(delivery.attempts.length).toBeGreaterThan(0);
    await call("POST", `/v1/webhook-deliveries/${delivery.id}/redeliver`);
    await call("POST", `/v1/webhook-endpoints/${endpointId}/test`, { type: "refund.failed" });
    const events = await call("GET", "/v1/events?limit=2");
    expect(events.data.length).toBeGreaterThan(0);
    await call("GET", `/v1/events?after=${events.nextCursor}`);
    await call("GET", "/v1/events?after=now");
    await call("DELETE", `/v1/webhook-endpoints/${endpointId}`);
  });

  it("/v1 payments, refunds, withdrawals, conversions, balances and payment links", async () => {
    // A coin on several networks without `chain`: the payer picks on the hosted page, so the network fields are null.
    const hosted = await call("POST", "/v1/payments", { amount: "25", currency: "USDT", amountCurrency: "USD", metadata: { orderId: "o-2" } });
    expect(hosted.chain).toBeNull();
    // Funds the merchant: 100 USDT paid in full and confirmed through the sandbox.
    const payment = await call("POST", "/v1/payments", { amount: "100", currency: "USDT", chain: "TRX" });
    await call("POST", "/api/v1/sandbox/deposit/create", { address: payment.address, amount: Number(payment.payAmount), confirmations: 19 });
    expect((await call("GET", `/v1/payments/${payment.id}`)).status).toBe("PAID");
    const payments = await call("GET", "/v1/payments?limit=1&chain=TRX");
    expect(payments.hasMore).toBe(true);
    await call("GET", `/v1/payments?cursor=${payments.nextCursor}&status=PAID`);
    // Auto-conversion: this payment's credit becomes TRX, a conversion with its paymentId.
    const settled = await call("POST", "/v1/payments", { amount: "10", currency: "USDT", chain: "TRX", settleCurrency: "TRX" });
    await call("POST", "/api/v1/sandbox/deposit/create", { address: settled.address, amount: Number(settled.payAmount), confirmations: 19 });
    // An unconfirmed deposit, so a balance has something pending.
    const unconfirmed = await call("POST", "/v1/payments", { amount: "5", currency: "USDT", chain: "TRX" });
    await call("POST", "/api/v1/sandbox/deposit/create", { address: unconfirmed.address, amount: 1 });

    const refund = await call("POST", "/v1/refunds", { paymentId: payment.id, amount: "30", address: "TQjw9LfWkygUMPoV5tvokXQX2YLdStctTe" });
    expect(refund.paymentId).toBe(payment.id);
    await call("GET", `/v1/refunds/${refund.id}`);
    expect((await call("GET", `/v1/refunds?paymentId=${payment.id}`)).data).toHaveLength(1);
    // Refund claim links: one cancelled, one expired through the sandbox, each read back with its terms.
    const claim = await call("POST", "/v1/refunds", { paymentId: payment.id, amount: "10", currency: "USD", claimChains: ["TRX", "BSC"] });
    expect(claim.claimUrl).toMatch(/\/pay\/refund\//);
    expect((await call("POST", `/v1/refunds/${claim.id}/cancel`)).status).toBe("CANCELLED");
    const lapsing = await call("POST", "/v1/refunds", { paymentId: payment.id, amount: "10" });
    expect((await call("POST", "/api/v1/sandbox/refund/expire", { refundId: lapsing.id })).status).toBe("EXPIRED");
    expect((await call("GET", `/v1/refunds/${lapsing.id}`)).claim.claimedAt).toBeNull();

    const withdrawal = await call("POST", "/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "10", address: "TCUmA2JEPuSiBFmNGRiVktBZKbLB89JnSq" });
    await h.router.tick();
    expect((await call("GET", `/v1/withdrawals/${withdrawal.id}`)).status).toBe("COMPLETED");
    await call("GET", "/v1/withdrawals"); // with the FAILED /api/v1 payout of an earlier test
    await call("GET", "/v1/withdrawals?status=COMPLETED");

    const conversion = await call("POST", "/v1/conversions", { fromCurrency: "USDT", toCurrency: "TRX", amount: "10" });
    expect(conversion.paymentId).toBeNull();
    await call("GET", `/v1/conversions/${conversion.id}`);
    const conversions = await call("GET", "/v1/conversions");
    expect(conversions.data.map((row: Json) => row.paymentId)).toContain(settled.id);

    const balances = await call("GET", "/v1/balances");
    const usdt = balances.data.find((row: Json) => row.currency === "USDT");
    expect(usdt.pending).not.toBe("0");
    expect(balances.data.some((row: Json) => row.lastSettledAt === null)).toBe(true);

    const link = await call("POST", "/v1/payment-links", {
      amount: "25",
      acceptedCoins: ["USDT"],
      returnUrl: "https://shop.example/done",
      metadata: { sku: "tee" },
    });
    expect((await request(h.app).post(new URL(link.url).pathname)).status).toBe(303); // the link page's button
    await call("GET", `/v1/payment-links/${link.id}`);
    await call("GET", "/v1/payment-links");
    expect((await call("POST", `/v1/payment-links/${link.id}/deactivate`)).active).toBe(false);

    // Subscriptions
    const subscription = await call("POST", "/v1/subscriptions", {
      customer: "cus_9",
      amount: "10",
      currency: "USD",
      interval: "month",
      metadata: { plan: "pro" },
    });
    expect(subscription.openPaymentId).toMatch(/^inv_/);
    await call("GET", `/v1/subscriptions/${subscription.id}`);
    await call("GET", "/v1/subscriptions?status=active&customer=cus_9");
    await call("POST", `/v1/subscriptions/${subscription.id}`, { amount: "12", metadata: null });
    await call("POST", `/v1/subscriptions/${subscription.id}/payer-link`);
    expect((await call("POST", "/api/v1/sandbox/subscription/advance", { subscriptionId: subscription.id })).status).toBe("past_due");
    expect((await call("POST", `/v1/subscriptions/${subscription.id}/cancel`, { atPeriodEnd: false })).cancelledAt).not.toBeNull();
  });

  it("event bodies match the document's webhooks and the receiver's schema", () => {
    expect(receiver.bodies.length).toBeGreaterThan(3);
    const types = new Set<string>();
    for (const text of receiver.bodies) {
      const body = JSON.parse(text);
      types.add(body.type);
      expect(eventSchemas[body.type as EventType].safeParse(body).success).toBe(true);
      const schema = document.webhooks[body.type].post.requestBody.content["application/json"].schema;
      expectValid(documented(`webhook ${body.type}`, schema), body, `${body.type} event`);
    }
    expect([...types]).toEqual(
      // Until the endpoint was deleted: payments, the /api/v1 payout that failed, the exchange.
      expect.arrayContaining(["payment.created", "payment.confirming", "payment.completed", "payout.processing", "payout.failed", "conversion.completed"]),
    );
  });

  it("error answers are the documented error object", async () => {
    expectErrorConforms(await request(h.app).post("/api/v1/merchants/invoice/create").send({ amount: 1 }), 401);
    expectErrorConforms(await h.post("/api/v1/merchants/invoice/create", { amount: -1 }), 400);
    expectErrorConforms(await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: "inv_missing" }), 404);
    expectErrorConforms(await request(h.app).get("/api/missing"), 404);
  });

  it("checked an answer of every mounted route", () => {
    const unchecked = routes.map((entry) => entry.key).filter((key) => !checked.has(key));
    expect(unchecked, "routes without a conformance check: add a call to test/http/resources.test.ts").toEqual([]);
  });
});

describe("resource schemas and presenters", () => {
  it("have the same TypeScript types (checked by tsc)", () => {
    expectTypeOf<ReturnType<MerchantApiViews["invoice"]>>().toEqualTypeOf<z.output<typeof resources.invoice>>();
    expectTypeOf<ReturnType<MerchantApiViews["payout"]>>().toEqualTypeOf<z.output<typeof resources.payout>>();
    expectTypeOf<ReturnType<MerchantApiViews["exchange"]>>().toEqualTypeOf<z.output<typeof resources.exchange>>();
    expectTypeOf<ReturnType<MerchantApiViews["currencyList"]>>().toEqualTypeOf<z.output<typeof resources.currencyList>>();
    expectTypeOf<ReturnType<MerchantApiViews["pair"]>>().toEqualTypeOf<z.output<typeof resources.exchangePair>>();
    // The views type their timestamps `string | null` (a helper shared with nullable ones); the schema is stricter.
    expectTypeOf<z.output<typeof resources.webhookEndpoint>>().toExtend<ReturnType<typeof endpointView>>();
    expectTypeOf<z.output<typeof resources.webhookDelivery>>().toExtend<ReturnType<typeof deliveryView>>();
    // /v1 (payments are checked against PaymentView in src/schemas/event-data.ts).
    expectTypeOf<ReturnType<V1Views["withdrawal"]>>().toEqualTypeOf<z.output<typeof v1.withdrawal>>();
    expectTypeOf<ReturnType<V1Views["conversion"]>>().toEqualTypeOf<z.output<typeof v1.conversion>>();
    expectTypeOf<ReturnType<V1Views["balance"]>>().toEqualTypeOf<z.output<typeof v1.balance>>();
    expectTypeOf<ReturnType<V1Views["paymentLink"]>>().toEqualTypeOf<z.output<typeof v1.paymentLink>>();
    expectTypeOf<ReturnType<typeof subscriptionView>>().toEqualTypeOf<z.output<typeof subscriptionSchema>>();
    // A refund's view types `paymentId` as the record's `refundOf` (`string | null`); a refund always has one.
    expectTypeOf<Omit<ReturnType<V1Views["refund"]>, "paymentId">>().toEqualTypeOf<Omit<z.output<typeof v1.refund>, "paymentId">>();
    expectTypeOf<z.output<typeof v1.refund>>().toExtend<ReturnType<V1Views["refund"]>>();
  });
});
