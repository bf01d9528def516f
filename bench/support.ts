/**
 * What every benchmark script shares: pinning the load generator and the target to separate
 * cores, starting a target process that prints one JSON line when it listens, and the median.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";

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
