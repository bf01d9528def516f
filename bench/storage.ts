/**
 * `npm run bench`, storage part: the router on postgresStorage, on a PostgreSQL server and on
 * PGlite, against a bare Express route doing one INSERT (invoice/create) or one SELECT by primary
 * key (invoice/fetch) on the same database, in the same run. Target: at least 0.6 of the bare
 * route's requests per second.
 *
 * Then invoice/fetch and /v1 payments list pages (the first, and one by cursor) at 10k and at 1M
 * stored invoices (bulk-seeded with generate_series, see seed-invoices.ts): the time per
 * request must not grow by more than 20%.
 *
 * DATABASE_URL names the server (default postgres://postgres@127.0.0.1:5432/test; skipped when
 * unreachable); the bench works in schemas of its own and drops them. BENCH_SEED_ROWS lowers the
 * 1M (quick runs); BENCH_SECONDS and BENCH_ROUNDS as in run.ts; BENCH_ENGINES=pg or pglite runs one.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { alternate, createOne, measure, median, pinned, startTarget, stop, type Sample, type Target as SharedTarget } from "./support";

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const seedRows = Number(process.env.BENCH_SEED_ROWS ?? 1_000_000);
const databaseUrl = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
const engines = (process.env.BENCH_ENGINES ?? "pg,pglite").split(",");
const connections = 10;
const RATIO_TARGET = 0.6;
const GROWTH_LIMIT = 0.2;

type Target = SharedTarget<{ key?: string }>;

const startStorageTarget = (args: string[]): Promise<Target> => startTarget("bench/storage-target.ts", args);

const createInvoice = (target: Target, path: string): Promise<string> => createOne(target, path, createBody);
const load = (target: Target, path: string, body: unknown, duration = seconds): Promise<Sample> => measure(target, path, body, { duration, connections });

const createBody = { amount: 25, amountCurrency: "USD", acceptedCoins: ["USDT", "BTC"], lifeTime: 60 };

/** Where one engine keeps the bench's data: `location(name)` is a target's <where> argument. */
interface Place {
  location(name: string): string;
  cleanup(): Promise<void>;
}

