/**
 * `npm run bench` (or `npx tsx bench/metrics.ts` after `npm run build`): invoice/create with
 * metrics and tracing on against the same router with both off, in the same run on the same
 * machine, reported as a ratio (target: at least 0.95). Each side runs in its own process and
 * measurements alternate for several rounds, the median of each kept.
 * BENCH_SECONDS sets the length of one measurement (default 3), BENCH_ROUNDS the rounds (default 3).
 */
import { alternate, measure, pinned, startTarget, type Target } from "./support";

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = 10;
const TARGET = 0.95;
const PATH = "/api/v1/merchants/invoice/create";
const body = { amount: 25, amountCurrency: "USD", acceptedCoins: ["USDT", "BTC"], lifeTime: 60 };

const off = await startTarget<{ key: string }>("bench/metrics-target.ts", ["off"]);
// BENCH_SIDE=metrics or tracing measures one of the two alone against off.
const on = await startTarget<{ key: string }>("bench/metrics-target.ts", [process.env.BENCH_SIDE ?? "on"]);
const load = (target: Target<{ key: string }>, duration = seconds) => measure(target, PATH, body, { duration, connections });

console.log(`\nmetrics and tracing on against off: ${rounds} rounds x ${seconds}s per side, ${connections} connections, ${pinned ? "pinned" : "not pinned"}\n`);
const c = await alternate(
  (duration) => load(on, duration),
  (duration) => load(off, duration),
  rounds,
);
console.log("endpoint         on req/s   off req/s   ratio   target   p99 ms (on/off)   failures");
console.log(
  `${"invoice/create".padEnd(16)} ${c.ours.toFixed(0).padStart(9)} ${c.base.toFixed(0).padStart(11)} ${c.ratio.toFixed(2).padStart(7)} ${`>=${TARGET}`.padStart(8)}   ${c.p99.padStart(15)} ${String(c.failures).padStart(10)}  ${c.ratio >= TARGET ? "ok" : "BELOW TARGET"}`,
);
// A scrape after the load: the counters saw every request.
const scrape = await fetch(`http://127.0.0.1:${on.port}/metrics`);
const created = /express_crypto_pay_invoices_created_total\{mode="test"\} (\d+)/.exec(await scrape.text());
console.log(`scrape: ${scrape.status}, invoices counted ${created?.[1] ?? "none"}`);
for (const target of [on, off]) target.child.kill();
