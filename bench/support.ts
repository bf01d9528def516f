/**
 * What every benchmark script shares: pinning the load generator and the target to separate
 * cores, starting a target process that prints one JSON line when it listens, and the median.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import autocannon from "autocannon";

/**
 * Pins this process (the load generator) to core 1, so that targets started by startTarget run
 * on core 0 and neither steals the other's CPU. False where taskset is missing (then unpinned).
 */
export const pinned = (() => {
  try {
    execFileSync("taskset", ["-a", "-pc", "1", String(process.pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** A target process and what it printed when ready (its port, and anything else it reports). */
export type Target<Info = Record<string, unknown>> = { child: ChildProcess; port: number } & Info;

/** Runs `tsx <script> ...args` on core `core` (default 0) and waits for its JSON ready line. */
export async function startTarget<Info = Record<string, unknown>>(script: string, args: string[], core = 0): Promise<Target<Info>> {
  const command = [process.execPath, "--import", "tsx", script, ...args];
  if (pinned) command.unshift("taskset", "-c", String(core));
  const child = spawn(command[0]!, command.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
  return { child, ...JSON.parse(line) } as Target<Info>;
}

/** Stops a target (SIGTERM: a clean exit; SIGKILL: a crash) and waits for its exit; nothing if it is gone. */
export async function stop(target: Target, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (target.child.exitCode !== null || target.child.signalCode !== null) return;
  const exited = once(target.child, "exit");
  target.child.kill(signal);
  await exited;
}

/** The middle value (the upper middle for an even count). */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** One measurement: requests per second, p99 latency in ms, requests that failed, and how many were answered. */
export interface Sample {
  rps: number;
  p99: number;
  failures: number;
  requests?: number;
}

/** JSON headers, with the bearer key when the target needs one. */
export function jsonHeaders(key?: string): Record<string, string> {
  return key ? { "content-type": "application/json", authorization: `Bearer ${key}` } : { "content-type": "application/json" };
}

/** POSTs `body` once to a target and returns the created record's id (a fetch measurement's subject). */
export async function createOne(target: Target<{ key?: string }>, path: string, body: unknown): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${target.port}${path}`, { method: "POST", headers: jsonHeaders(target.key), body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

/** Loads a target for `duration` seconds: POST of `body` as JSON, or a GET when `body` is null. */
export async function measure(
  target: Target<{ key?: string }>,
  path: string,
  body: unknown,
  options: { duration: number; connections: number },
): Promise<Sample> {
  const result = await autocannon({
    url: `http://127.0.0.1:${target.port}${path}`,
    method: body === null ? "GET" : "POST",
    headers: jsonHeaders(target.key),
    ...(body === null ? {} : { body: JSON.stringify(body) }),
    connections: options.connections,
    duration: options.duration,
  });
  return { rps: result.requests.average, p99: result.latency.p99, failures: result.errors + result.non2xx, requests: result.requests.total };
}

/** Two sides measured against each other: medians over the rounds. */
export interface Comparison {
  /** Requests per second of our side, and of the baseline. */
  ours: number;
  base: number;
  ratio: number;
  /** Median p99 latencies in ms, "ours/base". */
  p99: string;
  /** Failed requests on both sides, all rounds. */
  failures: number;
}

/**
 * Measures two sides alternately, baseline first, for `rounds` rounds after a 1 s warm-up of
 * each (JIT, caches, connections), so that a burst of load from elsewhere on the machine hits
 * both alike; keeps the medians. A side is a function that runs one measurement, by default of
 * the script's usual length.
 */
export async function alternate(
  ours: (duration?: number) => Promise<Sample>,
  base: (duration?: number) => Promise<Sample>,
  rounds: number,
): Promise<Comparison> {
  await base(1);
  await ours(1);
  const oursSamples: Sample[] = [];
  const baseSamples: Sample[] = [];
  for (let round = 0; round < rounds; round++) {
    baseSamples.push(await base());
    oursSamples.push(await ours());
  }
  const rps = (samples: Sample[]) => median(samples.map((sample) => sample.rps));
  const p99 = (samples: Sample[]) => median(samples.map((sample) => sample.p99));
  return {
    ours: rps(oursSamples),
    base: rps(baseSamples),
    ratio: rps(oursSamples) / rps(baseSamples),
    p99: `${p99(oursSamples)}/${p99(baseSamples)}`,
    failures: [...oursSamples, ...baseSamples].reduce((sum, sample) => sum + sample.failures, 0),
  };
}

/** Two sides measured in pairs: each round's ratio, and their spread. */
export interface PairedComparison<S extends Sample = Sample> extends Comparison {
  /** ours/base of each round, in the order measured. */
  ratios: number[];
  /** Each round's two samples, [ours, base], for figures of the caller's own. */
  pairs: Array<[ours: S, base: S]>;
}

/**
 * Measures two sides in interleaved pairs, for comparisons that must tell a few percent apart
 * on a shared machine: a warm-up of each side first (`warmup` seconds, discarded), then
 * `rounds` pairs, the order alternating (base first, then ours first, ...) so that a drift of
 * the machine's load within a pair favours neither side. Each pair gives one ratio; the figure
 * is the median of those ratios (not the ratio of medians), so a burst of load from elsewhere
 * spoils one pair at most, and the spread of the ratios says how far to trust it.
 */
export async function interleave<S extends Sample>(
  ours: (duration?: number) => Promise<S>,
  base: (duration?: number) => Promise<S>,
  rounds: number,
  warmup = 2,
): Promise<PairedComparison<S>> {
  await base(warmup);
  await ours(warmup);
  const oursSamples: S[] = [];
  const baseSamples: S[] = [];
  const ratios: number[] = [];
  const pairs: Array<[S, S]> = [];
  for (let round = 0; round < rounds; round++) {
    let o: S;
    let b: S;
    if (round % 2 === 0) {
      b = await base();
      o = await ours();
    } else {
      o = await ours();
      b = await base();
    }
    oursSamples.push(o);
    baseSamples.push(b);
    ratios.push(o.rps / b.rps);
    pairs.push([o, b]);
  }
  const rps = (samples: Sample[]) => median(samples.map((sample) => sample.rps));
  const p99 = (samples: Sample[]) => median(samples.map((sample) => sample.p99));
  return {
    ours: rps(oursSamples),
    base: rps(baseSamples),
    ratio: median(ratios),
    ratios,
    pairs,
    p99: `${p99(oursSamples)}/${p99(baseSamples)}`,
    failures: [...oursSamples, ...baseSamples].reduce((sum, sample) => sum + sample.failures, 0),
  };
}
