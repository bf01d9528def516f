// A CommonJS host app: require() of every entry point but ./testing (ESM only: it imports
// vitest), then the router on memory storage answering the API. Prints one JSON line.
const express = require("express");
const { createPaymentRouter, memoryStorage, verifyWebhook, PaymentError } = require("express-crypto-pay");
const { webhookHeaders } = require("express-crypto-pay/webhooks");
const { AUTO_PAGING_MAX } = require("express-crypto-pay/client");
const { sendExport } = require("express-crypto-pay/operator");
const { fanOut } = require("express-crypto-pay/storage");
const { isValidAddress } = require("express-crypto-pay/chains");
const { moneroChain } = require("express-crypto-pay/monero");
const { postgresStorage } = require("express-crypto-pay/postgres");
const { evmChain } = require("express-crypto-pay/evm");
const { bitcoinChain } = require("express-crypto-pay/bitcoin");
const { exchangeRates } = require("express-crypto-pay/rates");

async function main() {
  const payments = createPaymentRouter({
    storage: memoryStorage(),
    backgroundIntervalMs: false,
    webhooks: { intervalMs: false },
    logger: { warn: () => undefined, error: console.error },
  });
  const app = express();
  app.use(payments);
  const server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  try {
    const merchant = await payments.admin.createMerchant({ name: "Shop" });
    const { key } = await payments.admin.issueApiKey(merchant.id, { mode: "test" });
    const post = (path, body) =>
      fetch(`http://127.0.0.1:${server.address().port}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const response = await post("/api/v1/merchants/invoice/create", { amount: 25 });
    const invoice = await response.json();
    // On Express 4 this was an unhandled rejection that ended the process.
    const unknown = await post("/api/v1/merchants/invoice/fetch", { invoiceId: "inv_00000000000000000000000000" });
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const body = JSON.stringify({ type: "custom.event", timestamp: new Date().toISOString(), data: {} });
    const event = verifyWebhook(body, webhookHeaders({ id: "msg_1", body }, secret), secret);
    console.log(
      JSON.stringify({
        entries: [postgresStorage, evmChain, bitcoinChain, moneroChain, exchangeRates, PaymentError, sendExport, fanOut, isValidAddress].map(
          (entry) => typeof entry,
        ),
        autoPagingMax: AUTO_PAGING_MAX,
        invoice: { status: response.status, state: invoice.status },
        unknownInvoice: { status: unknown.status, error: (await unknown.json()).error },
        verified: event.type,
      }),
    );
  } finally {
    server.close();
    await payments.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
