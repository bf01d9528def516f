import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";

/** A running `examples/server` process. */
export interface ExampleProcess {
  base: string;
  child: ChildProcess;
  /** Its stdout up to the end of its banner. */
  lines: string[];
  /** The demo merchant's test key: the one it was started with, or the one its banner printed. */
  testKey: string;
  /** The live key its banner printed (once) when a live chain is configured, else null. */
  liveKey: string | null;
  /** Calls the payment API with `key` (the test key unless given): POST with a body, GET without. */
  call<T = Record<string, unknown>>(path: string, body?: unknown, method?: string, key?: string): Promise<{ status: number; body: T }>;
  /** Stops it (SIGTERM: a clean shutdown; SIGKILL: a crash) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `npm start`'s program on a free port with `env` and demo key `key` (without one, the
 * program makes one up and prints it), and waits for the end of its banner (its `try:` line).
 */
export async function startExample(env: Record<string, string>, key?: string): Promise<ExampleProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "examples/server/index.ts"], {
    env: { ...process.env, PORT: "0", DATABASE_URL: "", ...(key === undefined ? {} : { DEMO_API_KEY: key }), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const lines: string[] = [];
  let base: string | undefined;
  let testKey: string | undefined;
  let liveKey: string | undefined;
  for await (const line of createInterface({ input: child.stdout! })) {
    lines.push(line);
    base ??= /listening on (http:\/\/\S+)/.exec(line)?.[1];
    testKey ??= /test API key: (sk_test_\S+)/.exec(line)?.[1];
    liveKey ??= /live API key \(shown once\): (sk_live_\S+)/.exec(line)?.[1];
    if (base && line.startsWith("try:")) break;
  }
  if (!base) throw new Error(`the example server exited before listening:\n${lines.join("\n")}\n${stderr}`);
  const origin = base;
  const demoKey = key ?? testKey;
  if (!demoKey) {
    child.kill();
    throw new Error(`the example server printed no test key:\n${lines.join("\n")}\n${stderr}`);
  }
  return {
    base: origin,
    child,
    lines,
    testKey: demoKey,
    liveKey: liveKey ?? null,
    async call(path, body, method, as = demoKey) {
      const response = await fetch(`${origin}${path}`, {
        method: method ?? (body === undefined ? "GET" : "POST"),
        headers: { authorization: `Bearer ${as}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as never };
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill(signal);
      await exited;
    },
  };
}

/** Polls `check` until it returns a value (not undefined), or fails after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined>, ms = 20_000, what = "the condition"): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
