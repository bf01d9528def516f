/**
 * `npm run bench`, webhook delivery: deliveries per second from the router, on a PostgreSQL
 * server, to a receiver in another process (bench/delivery-receiver.ts), and what a kill -9 of
 * one of two instances costs.
 *
 * Each run starts from a backlog: a router with its sender off (bench/delivery-target.ts seed)
 * takes invoice/create requests, each queueing a payment.created delivery per endpoint, and is
 * stopped. Then router processes with their senders on start against that database, and the
 * receiver reports how many distinct webhook-ids arrived and when the first and the last did;
 * the rate is (deliveries - 1) / (last - first).
 *
 * 1. An instant receiver, one endpoint: target at least 1000 deliveries/s.
 * 2. An instant receiver, ten endpoints: the same backlog fanned out (for comparison).
 * 3. A receiver that answers after 200 ms, one endpoint: deliveries can go no faster than
 *    concurrencyPerEndpoint / 0.2 s (Little's law); target at least 0.95 of that ceiling.
 * 4. kill -9: an instance delivers a backlog for ten endpoints to a 200 ms receiver; once it is
 *    under way a second one starts and the first is killed. Reported: the time from the kill
 *    until every delivery is marked succeeded (what the dead instance had claimed waits for its
 *    leases, default timeoutMs + 10 s = 25 s, and holds its endpoints' slots meanwhile), how
 *    many were sent twice (attempts the dead instance made but never recorded), and that none
 *    was lost and every attempt of a message carried the same body.
 * 5. The same with timeoutMs 2000 and leaseMs 5000: the takeover bound is the lease.
 *
 * DATABASE_URL names the server (default postgres://postgres@127.0.0.1:5432/test; skipped when
 * unreachable); each run works in a schema of its own and drops it. BENCH_DELIVERIES sets the
 * backlog of run 1 (default 20000; the others scale from it); BENCH_LEASE_MS the lease of run 4
 * (default: the library's); BENCH_RUNS which runs (default "1,2,3,4,5").
 */
import autocannon from "autocannon";
import pg from "pg";
import { createOne, jsonHeaders, pinned, startTarget, stop, type Target } from "./support";

const databaseUrl = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
const backlog = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const leaseMs = process.env.BENCH_LEASE_MS ? Number(process.env.BENCH_LEASE_MS) : undefined;
const runs = new Set((process.env.BENCH_RUNS ?? "1,2,3,4,5").split(","));
const PER_ENDPOINT = 10;

type RouterTarget = Target<{ key: string }>;
interface Stats {
  unique: number;
  total: number;
  duplicates: number;
  mismatched: number;
  first: number;
  last: number;
}

const admin = new pg.Pool({ connectionString: databaseUrl, max: 1 });
try {
  await admin.query("SELECT 1");
} catch (error) {
  console.log(`\nWebhook delivery: PostgreSQL server at ${databaseUrl.replace(/\/\/[^@]*@/, "//")} unreachable (${(error as Error).message}): skipped`);
  await admin.end();
  process.exit(0);
}

const stats = async (receiver: Target): Promise<Stats> => (await fetch(`http://127.0.0.1:${receiver.port}/stats`)).json() as Promise<Stats>;

/** A fresh schema with `endpoints` endpoints on `receiver` and `invoices` invoices' deliveries queued for each. */
async function seed(schema: string, receiver: Target, endpoints: number, invoices: number): Promise<void> {
  const seeder = await startTarget<{ key: string }>("bench/delivery-target.ts", [`${databaseUrl}#${schema}`, "seed"]);
  try {
    for (let e = 0; e < endpoints; e++)
      await createOne(seeder, "/v1/webhook-endpoints", { url: `http://127.0.0.1:${receiver.port}/hooks/${e}`, events: ["payment.created"] });
    const result = await autocannon({
      url: `http://127.0.0.1:${seeder.port}/api/v1/merchants/invoice/create`,
      method: "POST",
      headers: jsonHeaders(seeder.key),
      body: JSON.stringify({ amount: 25, amountCurrency: "USD", acceptedCoins: ["USDT", "BTC"], lifeTime: 60 }),
      connections: 10,
      amount: invoices,
    });
    if (result.non2xx + result.errors > 0) throw new Error(`seeding failed: ${result.non2xx} non-2xx, ${result.errors} errors`);
  } finally {
    await stop(seeder);
  }
  const { rows } = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".webhook_deliveries WHERE status = 'pending'`);
  if (rows[0].n !== endpoints * invoices) throw new Error(`expected ${endpoints * invoices} queued deliveries, found ${rows[0].n}`);
  await admin.query(`ANALYZE "${schema}".webhook_deliveries`);
}

