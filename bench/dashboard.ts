/**
 * `npm run bench`, dashboard part: the merchant dashboard over HTTP on a PostgreSQL server with
 * 1,000 and with 1,000,000 invoices of one merchant (bulk-seeded, see seed-invoices.ts: each with
 * an order id, one in ten paid by a deposit). Measured one request at a time, as a person uses
 * the dashboard: the median time of the payments list's first page, a search by order id, a
 * search by transaction hash, and the payment page a search opens. Target: a median under 50 ms
 * for each at 1M; each is printed with its ratio to the same request at 1k rows, measured in the
 * same run (the API keys page, which reads no invoice, is the reference).
 *
 * DATABASE_URL names the server (default postgres://postgres@127.0.0.1:5432/test; skipped when
 * unreachable); the bench works in a schema of its own and drops it. BENCH_SEED_ROWS lowers the
 * 1M (quick runs); BENCH_REQUESTS sets the requests per measurement (default 101).
 */
import pg from "pg";
import { median, pinned, startTarget, stop, type Target } from "./support";
import { seedTxHash } from "./seed-invoices";

const databaseUrl = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
const seedRows = Number(process.env.BENCH_SEED_ROWS ?? 1_000_000);
const requests = Number(process.env.BENCH_REQUESTS ?? 101);
const BASE_ROWS = 1_000;
const TARGET_MS = 50;

type DashboardTarget = Target<{ merchant: string }>;

/** One page the bench asks for: its path for the i-th request, and what a right answer is. */
interface Scenario {
  name: string;
  path: (i: number, rows: number) => string;
  expect: (response: Response, i: number, rows: number) => boolean;
}

/** A seeded invoice number from the request number: spread over the table, the same in both runs' ranges. */
const spread = (i: number, rows: number) => 1 + ((i * 7919) % rows);
/** A seeded invoice that has a deposit (seed-invoices.ts: n % 10 === 2). */
const paidSpread = (i: number, rows: number) => spread(i, rows) - 1 - ((spread(i, rows) - 1) % 10) + 2;
const invoiceId = (n: number) => `inv_seed${String(n).padStart(10, "0")}`;
const opens = (response: Response, n: number) => response.status === 303 && (response.headers.get("location") ?? "").endsWith(`/payments/${invoiceId(n)}`);

const scenarios: Scenario[] = [
  { name: "API keys page (no invoice read)", path: () => "/keys", expect: (r) => r.status === 200 },
  { name: "payments, first page", path: () => "/payments", expect: (r) => r.status === 200 },
  { name: "search by order id", path: (i, rows) => `/payments?q=ord_${spread(i, rows)}`, expect: (r, i, rows) => opens(r, spread(i, rows)) },
  {
    name: "search by transaction hash",
    path: (i, rows) => `/payments?q=${seedTxHash(paidSpread(i, rows))}`,
    expect: (r, i, rows) => opens(r, paidSpread(i, rows)),
  },
  { name: "payment page", path: (i, rows) => `/payments/${invoiceId(paidSpread(i, rows))}`, expect: (r) => r.status === 200 },
];

/** Milliseconds of each request `from`..`to` - 1 of a scenario, one after another, each answer checked. */
async function timeScenario(target: DashboardTarget, scenario: Scenario, rows: number, from: number, to: number): Promise<number[]> {
  const base = `http://127.0.0.1:${target.port}/admin/m/${target.merchant}`;
  const times: number[] = [];
  for (let i = from; i < to; i++) {
    const started = performance.now();
    const response = await fetch(base + scenario.path(i, rows), { redirect: "manual" });
    await response.arrayBuffer();
    times.push(performance.now() - started);
    if (!scenario.expect(response, i, rows)) throw new Error(`${scenario.name}: ${scenario.path(i, rows)} answered ${response.status} at ${rows} invoices`);
  }
  return times;
}

/**
 * The median of each scenario on one target: 20 requests of every scenario first, not counted
 * (JIT, caches, connections, prepared statements), then `requests` of each in turn.
 */
async function measureAll(target: DashboardTarget, rows: number): Promise<number[]> {
  for (const scenario of scenarios) await timeScenario(target, scenario, rows, 0, 20);
  const medians: number[] = [];
  for (const scenario of scenarios) medians.push(median(await timeScenario(target, scenario, rows, 20, 20 + requests)));
  return medians;
}

const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
try {
  await pool.query("SELECT 1");
} catch (error) {
  console.log(`PostgreSQL server at ${databaseUrl.replace(/\/\/[^@]*@/, "//")} unreachable (${(error as Error).message}): dashboard bench skipped`);
  await pool.end();
  process.exit(0);
}
const schema = `ecp_bench_${process.pid}_dashboard`;
const where = `${databaseUrl}#${schema}`;
console.log(
  `\ndashboard: median of ${requests} requests one at a time, node ${process.version}, ${pinned ? "load and target on separate cores" : "not pinned"}\n`,
);
let belowTarget = 0;
try {
  const results: number[][] = [];
  let seeded = 0;
  for (const rows of [BASE_ROWS, seedRows]) {
    const started = Date.now();
    const target = await startTarget<{ merchant: string }>("bench/dashboard-target.ts", [where, String(seeded + 1), String(rows)]);
    if (rows === seedRows) console.log(`seeded ${rows - seeded} more invoices in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
    seeded = rows;
    try {
      results.push(await measureAll(target, rows));
    } finally {
      await stop(target);
    }
  }
  const [small, large] = results as [number[], number[]];
  const label = (rows: number) => (rows >= 1e6 ? `${rows / 1e6}M` : `${rows / 1e3}k`);
  console.log(
    `${"page".padEnd(34)} ${`ms @${label(BASE_ROWS)}`.padStart(10)} ${`ms @${label(seedRows)}`.padStart(10)} ${"ratio".padStart(7)} ${"target".padStart(8)}`,
  );
  scenarios.forEach((scenario, i) => {
    // The reference page reads no invoice: its ratio shows what the machine's drift alone does.
    const reference = i === 0;
    const ok = reference || large[i]! < TARGET_MS;
    if (!ok) belowTarget++;
    console.log(
      `${scenario.name.padEnd(34)} ${small[i]!.toFixed(2).padStart(10)} ${large[i]!.toFixed(2).padStart(10)} ${(large[i]! / small[i]!).toFixed(2).padStart(7)} ${(reference ? "" : `<${TARGET_MS} ms`).padStart(8)}   ${reference ? "" : ok ? "ok" : "BELOW TARGET"}`,
    );
  });
} finally {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
}
if (belowTarget > 0) console.log(`\n${belowTarget} dashboard measurement(s) below target`);
