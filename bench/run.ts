/**
 * `npm run bench`: requests per second through the mounted router against a bare Express +
 * express.json() route doing the same job, measured in the same run on the same machine, and
 * reported as a ratio. Each target runs in its own process; autocannon drives it from this one.
 * Set BENCH_SECONDS to change the duration of each measurement (default 5).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import autocannon from "autocannon";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = 10;

interface Target {
  child: ChildProcess;
  info: { port: number; key?: string; invoiceId?: string };
}

async function startTarget(kind: "bare" | "router"): Promise<Target> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/target.ts", kind], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, "line")) as [string];
  return { child, info: JSON.parse(line) };
}

async function stopTarget(target: Target): Promise<void> {
  target.child.kill();
  await once(target.child, "exit");
}

async function measure(port: number, path: string, body: unknown, key?: string): Promise<{ rps: number; p99: number; errors: number }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key) headers.authorization = `Bearer ${key}`;
  const options = { url: `http://127.0.0.1:${port}${path}`, method: "POST" as const, headers, body: JSON.stringify(body), connections };
  await autocannon({ ...options, duration: 1 }); // warm-up: JIT, caches, connection setup
  const result = await autocannon({ ...options, duration: seconds });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

const createBody = { amount: 25, amountCurrency: "USD", acceptedCoins: ["USDT", "BTC"], lifeTime: 60 };
const rows: Array<{ name: string; ours: number; bare: number; target: number; errors: number; p99: number; bareP99: number }> = [];

const bare = await startTarget("bare");
const bareCreate = await measure(bare.info.port, "/bare/create", createBody);
const bareFetch = await measure(bare.info.port, "/bare/fetch", { invoiceId: bare.info.invoiceId });
await stopTarget(bare);

const router = await startTarget("router");
const created = await fetch(`http://127.0.0.1:${router.info.port}/api/v1/merchants/invoice/create`, {
  method: "POST",
  headers: { "content-type": "application/json", authorization: `Bearer ${router.info.key}` },
  body: JSON.stringify(createBody),
});
const invoice = (await created.json()) as { id: string };
const ourCreate = await measure(router.info.port, "/api/v1/merchants/invoice/create", createBody, router.info.key);
const ourFetch = await measure(router.info.port, "/api/v1/merchants/invoice/fetch", { invoiceId: invoice.id }, router.info.key);
await stopTarget(router);

rows.push({ name: "invoice/create", ours: ourCreate.rps, bare: bareCreate.rps, target: 0.75, errors: ourCreate.errors, p99: ourCreate.p99, bareP99: bareCreate.p99 });
rows.push({ name: "invoice/fetch", ours: ourFetch.rps, bare: bareFetch.rps, target: 0.75, errors: ourFetch.errors, p99: ourFetch.p99, bareP99: bareFetch.p99 });

console.log(`\n${seconds}s per measurement, ${connections} connections, node ${process.version}\n`);
console.log("endpoint         router req/s   bare req/s   ratio   target   p99 ms (router/bare)   non-2xx");
for (const row of rows) {
  const ratio = row.ours / row.bare;
  console.log(
    `${row.name.padEnd(16)} ${row.ours.toFixed(0).padStart(12)} ${row.bare.toFixed(0).padStart(12)} ${ratio.toFixed(2).padStart(7)} ${`>=${row.target}`.padStart(8)}   ${`${row.p99}/${row.bareP99}`.padStart(20)} ${String(row.errors).padStart(9)}  ${ratio >= row.target ? "ok" : "BELOW TARGET"}`,
  );
}