/** Polls the receiver until `expected` distinct deliveries arrived (or `timeoutMs` passed). */
async function waitFor(receiver: Target, expected: number, timeoutMs: number): Promise<Stats> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await stats(receiver);
    if (now.unique >= expected) return now;
    if (Date.now() > deadline) throw new Error(`only ${now.unique} of ${expected} deliveries arrived within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The deliveries leased now (held by a running instance). */
async function leasedNow(schema: string): Promise<string[]> {
  const { rows } = await admin.query(`SELECT id FROM "${schema}".webhook_deliveries WHERE status = 'pending' AND lease_until > $1`, [Date.now()]);
  return rows.map((row) => row.id as string);
}

/** How many deliveries (of `ids`, or all) are not marked succeeded. */
async function notSucceeded(schema: string, ids?: string[]): Promise<number> {
  const { rows } = ids
    ? await admin.query(`SELECT count(*)::int AS n FROM "${schema}".webhook_deliveries WHERE status <> 'succeeded' AND id = ANY($1::text[])`, [ids])
    : await admin.query(`SELECT count(*)::int AS n FROM "${schema}".webhook_deliveries WHERE status <> 'succeeded'`);
  return rows[0].n as number;
}

let schemas = 0;
const schemaName = () => `ecp_bench_deliveries_${process.pid}_${++schemas}`;

/** Seeds a backlog, starts `instances` senders, and measures until every delivery arrived. */
async function throughput(receiver: Target, endpoints: number, invoices: number): Promise<{ rate: number; stats: Stats; left: number }> {
  const schema = schemaName();
  try {
    await seed(schema, receiver, endpoints, invoices);
    await fetch(`http://127.0.0.1:${receiver.port}/reset`, { method: "POST" });
    const sender = await startTarget<{ key: string }>("bench/delivery-target.ts", [
      `${databaseUrl}#${schema}`,
      "send",
      JSON.stringify({ concurrencyPerEndpoint: PER_ENDPOINT }),
    ]);
    try {
      const done = await waitFor(receiver, endpoints * invoices, 600_000);
      return { rate: ((done.unique - 1) * 1000) / (done.last - done.first), stats: done, left: await notSucceededSoon(schema) };
    } finally {
      await stop(sender);
    }
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  }
}

/** Deliveries not marked succeeded once the last answer has had a moment to be recorded. */
async function notSucceededSoon(schema: string): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const left = await notSucceeded(schema);
    if (left === 0) return 0;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return notSucceeded(schema);
}

let belowTarget = 0;
function report(name: string, value: string, target: string, ok: boolean | null, note = ""): void {
  if (ok === false) belowTarget++;
  console.log(`${name.padEnd(62)} ${value.padStart(14)} ${target.padStart(12)}  ${ok === null ? "" : ok ? "ok" : "BELOW TARGET"}${note ? `  ${note}` : ""}`);
}

console.log(
  `\nWebhook delivery: node ${process.version}, router(s) on core 0, receiver on core 1 (${pinned ? "pinned" : "not pinned"}), PostgreSQL server unpinned`,
);
console.log(`backlog ${backlog} deliveries; concurrencyPerEndpoint ${PER_ENDPOINT}\n`);
console.log(`${"measurement".padEnd(62)} ${"result".padStart(14)} ${"target".padStart(12)}`);

