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

/** Runs `tsx <script> ...args` on core 0 and waits for its JSON ready line. */
export async function startTarget<Info = Record<string, unknown>>(script: string, args: string[]): Promise<Target<Info>> {
  const command = [process.execPath, "--import", "tsx", script, ...args];
  if (pinned) command.unshift("taskset", "-c", "0");
  const child = spawn(command[0]!, command.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
  return { child, ...JSON.parse(line) } as Target<Info>;
}

/** The middle value (the upper middle for an even count). */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** One measurement: requests per second, p99 latency in ms, and requests that failed. */
export interface Sample {
  rps: number;
  p99: number;
  failures: number;
}

/** JSON headers, with the bearer key when the target needs one. */
export function jsonHeaders(key?: string): Record<string, string> {
  return key ? { "content-type": "application/json", authorization: `Bearer ${key}` } : { "content-type": "application/json" };
}

/** POSTs `body` once to a target and returns the created record's id (a fetch measurement's subject). */
export async function createOne(target: Target<{ key?: string }>, path: string, body: unknown): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${target.port}${path}`, { method: "POST", headers: jsonHeaders(target.key), body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${path} answered ${response.status}`);
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
  return { rps: result.requests.average, p99: result.latency.p99, failures: result.errors + result.non2xx };
}
