import request from "supertest";
import type { Scope, Storage } from "../../../src/core/ports/storage/index";
import { type recordingLogger, setup, simulatedLiveChain } from "../../helpers";
import type { JsonSchema } from "./json-text";
import { HOST_FALLBACK } from "./oracle";
import type { FuzzWorld } from "./requests";
import type { ServedDocument } from "./routes";

/** A fresh app on `storage`, with records of every kind for both merchants, and what the fuzzer needs to address them. */
export async function fuzzWorld(storage: Storage) {
  const h = await setup({
    storage,
    liveChain: simulatedLiveChain(),
    // No DNS lookups for live webhook URLs; deliveries stay queued (no sender loop).
    webhooks: { intervalMs: false, allowPrivateUrls: true },
  });
  // Anything the router passes on reaches this, marked, so a check can tell the host app answered.
  h.app.use((_req, res) => void res.status(404).set(HOST_FALLBACK, "1").type("text/plain").send("host app"));

  const ids: Record<string, string[]> = {};
  const values: Record<string, string[]> = {};
  const keep = (collection: string, id: unknown) => {
    if (typeof id === "string" && id && !(ids[collection] ??= []).includes(id)) ids[collection]!.push(id);
  };
  const hint = (field: string, value: unknown) => {
    if (typeof value === "string" && value && !(values[field] ??= []).includes(value)) values[field]!.push(value);
  };
  const call = (method: "get" | "post", path: string, key: string, body?: object) => {
    const req = request(h.app)[method](path).set("Authorization", `Bearer ${key}`);
    return body ? req.send(body) : req;
  };

  // URLs a hostile string is built on ("https://shop.example/orders/1042\t"): a URL parser strips such characters silently.
  hint("returnUrl", "https://shop.example/orders/1042");
  hint("url", "https://hooks.example/fuzz");
  for (const key of [h.testKey, h.liveKey, h.otherTestKey]) {
    const endpoint = await call("post", "/v1/webhook-endpoints", key, { url: "https://hooks.example/fuzz" });
    keep("webhook-endpoints", endpoint.body.id);
    const payment = await call("post", "/v1/payments", key, { amount: "25", currency: "USDT", metadata: { orderId: "1042" } });
    keep("payments", payment.body.id);
    hint("paymentId", payment.body.id);
    hint("invoiceId", payment.body.id);
    const invoice = await call("post", "/api/v1/merchants/invoice/create", key, { amount: 25 });
    keep("payments", invoice.body.id);
    hint("invoiceId", invoice.body.id);
    const link = await call("post", "/v1/payment-links", key, { amount: "10" });
    keep("payment-links", link.body.id);
    const deliveries = await call("get", "/v1/webhook-deliveries", key);
    for (const delivery of deliveries.body.data ?? []) keep("webhook-deliveries", delivery.id);
    for (const entry of deliveries.body.data ?? []) hint("endpointId", entry.endpointId);
  }

  // Funds in test mode, so payouts, refunds and conversions can succeed: a whitelabel invoice paid in full.
  const whitelabel = await call("post", "/api/v1/merchants/whitelabel/create", h.testKey, { amount: 100, payCurrency: "USDT", network: "TRX" });
  hint("address", whitelabel.body.address);
  keep("payments", whitelabel.body.id);
  const deposit = await call("post", "/api/v1/sandbox/deposit/create", h.testKey, {
    address: whitelabel.body.address,
    amount: whitelabel.body.payAmount,
    confirmations: 1000,
  });
  hint("txHash", deposit.body.txHash);
  await h.router.tick();
  const withdrawal = await call("post", "/v1/withdrawals", h.testKey, {
    currency: "USDT",
    chain: "TRX",
    amount: "10",
    address: "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7",
  });
  keep("withdrawals", withdrawal.body.id);
  hint("payoutId", withdrawal.body.id);
  const conversion = await call("post", "/v1/conversions", h.testKey, { fromCurrency: "USDT", toCurrency: "TRX", amount: "10" });
  keep("conversions", conversion.body.id);
  const refund = await call("post", "/v1/refunds", h.testKey, { paymentId: whitelabel.body.id, amount: "10", address: "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7" });
  keep("refunds", refund.body.id);
  hint("payoutId", refund.body.id);

  const document = (await request(h.app).get("/api/openapi")).body as ServedDocument;
  const world: FuzzWorld = {
    keys: { test: h.testKey, live: h.liveKey, other: h.otherTestKey },
    ids,
    hints: (field) => values[field] ?? [],
    resolve: (ref) => document.components?.schemas?.[ref.replace("#/components/schemas/", "")] ?? ({} as JsonSchema),
  };
  const scopes: Scope[] = [
    { merchantId: h.merchant.id, mode: "test" },
    { merchantId: h.merchant.id, mode: "live" },
    { merchantId: h.other.id, mode: "test" },
    { merchantId: h.other.id, mode: "live" },
  ];
  return { h, world, scopes, document, logger: h.logger as ReturnType<typeof recordingLogger> };
}

export type FuzzApp = Awaited<ReturnType<typeof fuzzWorld>>;
