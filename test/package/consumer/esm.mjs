// An ESM host app, as a user writes it against the installed package: the router with its
// embedded defaults (PGlite in ./.data), the API reference page and its assets, and a webhook
// sent by the service to this app's own webhookHandler. Prints what it saw as one JSON line.
import express from "express";
import { createPaymentRouter, webhookHandler } from "express-crypto-pay";

const quiet = { warn: () => undefined, error: (...args) => console.error(...args) };
const payments = createPaymentRouter({
  backgroundIntervalMs: false,
  webhooks: { intervalMs: false, allowPrivateUrls: true }, // the receiver is this app, on 127.0.0.1
  logger: quiet,
});
const received = [];
let receive = (_req, res) => void res.status(503).end();
const app = express();
app.post("/hooks/pay", (req, res, next) => receive(req, res, next));
app.use(payments);
const server = await new Promise((resolve) => {
  const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
});
const base = `http://127.0.0.1:${server.address().port}`;

try {
  const merchant = await payments.admin.createMerchant({ name: "Shop" });
  const { key } = await payments.admin.issueApiKey(merchant.id, { mode: "test" });
  const call = async (path, body) => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  const endpoint = await call("/v1/webhook-endpoints", { url: `${base}/hooks/pay` });
  receive = webhookHandler({ secret: endpoint.body.secret, on: { "payment.created": (event) => void received.push(event.data.metadata?.orderId) } });
  const payment = await call("/v1/payments", { amount: "25", currency: "USDT", chain: "TRX", metadata: { orderId: "order-1" } });
  const unknown = await call("/api/v1/merchants/invoice/fetch", { invoiceId: "inv_00000000000000000000000000" });
  const tick = await payments.tick();
  const get = async (path) => {
    const response = await fetch(`${base}${path}`);
    return { status: response.status, type: response.headers.get("content-type"), size: (await response.arrayBuffer()).byteLength };
  };
  console.log(
    JSON.stringify({
      payment: { status: payment.status, state: payment.body.status },
      unknownInvoice: { status: unknown.status, error: unknown.body.error },
      webhooksSent: tick.webhooksSent,
      received,
      page: await get(new URL(payment.body.checkoutUrl).pathname),
      reference: await get("/api"),
      openapi: await get("/api/openapi"),
      bundle: await get("/api/assets/swagger-ui-bundle.js"),
      stylesheet: await get("/api/assets/swagger-ui.css"),
    }),
  );
} finally {
  server.close();
  await payments.close();
}
