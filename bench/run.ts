/**
 * `npm run bench`: requests per second through the mounted router against a bare Express +
 * express.json() route doing the same job (store or look up an invoice-shaped record, same
 * response size), measured in the same run on the same machine and reported as a ratio.
 * The script builds first: the router is measured as users run it, from dist/.
 *
 * Each target runs in its own process and autocannon drives it from this one. Measurements
 * alternate between bare and router for several rounds and the median of each is kept, so a
 * burst of load from elsewhere on the machine hits both sides alike.
 * BENCH_SECONDS sets the length of one measurement (default 3), BENCH_ROUNDS the rounds (default 3).
 */
import { createOne, measure, median, pinned, startTarget, type Sample, type Target as SharedTarget } from "./support";

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = 10;


type Target = SharedTarget<{ key?: string }>;

const startBenchTarget = (kind: "bare" | "router"): Promise<Target> => startTarget("bench/target.ts", [kind]);

/** Creates one invoice through `path` and returns its id, for the fetch measurement. */
const createInvoice = (target: Target, path: string): Promise<string> => createOne(target, path, createBody);
const load = (target: Target, path: string, body: unknown, duration = seconds): Promise<Sample> => measure(target, path, body, { duration, connections });


const createBody = { amount: 25, amountCurrency: "USD", acceptedCoins: ["USDT", "BTC"], lifeTime: 60 };

const bare = await startBenchTarget("bare");
const router = await startBenchTarget("router");
const scenarios = [
  { name: "invoice/create", bare: { path: "/bare/create", body: createBody }, router: { path: "/api/v1/merchants/invoice/create", body: createBody } },
  {
    name: "invoice/fetch",
    bare: { path: "/bare/fetch", body: { invoiceId: await createInvoice(bare, "/bare/create") } },
    router: { path: "/api/v1/merchants/invoice/fetch", body: { invoiceId: await createInvoice(router, "/api/v1/merchants/invoice/create") } },
  },
];

console.log(`\n${rounds} rounds x ${seconds}s per side, ${connections} connections, node ${process.version}, ${pinned ? "load and targets on separate cores" : "not pinned"}\n`);
console.log("endpoint         router req/s   bare req/s   ratio   target   p99 ms (router/bare)   failures");
let belowTarget = 0;
for (const scenario of scenarios) {
  // Warm-up: JIT, caches and connections, on both sides.
  await load(bare, scenario.bare.path, scenario.bare.body, 1);
  await load(router, scenario.router.path, scenario.router.body, 1);
  const bareSamples: Sample[] = [];
  const routerSamples: Sample[] = [];
  for (let round = 0; round < rounds; round++) {
    bareSamples.push(await load(bare, scenario.bare.path, scenario.bare.body));
    routerSamples.push(await load(router, scenario.router.path, scenario.router.body));
  }
  const ours = median(routerSamples.map((sample) => sample.rps));
  const base = median(bareSamples.map((sample) => sample.rps));
  const ratio = ours / base;
  const failures = [...routerSamples, ...bareSamples].reduce((sum, sample) => sum + sample.failures, 0);
  const target = 0.75;
  if (ratio < target) belowTarget++;
  console.log(
    `${scenario.name.padEnd(16)} ${ours.toFixed(0).padStart(12)} ${base.toFixed(0).padStart(12)} ${ratio.toFixed(2).padStart(7)} ${`>=${target}`.padStart(8)}   ${`${median(routerSamples.map((s) => s.p99))}/${median(bareSamples.map((s) => s.p99))}`.padStart(20)} ${String(failures).padStart(10)}  ${ratio >= target ? "ok" : "BELOW TARGET"}`,
  );
}

// The /v1 list page against invoice/fetch on the same router: what a page of 20 payments costs
// compared with one. Both sides are the router, so the ratio says how listing scales.
for (let i = 0; i < 100; i++) await createInvoice(router, "/api/v1/merchants/invoice/create");
const fetchBody = { invoiceId: await createInvoice(router, "/api/v1/merchants/invoice/create") };
await load(router, "/v1/payments?limit=20", null, 1);
const listSamples: Sample[] = [];
const fetchSamples: Sample[] = [];
for (let round = 0; round < rounds; round++) {
  fetchSamples.push(await load(router, "/api/v1/merchants/invoice/fetch", fetchBody));
  listSamples.push(await load(router, "/v1/payments?limit=20", null));
}
const listRps = median(listSamples.map((sample) => sample.rps));
const fetchRps = median(fetchSamples.map((sample) => sample.rps));
console.log(
  `${"v1 list (20)".padEnd(16)} ${listRps.toFixed(0).padStart(12)} ${`fetch ${fetchRps.toFixed(0)}`.padStart(12)} ${(listRps / fetchRps).toFixed(2).padStart(7)} ${"(info)".padStart(8)}   ${`${median(listSamples.map((s) => s.p99))}/${median(fetchSamples.map((s) => s.p99))}`.padStart(20)} ${String([...listSamples, ...fetchSamples].reduce((sum, s) => sum + s.failures, 0)).padStart(10)}`,
);

for (const target of [bare, router]) target.child.kill();
if (belowTarget > 0) console.log(`\n${belowTarget} measurement(s) below target`);
