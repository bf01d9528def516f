/**
 * The target of bench/metrics.ts, in its own process: `tsx bench/metrics-target.ts on|off`.
 * on: the router as installed with prom-client and @opentelemetry/api (metrics on a private
 * registry, spans through the API with no provider registered, as in a host that traces
 * nothing); off: the same router with `metrics: false, tracing: false`; metrics or tracing:
 * one of the two alone. Prints one JSON line
 * (port and API key) once it listens.
 */
import express from "express";
import { createPaymentRouter, memoryStorage } from "../dist/index.js";

const kind = process.argv[2];
if (kind !== "on" && kind !== "off" && kind !== "metrics" && kind !== "tracing") throw new Error(`unknown target ${kind}`);
const app = express();
const payments = createPaymentRouter({
  storage: memoryStorage(),
  backgroundIntervalMs: false,
  // metrics, tracing: one of the two alone, to tell their costs apart (BENCH_SIDE).
  ...(kind === "off" || kind === "tracing" ? { metrics: false as const } : {}),
  ...(kind === "off" || kind === "metrics" ? { tracing: false } : {}),
});
const merchant = await payments.admin.createMerchant({ name: "Bench" });
const { key } = await payments.admin.issueApiKey(merchant.id, { mode: "test" });
app.get("/metrics", payments.metricsHandler);
app.use(payments);

const server = app.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  console.log(JSON.stringify({ port: address.port, key }));
});

process.on("SIGTERM", () => process.exit(0));
