// An ESM host app, as a user writes it against the installed package: the router with its
// embedded defaults (PGlite in ./.data), the API reference page and its assets, and a webhook
// sent by the service to this app's own webhookHandler, and the hosted page with the merchant's
// branding, in the payer's language, with a wallet link. Prints what it saw as one JSON line.
import express from "express";
import { createPaymentRouter, webhookHandler } from "express-crypto-pay";

const quiet = { warn: () => undefined, error: (...args) => console.error(...args) };
const payments = createPaymentRouter({
  backgroundIntervalMs: false,
  webhooks: { intervalMs: false, allowPrivateUrls: true }, // the receiver is this app, on 127.0.0.1
  logger: quiet,
  payPage: { merchantName: "Tarball Shop", logoUrl: "https://cdn.shop.example/logo.svg", accentColor: "#0a7c66" },
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
  // After the tick: this payment's own webhook is not part of what the tick above sent.
  const onEthereum = await call("/v1/payments", { amount: "25", currency: "USDT", chain: "ETH" });
  const pageText = await (await fetch(`${base}${new URL(onEthereum.body.checkoutUrl).pathname}`, { headers: { "accept-language": "de-DE,de;q=0.9" } })).text();
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
      hostedPage: {
        lang: /<html lang="(\w+)">/.exec(pageText)?.[1],
        walletLink: /href="(ethereum:[^"]+)" data-wallet-link/.exec(pageText)?.[1]?.replace(/address=[^&]+/, "address=…"),
        brand: pageText.includes('<span class="merchant">Tarball Shop</span>'),
        heading: /<h1>([^<]+)<\/h1>/.exec(pageText)?.[1],
      },
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
