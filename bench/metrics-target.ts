/**
 * The target of bench/metrics.ts: `tsx bench/metrics-target.ts [on|metrics|tracing]`. One
 * process serving two routers on two ports, so both sides share the process, its JIT and its
 * heap, and a measurement compares them alone:
 * - the measured side, as installed with prom-client and @opentelemetry/api: `on` (default),
 *   metrics on a private registry and spans through the API with no provider registered (a host
 *   that traces nothing); `metrics` or `tracing`, one of the two alone; `off`, both off (the
 *   setup measured against itself: what its figure is worth);
 * - the baseline, the same router with `metrics: false, tracing: false`.
 * A third port answers the process's CPU time. Prints one JSON line once all listen:
 * `{ port, key, offPort, offKey, cpuPort }`.
 */
import type { AddressInfo } from "node:net";
import express from "express";
import { createPaymentRouter, memoryStorage } from "../dist/index.js";

const kind = process.argv[2] ?? "on";
if (kind !== "on" && kind !== "metrics" && kind !== "tracing" && kind !== "off") throw new Error(`unknown target ${kind}`);

async function serve(side: "measured" | "off"): Promise<{ port: number; key: string }> {
  const app = express();
  const payments = createPaymentRouter({
    storage: memoryStorage(),
    backgroundIntervalMs: false,
    publicUrl: "http://127.0.0.1",
    ...(side === "off" || kind === "tracing" || kind === "off" ? { metrics: false as const } : {}),
    ...(side === "off" || kind === "metrics" || kind === "off" ? { tracing: false } : {}),
  });
  const merchant = await payments.admin.createMerchant({ name: "Bench" });
  const { key } = await payments.admin.issueApiKey(merchant.id, { mode: "test" });
  app.get("/metrics", payments.metricsHandler);
  app.use(payments);
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return { port: (server.address() as AddressInfo).port, key };
}

const measured = await serve("measured");
const off = await serve("off");
// The process's CPU time (user + system, microseconds, GC threads included), for the bench to
// take per measurement: only one side is loaded at a time, so the difference is that side's.
const cpu = express()
  .get("/cpu", (_req, res) => {
    const used = process.cpuUsage();
    res.json({ micros: used.user + used.system });
  })
  .listen(0, "127.0.0.1");
await new Promise((resolve) => cpu.once("listening", resolve));
const cpuPort = (cpu.address() as AddressInfo).port;
console.log(JSON.stringify({ port: measured.port, key: measured.key, offPort: off.port, offKey: off.key, cpuPort }));

process.on("SIGTERM", () => process.exit(0));
