/**
 * A benchmark target, run in its own process so that the load generator does not share its
 * event loop: `tsx bench/target.ts bare|router`. Prints one JSON line (port and what the load
 * needs) once it listens.
 */
import { randomBytes } from "node:crypto";
import express from "express";
import { createPaymentRouter, memoryStorage, staticPricing } from "../dist/index.js";
import { coinbase, coingecko, exchangeRates, kraken } from "../dist/rates.js";

const kind = process.argv[2];
const app = express();
let ready: Record<string, unknown> = {};

if (kind === "bare") {
  // The baseline: what any Express app pays for a JSON route that stores and returns a record
  // of the same shape and size as the router's invoice, so both send the same bytes.
  const invoices = new Map<string, Record<string, unknown>>();
  app.post("/bare/create", express.json(), (req, res) => {
    const id = `inv_${randomBytes(18).toString("base64url")}`;
    const now = Date.now();
    const invoice = {
      id,
      merchantId: "mch_0123456789abcdefghijklmn",
      paymentUrl: `http://127.0.0.1/pay/${id}`,
      status: "PENDING",
      address: null,
      txHash: null,
      amount: req.body.amount,
      amountCurrency: req.body.amountCurrency ?? "USD",
      rate: null,
      payAmount: null,
      receivedAmount: 0,
      cryptoCurrency: null,
      network: null,
      acceptedCoins: req.body.acceptedCoins ?? null,
      feePaidByPayer: false,
      underPaidCover: 0,
      isWhiteLabel: false,
      returnUrl: null,
      metadata: null,
      expiresAt: new Date(now + (req.body.lifeTime ?? 1440) * 60_000).toISOString(),
      createdAt: new Date(now).toISOString(),
    };
    invoices.set(id, invoice);
    res.json(invoice);
  });
  app.post("/bare/fetch", express.json(), (req, res) => {
    const invoice = invoices.get(req.body.invoiceId);
    if (!invoice) return void res.status(404).json({ error: 40401, message: "not found" });
    res.json(invoice);
  });
} else if (kind === "router" || kind === "priced-static" || kind === "priced-rates") {
  // router: in memory, like the bare side's Map: this bench measures the router itself
  // (bench/storage.ts measures it on PostgreSQL and PGlite against a bare route on the same
  // database). priced-*: the same router quoting from the fixed table, or from exchangeRates()
  // over three providers' APIs (local servers whose URLs bench/rates.ts passes): what live
  // prices cost a quote.
  const urls = JSON.parse(process.argv[3] ?? "{}") as Record<string, string>;
  const pricing =
    kind === "router"
      ? undefined
      : kind === "priced-static"
        ? staticPricing()
        : exchangeRates({ sources: [coinbase({ baseUrl: urls.coinbase }), kraken({ baseUrl: urls.kraken }), coingecko({ baseUrl: urls.coingecko })] });
  const payments = createPaymentRouter({ storage: memoryStorage(), backgroundIntervalMs: false, ...(pricing ? { pricing } : {}) });
  const merchant = await payments.admin.createMerchant({ name: "Bench" });
  const { key } = await payments.admin.issueApiKey(merchant.id, { mode: "test" });
  app.use(payments);
  ready = { key };
} else {
  throw new Error(`unknown target ${kind}`);
}

const server = app.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  console.log(JSON.stringify({ port: address.port, ...ready }));
});

// Exit cleanly on a signal so that tools like --cpu-prof get to write their output.
process.on("SIGTERM", () => process.exit(0));
