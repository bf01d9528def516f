// The app the README of the last release (0.1.x) showed, as a user copied it: compiled with
// tsc --strict against the package's .d.ts (not run), so a move of a public name that breaks
// it fails here. Each snippet is a function of its own.
import type { AddressInfo } from "node:net";
import express from "express";
import { createPaymentClient, createPaymentRouter, InvalidRequestError, RateLimitError, type Storage, webhookHandler } from "express-crypto-pay";
import { postgresStorage } from "express-crypto-pay/postgres";

export async function quickStart(): Promise<void> {
  const app = express();
  const payments = createPaymentRouter({ publicUrl: "https://shop.example" });
  app.use(payments);
  app.use(express.json());
  const merchant = await payments.admin.createMerchant({ name: "My shop" });
  const { key } = await payments.admin.issueApiKey(merchant.id, { mode: "test" });
  console.log(key.slice(0, 8));
}

export async function invoiceToCompleted(): Promise<void> {
  const payments = createPaymentRouter({
    publicUrl: "http://127.0.0.1:3000",
    backgroundIntervalMs: false,
    webhooks: { intervalMs: false, allowPrivateUrls: true },
  });
  const app = express();
  app.use(payments);
  const server = app.listen(3000, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const merchant = await payments.admin.createMerchant({ name: "My shop" });
  const api = payments.forMerchant(merchant.id, "test");
  const endpoint = await api.webhookEndpoints.create({ url: `${base}/hooks/pay`, events: ["payment.completed"] });
  app.post(
    "/hooks/pay",
    webhookHandler({
      secret: endpoint.secret,
      on: {
        "payment.completed": (event) => {
          const orderId = event.data.metadata?.orderId;
          if (typeof orderId === "string") console.log(`order ${orderId} is paid (${event.data.status})`);
        },
      },
    }),
  );
  const payment = await api.payments.create({ amount: "25", currency: "USDT", chain: "TRX", metadata: { orderId: "1042" } });
  payments.sandbox.createDeposit({ coin: "USDT", network: "TRX", address: payment.address!, amount: 25_000_000n, confirmations: 19 });
  const { webhooksSent } = await payments.tick();
  console.log(`${webhooksSent} webhook sent`);
  server.close();
  await payments.close();
}

export async function typedClient(): Promise<void> {
  const client = createPaymentClient({ baseUrl: "https://shop.example", apiKey: process.env.PAYMENTS_KEY ?? "" });
  for await (const payment of client.payments.list({ status: "PAID" })) console.log(payment.id, payment.amount);
  const latest = await client.payments.list({ limit: 10 });
  const some = await client.refunds.list().autoPagingToArray({ limit: 1000 });
  console.log(latest.data.length, some.length);
  try {
    await client.payments.retrieve("inv_unknown");
  } catch (error) {
    if (error instanceof InvalidRequestError) console.log(error.code, error.message);
    else if (error instanceof RateLimitError) console.log(`retry in ${error.retryAfter} s`);
    else throw error;
  }
}

/** `inner` with each unit of work timed; every other method is `inner`'s own. */
function timed<S extends Storage>(inner: S): S {
  return {
    ...inner,
    transaction: async (work) => {
      const started = performance.now();
      try {
        return await inner.transaction(work);
      } finally {
        console.log(`storage transaction: ${(performance.now() - started).toFixed(1)} ms`);
      }
    },
  };
}

export function storage(): void {
  createPaymentRouter({ storage: timed(postgresStorage({ connectionString: process.env.DATABASE_URL ?? "postgres://localhost/shop" })) });
}

export function operating(): void {
  const app = express();
  const payments = createPaymentRouter({ health: { nodeDownAfterMs: 60_000, maxLagSeconds: 600 } });
  app.use(payments);
  app.get("/livez", payments.livenessHandler);
  app.get("/health", payments.healthHandler);
  app.get("/metrics", payments.metricsHandler);
}