const instant = await startTarget("bench/delivery-receiver.ts", ["0"], 1);
const slow = await startTarget("bench/delivery-receiver.ts", ["200"], 1);
try {
  if (runs.has("1")) {
    const one = await throughput(instant, 1, backlog);
    report(
      "instant receiver, 1 endpoint",
      `${one.rate.toFixed(0)}/s`,
      ">= 1000/s",
      one.rate >= 1000,
      `${one.stats.duplicates} duplicates, ${one.left} not marked succeeded`,
    );
  }
  if (runs.has("2")) {
    const ten = await throughput(instant, 10, Math.round(backlog / 10));
    report(
      "instant receiver, 10 endpoints",
      `${ten.rate.toFixed(0)}/s`,
      "(info)",
      null,
      `${ten.stats.duplicates} duplicates, ${ten.left} not marked succeeded`,
    );
  }
  if (runs.has("3")) {
    const ceiling = PER_ENDPOINT / 0.2;
    const paced = await throughput(slow, 1, Math.max(100, Math.round(backlog / 40)));
    report(
      "200 ms receiver, 1 endpoint",
      `${paced.rate.toFixed(1)}/s`,
      `>= ${(0.95 * ceiling).toFixed(1)}/s`,
      paced.rate >= 0.95 * ceiling,
      `${(paced.rate / ceiling).toFixed(3)} of the ceiling ${ceiling}/s`,
    );
  }

  // kill -9 of one of two instances mid-delivery: with the default lease, and with a short one.
  if (runs.has("4")) await killRun({ concurrencyPerEndpoint: PER_ENDPOINT, ...(leaseMs === undefined ? {} : { leaseMs }) });
  if (runs.has("5")) await killRun({ concurrencyPerEndpoint: PER_ENDPOINT, timeoutMs: 2000, leaseMs: 5000 });
} finally {
  await stop(instant);
  await stop(slow);
  await admin.end();
}
if (belowTarget > 0) console.log(`\n${belowTarget} measurement(s) below target`);

async function killRun(options: { concurrencyPerEndpoint: number; timeoutMs?: number; leaseMs?: number }): Promise<void> {
  const schema = schemaName();
  const endpoints = 10;
  const invoices = Math.max(50, Math.round(backlog / 40));
  try {
    await seed(schema, slow, endpoints, invoices);
    await fetch(`http://127.0.0.1:${slow.port}/reset`, { method: "POST" });
    // A runs alone until it is well under way (it holds every endpoint's slots), then B starts
    // and A is killed: what A had claimed waits for its leases to run out, the rest goes on.
    const start = () => startTarget<{ key: string }>("bench/delivery-target.ts", [`${databaseUrl}#${schema}`, "send", JSON.stringify(options)]);
    const a = await start();
    let b: RouterTarget | undefined;
    try {
      await waitFor(slow, Math.round((endpoints * invoices) / 10), 60_000);
      b = await start();
      const leased = await leasedNow(schema);
      const killedAt = Date.now();
      await stop(a, "SIGKILL");
      // Taken over: what A held is marked succeeded (by B). Drained: every delivery is.
      const deadline = killedAt + 600_000;
      let takenOver = 0;
      for (;;) {
        if (!takenOver && (await notSucceeded(schema, leased)) === 0) takenOver = Date.now() - killedAt;
        if (takenOver && (await notSucceeded(schema)) === 0) break;
        if (Date.now() > deadline) throw new Error("the deliveries were not drained within 10 minutes of the kill");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const drained = Date.now() - killedAt;
      const done = await stats(slow);
      const lost = endpoints * invoices - done.unique;
      report(
        `kill -9 of 1 of 2: its deliveries taken over${options.leaseMs ? ` (leaseMs ${options.leaseMs})` : ""}`,
        `${(takenOver / 1000).toFixed(1)} s`,
        `lease ${((options.leaseMs ?? 25_000) / 1000).toFixed(0)} s`,
        lost === 0 && done.mismatched === 0,
        `until the ${leased.length} it held succeeded; all drained at ${(drained / 1000).toFixed(1)} s; ${done.duplicates} sent twice, ${lost} lost, ${done.mismatched} with another body`,
      );
    } finally {
      await stop(a, "SIGKILL");
      if (b) await stop(b);
    }
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  }
}
