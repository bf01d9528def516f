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
import { alternate, createOne, measure, pinned, startTarget, type Sample, type Target as SharedTarget } from "./support";

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

console.log(
  `\n${rounds} rounds x ${seconds}s per side, ${connections} connections, node ${process.version}, ${pinned ? "load and targets on separate cores" : "not pinned"}\n`,
);
console.log("endpoint         router req/s   bare req/s   ratio   target   p99 ms (router/bare)   failures");
let belowTarget = 0;
const TARGET = 0.75;
for (const scenario of scenarios) {
  const c = await alternate(
    (duration) => load(router, scenario.router.path, scenario.router.body, duration),
    (duration) => load(bare, scenario.bare.path, scenario.bare.body, duration),
    rounds,
  );
  if (c.ratio < TARGET) belowTarget++;
  console.log(
    `${scenario.name.padEnd(16)} ${c.ours.toFixed(0).padStart(12)} ${c.base.toFixed(0).padStart(12)} ${c.ratio.toFixed(2).padStart(7)} ${`>=${TARGET}`.padStart(8)}   ${c.p99.padStart(20)} ${String(c.failures).padStart(10)}  ${c.ratio >= TARGET ? "ok" : "BELOW TARGET"}`,
  );
}

// The /v1 list page against invoice/fetch on the same router: what a page of 20 payments costs
// compared with one. Both sides are the router, so the ratio says how listing scales.
for (let i = 0; i < 100; i++) await createInvoice(router, "/api/v1/merchants/invoice/create");
const fetchBody = { invoiceId: await createInvoice(router, "/api/v1/merchants/invoice/create") };
const list = await alternate(
  (duration) => load(router, "/v1/payments?limit=20", null, duration),
  (duration) => load(router, "/api/v1/merchants/invoice/fetch", fetchBody, duration),
  rounds,
);
console.log(
  `${"v1 list (20)".padEnd(16)} ${list.ours.toFixed(0).padStart(12)} ${`fetch ${list.base.toFixed(0)}`.padStart(12)} ${list.ratio.toFixed(2).padStart(7)} ${"(info)".padStart(8)}   ${list.p99.padStart(20)} ${String(list.failures).padStart(10)}`,
);

for (const target of [bare, router]) target.child.kill();
if (belowTarget > 0) console.log(`\n${belowTarget} measurement(s) below target`);
