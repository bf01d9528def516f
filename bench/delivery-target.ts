/**
 * The payment router of bench/deliveries.ts, in its own process, on a PostgreSQL server:
 * `tsx bench/delivery-target.ts <connectionString#schema> <seed|send> [webhook options as JSON]`.
 *
 * - seed: the router with its webhook sender off, so that invoices created through it queue
 *   their deliveries and nothing sends them (the backlog a measurement starts from).
 * - send: the router with its sender running as in production (polling, woken by its own
 *   commits), with the webhook options given; it creates nothing by itself.
 *
 * Both use one bench merchant and key, created on first start. Prints one JSON line (port and
 * key) once it listens; exits cleanly on SIGTERM (and dies on SIGKILL, for the crash run).
 */
import express from "express";
import { createPaymentRouter } from "../dist/index.js";
import { postgresStorage } from "../dist/postgres.js";

const [where, role, optionsJson] = process.argv.slice(2);
if (!where || (role !== "seed" && role !== "send")) throw new Error("usage: delivery-target.ts <connectionString#schema> <seed|send> [options JSON]");
const [connectionString, schema] = where.split("#");
const MERCHANT = "mch_bench_deliveries";
const KEY = "sk_test_BenchDeliveriesKey00000000001";

const storage = postgresStorage({ connectionString: connectionString!, schema: schema! });
await storage.ready;
const options = optionsJson ? (JSON.parse(optionsJson) as Record<string, unknown>) : {};
const router = createPaymentRouter({
  storage,
  backgroundIntervalMs: false,
  publicUrl: "http://127.0.0.1",
  // The receiver listens on 127.0.0.1.
  webhooks: role === "seed" ? { intervalMs: false, allowPrivateUrls: true } : { allowPrivateUrls: true, ...options },
});
if (!(await router.admin.getMerchant(MERCHANT))) {
  try {
    await router.admin.createMerchant({ name: "Bench", id: MERCHANT });
    await router.admin.issueApiKey(MERCHANT, { key: KEY });
  } catch {
    // Two instances starting at once on a new schema: the other one created them.
  }
}
const app = express();
app.use(router);
const server = app.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  console.log(JSON.stringify({ port: address.port, key: KEY }));
});

process.on("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  void router.close().finally(() => process.exit(0));
});