async function serverPlace(): Promise<Place | null> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    await pool.query("SELECT 1");
  } catch (error) {
    console.log(`PostgreSQL server at ${databaseUrl.replace(/\/\/[^@]*@/, "//")} unreachable (${(error as Error).message}): skipped`);
    await pool.end();
    return null;
  }
  const schemas: string[] = [];
  return {
    location(name) {
      const schema = `ecp_bench_${process.pid}_${name}`;
      if (!schemas.includes(schema)) schemas.push(schema);
      return `${databaseUrl}#${schema}`;
    },
    async cleanup() {
      for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

async function pglitePlace(): Promise<Place> {
  const root = await mkdtemp(join(tmpdir(), "ecp-bench-"));
  return { location: (name) => join(root, name), cleanup: () => rm(root, { recursive: true, force: true }) };
}

let belowTarget = 0;

/** Router vs bare, invoice/create and invoice/fetch, on one engine. */
async function compare(engine: string, place: Place): Promise<void> {
  const bare = await startStorageTarget(["bare", engine, place.location("bare")]);
  const router = await startStorageTarget(["router", engine, place.location("router")]);
  try {
    const scenarios = [
      { name: "invoice/create", bare: { path: "/bare/create", body: createBody }, router: { path: "/api/v1/merchants/invoice/create", body: createBody } },
      {
        name: "invoice/fetch",
        bare: { path: "/bare/fetch", body: { invoiceId: await createInvoice(bare, "/bare/create") } },
        router: { path: "/api/v1/merchants/invoice/fetch", body: { invoiceId: await createInvoice(router, "/api/v1/merchants/invoice/create") } },
      },
    ];
    for (const scenario of scenarios) {
      const c = await alternate(
        (duration) => load(router, scenario.router.path, scenario.router.body, duration),
        (duration) => load(bare, scenario.bare.path, scenario.bare.body, duration),
        rounds,
      );
      const ok = c.ratio >= RATIO_TARGET && c.failures === 0;
      if (!ok) belowTarget++;
      console.log(
        `${`${engine} ${scenario.name}`.padEnd(22)} ${c.ours.toFixed(0).padStart(12)} ${c.base.toFixed(0).padStart(12)} ${c.ratio.toFixed(2).padStart(7)} ${`>=${RATIO_TARGET}`.padStart(8)}   ${c.p99.padStart(20)} ${String(c.failures).padStart(10)}  ${ok ? "ok" : "BELOW TARGET"}`,
      );
    }
  } finally {
    await stop(bare);
    await stop(router);
  }
}

/** What the growth measurement loads: invoice/fetch, and /v1 payments list pages (GET). */
const scaleScenarios = [
  { name: "invoice/fetch", path: "/api/v1/merchants/invoice/fetch", body: { invoiceId: "inv_seed0000005000" } as unknown },
  { name: "v1 list, first page", path: "/v1/payments?limit=20", body: null },
  { name: "v1 list, by cursor", path: "/v1/payments?limit=20&cursor=inv_seed0000005000", body: null },
];

/** The scenarios through the router with 10k, then `seedRows`, invoices stored. */
async function scale(engine: string, place: Place): Promise<void> {
  const where = place.location("scale");
  const results: Array<{ rows: number; rps: number[]; seedSeconds: number }> = [];
  let seeded = 0;
  for (const rows of [10_000, seedRows]) {
    const started = Date.now();
    const router = await startStorageTarget(["router", engine, where, String(seeded + 1), String(rows)]);
    const seedSeconds = (Date.now() - started) / 1000;
    seeded = rows;
    try {
      const rps: number[] = [];
      for (const { name, path, body } of scaleScenarios) {
        await load(router, path, body, 1);
        const samples: Sample[] = [];
        for (let round = 0; round < rounds; round++) samples.push(await load(router, path, body));
        if (samples.some((sample) => sample.failures > 0)) throw new Error(`${engine}: ${name} failed at ${rows} invoices`);
        rps.push(median(samples.map((s) => s.rps)));
      }
      results.push({ rows, rps, seedSeconds });
    } finally {
      await stop(router);
    }
  }
  const [small, large] = results as [(typeof results)[0], (typeof results)[0]];
  scaleScenarios.forEach(({ name }, i) => {
    // Time per request at a fixed concurrency is connections / rps.
    const growth = small.rps[i]! / large.rps[i]! - 1;
    if (growth > GROWTH_LIMIT) belowTarget++;
    console.log(
      `${`${engine} ${name}`.padEnd(28)} ${`${((connections / small.rps[i]!) * 1000).toFixed(3)} ms @10k`.padStart(16)} ${`${((connections / large.rps[i]!) * 1000).toFixed(3)} ms @${large.rows >= 1e6 ? `${large.rows / 1e6}M` : `${large.rows / 1e3}k`}`.padStart(18)} ${`${growth >= 0 ? "+" : ""}${(growth * 100).toFixed(1)}%`.padStart(8)} ${`<=+${GROWTH_LIMIT * 100}%`.padStart(8)}   ${i === 0 ? `seeded in ${large.seedSeconds.toFixed(0)} s  ` : ""}${growth <= GROWTH_LIMIT ? "ok" : "BELOW TARGET"}`,
    );
  });
}

console.log(
  `\nstorage: ${rounds} rounds x ${seconds}s per side, ${connections} connections, node ${process.version}, ${pinned ? "load and targets on separate cores" : "not pinned"}\n`,
);
console.log("endpoint               router req/s   bare req/s   ratio   target   p99 ms (router/bare)   failures");
const places: Array<[string, Place]> = [];
for (const engine of engines) {
  const place = engine === "pg" ? await serverPlace() : await pglitePlace();
  if (place) places.push([engine, place]);
}
try {
  for (const [engine, place] of places) await compare(engine, place);
  console.log(`\ntime per request as the table grows (${connections} connections)`);
  for (const [engine, place] of places) await scale(engine, place);
} finally {
  for (const [, place] of places) await place.cleanup();
}
if (belowTarget > 0) console.log(`\n${belowTarget} storage measurement(s) below target`);
