/**
 * `npm run bench`, after bench/metrics.ts: where the CPU of a router with metrics and tracing on
 * goes, from a V8 CPU profile of the target (bench/metrics-target.ts under `--cpu-prof`) while
 * autocannon loads invoice/create. It prints the share of the busy samples spent in prom-client,
 * in @opentelemetry/api and in the router's own glue (the request observer and the telemetry
 * calls), with everything they call. Unlike a throughput ratio, a share of one process's own
 * samples hardly moves when other work shares the machine: 1 minus it is the throughput ratio
 * a quiet machine would show, garbage collection of their allocations aside.
 * BENCH_SECONDS sets the load's length (default 10).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { measure, pinned, type Target } from "./support";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const PATH = "/api/v1/merchants/invoice/create";
const body = { amount: 25, amountCurrency: "USD", acceptedCoins: ["USDT", "BTC"], lifeTime: 60 };

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The part of the instrumentation a frame belongs to, or null. */
function partOf(frame: ProfileNode["callFrame"]): string | null {
  if (frame.url.includes("/prom-client/")) return "prom-client (counters, histograms)";
  if (frame.url.includes("/@opentelemetry/")) return "@opentelemetry/api (spans)";
  // The router's glue, in the build: the request observer and the telemetry of committed events.
  if (
    /\/dist\/[^/]+\.js$/.test(frame.url) &&
    /^(begin|route|end|requestObserver|telemetryOf|reportCommittedEvents|invoiceCreated|request)$/.test(frame.functionName)
  )
    return "router glue (observer, event telemetry)";
  return null;
}

const dir = await mkdtemp(join(tmpdir(), "ecp-metrics-profile-"));
const command = [process.execPath, "--cpu-prof", `--cpu-prof-dir=${dir}`, "--import", "tsx", "bench/metrics-target.ts", "on"];
if (pinned) command.unshift("taskset", "-c", "0");
const child = spawn(command[0]!, command.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
const target = { child, ...JSON.parse(line) } as Target<{ key: string }>;
await measure(target, PATH, body, { duration: 2, connections: 10 }); // warm-up, in the profile too
const sample = await measure(target, PATH, body, { duration: seconds, connections: 10 });
const exited = once(child, "exit");
child.kill("SIGTERM");
await exited;

// The main thread's profile is the largest (a worker, if any, writes its own).
const files = await Promise.all((await readdir(dir)).filter((name) => name.endsWith(".cpuprofile")).map(async (name) => readFile(join(dir, name), "utf8")));
const profile = JSON.parse(files.sort((a, b) => b.length - a.length)[0]!) as Profile;
await rm(dir, { recursive: true, force: true });

const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const shares = new Map<string, number>();
let busy = 0;
let gc = 0;
for (const [i, id] of profile.samples.entries()) {
  const delta = profile.timeDeltas[i] ?? 0;
  const frame = nodes.get(id)!.callFrame;
  if (frame.functionName === "(idle)") continue;
  busy += delta;
  if (frame.functionName === "(garbage collector)") gc += delta;
  // The nearest caller that is instrumentation owns the sample (what it calls is its cost).
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const part = partOf(nodes.get(at)!.callFrame);
    if (part) {
      shares.set(part, (shares.get(part) ?? 0) + delta);
      break;
    }
  }
}
const percent = (micros: number) => `${((micros / busy) * 100).toFixed(2)}%`;
const instrumentation = [...shares.values()].reduce((sum, value) => sum + value, 0);
console.log(`\nmetrics and tracing on: CPU profile of ${seconds}s of invoice/create at ${sample.rps.toFixed(0)} req/s, ${pinned ? "pinned" : "not pinned"}\n`);
for (const [part, micros] of [...shares].sort((a, b) => b[1] - a[1])) console.log(`${part.padEnd(42)} ${percent(micros).padStart(7)}`);
console.log(`${"all instrumentation".padEnd(42)} ${percent(instrumentation).padStart(7)}   (garbage collection, all of it: ${percent(gc)})`);
console.log(`implied on/off throughput: ${(1 - instrumentation / busy).toFixed(3)} (target >= 0.95)`);
