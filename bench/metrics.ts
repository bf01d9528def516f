/**
 * `npm run bench` (or `npx tsx bench/metrics.ts` after `npm run build`): invoice/create through
 * a router with metrics and tracing on against the same router with both off (target: at least
 * 0.95).
 *
 * Both routers run in one target process (bench/metrics-target.ts, on core 0 when pinned), each
 * on its own port, so the two sides share the process, its JIT and its heap and differ only by
 * what is measured. After a warm-up of each, they are measured in interleaved pairs, the order
 * alternating, and each pair gives two ratios:
 * - CPU: the target's CPU time per request answered, off over on. The figure held against the
 *   target: on a machine other work shares, throughput follows how much CPU the target is given
 *   from one second to the next, while the CPU each request costs barely moves;
 * - throughput: requests per second, on over off (what a quiet machine shows directly).
 * Each figure is the median of the pairs' ratios, printed with their spread.
 * BENCH_SECONDS sets the length of one measurement (default 2), BENCH_ROUNDS the pairs
 * (default 9). BENCH_SIDE=metrics or tracing measures one of the two alone against off, and
 * BENCH_SIDE=off the baseline against itself (the setup's own bias and spread).
 */
import { interleave, measure, median, pinned, type Sample, startTarget, type Target } from "./support";

const seconds = Number(process.env.BENCH_SECONDS ?? 2);
const rounds = Number(process.env.BENCH_ROUNDS ?? 9);
const side = process.env.BENCH_SIDE ?? "on";
const connections = 10;
const TARGET = 0.95;
const PATH = "/api/v1/merchants/invoice/create";
const body = { amount: 25, amountCurrency: "USD", acceptedCoins: ["USDT", "BTC"], lifeTime: 60 };

const target = await startTarget<{ key: string; offPort: number; offKey: string; cpuPort: number }>("bench/metrics-target.ts", [side]);
const on: Target<{ key: string }> = target;
const off: Target<{ key: string }> = { child: target.child, port: target.offPort, key: target.offKey };

const cpuMicros = async (): Promise<number> => ((await (await fetch(`http://127.0.0.1:${target.cpuPort}/cpu`)).json()) as { micros: number }).micros;

/** One measurement of a side, with the target's CPU time per request answered (µs). */
async function load(which: Target<{ key: string }>, duration = seconds): Promise<Sample & { cpuPerRequest: number }> {
  const before = await cpuMicros();
  const sample = await measure(which, PATH, body, { duration, connections });
  const used = (await cpuMicros()) - before;
  return { ...sample, cpuPerRequest: used / Math.max(1, sample.requests ?? sample.rps * duration) };
}

/** "median (min-max, middle half)" of a list of ratios. */
function spread(ratios: number[]): string {
  const sorted = [...ratios].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.round((sorted.length - 1) * q)]!.toFixed(2);
  return `${median(ratios).toFixed(2)} (${at(0)}-${at(1)}, ${at(0.25)}-${at(0.75)})`;
}

console.log(
  `\n${side === "on" ? "metrics and tracing" : side} on against off, one process: ${rounds} interleaved pairs x ${seconds}s per side, ${connections} connections, ${pinned ? "pinned" : "not pinned"}\n`,
);
const c = await interleave(
  (duration) => load(on, duration),
  (duration) => load(off, duration),
  rounds,
);
const cpuRatios = c.pairs.map(([ours, base]) => base.cpuPerRequest / ours.cpuPerRequest);
const cpuRatio = median(cpuRatios);
const cpuUs = (index: 0 | 1) => median(c.pairs.map((pair) => pair[index].cpuPerRequest)).toFixed(0);
console.log("figure                      on        off   ratio (min-max, middle half)   target");
console.log(
  `${"CPU per request (µs)".padEnd(22)} ${cpuUs(0).padStart(8)} ${cpuUs(1).padStart(10)}   ${spread(cpuRatios).padEnd(28)} ${`>=${TARGET}`.padStart(7)}  ${cpuRatio >= TARGET ? "ok" : "BELOW TARGET"}`,
);
console.log(`${"throughput (req/s)".padEnd(22)} ${c.ours.toFixed(0).padStart(8)} ${c.base.toFixed(0).padStart(10)}   ${spread(c.ratios).padEnd(28)}  (info)`);
console.log(`p99 ms (on/off) ${c.p99}, failures ${c.failures}`);
// A scrape after the load: the counters saw every request.
const scrape = await fetch(`http://127.0.0.1:${on.port}/metrics`);
const created = /express_crypto_pay_invoices_created_total\{mode="test"\} (\d+)/.exec(await scrape.text());
console.log(`scrape: ${scrape.status}, invoices counted ${created?.[1] ?? "none"}`);
target.child.kill();
