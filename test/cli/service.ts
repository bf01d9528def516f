import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { createPaymentRouter, type PaymentRouter, type Storage } from "../../src/index";
import { ROOT } from "./cli";

/**
 * A running service for the development commands: the router on a real port of its own, with
 * its background loops on a short interval (payouts settle while a command waits), in memory.
 */
export interface RunningService {
  router: PaymentRouter;
  /** Where the router is mounted: what --url takes. */
  url: string;
  merchantId: string;
  testKey: string;
  liveKey: string;
  close(): Promise<void>;
}

/** Listens on a free port of 127.0.0.1 and resolves with the server and its base URL. */
export function listen(app: express.Express): Promise<{ server: Server; base: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
}

/** Starts the router, mounted at /payments of an app of its own, with a merchant and its keys; in memory unless `storage` is given. */
export async function startService(options: { storage?: Storage } = {}): Promise<RunningService> {
  const router = createPaymentRouter({
    ...options,
    publicUrl: "https://shop.example",
    mountPath: "/payments",
    // Slow enough that a payout is still processing when trigger has the sandbox fail it.
    backgroundIntervalMs: 1000,
    webhooks: { intervalMs: 200, allowPrivateUrls: true },
    // The merchant endpoint of the tests answers nothing: its failed attempts are expected.
    logger: { warn: () => undefined, error: (message: string) => console.error(message) },
  });
  const app = express();
  app.use("/payments", router);
  const { server, base } = await listen(app);
  const merchant = await router.admin.createMerchant({ name: "Dev shop" });
  const testKey = (await router.admin.issueApiKey(merchant.id, { mode: "test" })).key;
  const liveKey = (await router.admin.issueApiKey(merchant.id, { mode: "live" })).key;
  return {
    router,
    url: `${base}/payments`,
    merchantId: merchant.id,
    testKey,
    liveKey,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await router.close();
    },
  };
}

/** A CLI process left running (listen): its output so far, a wait for a line, and its end. */
export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout line matching `pattern` (its match), within `timeoutMs`. */
  line(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** Starts the CLI from source as a long-running process (as cli() does, without waiting for its end). */
export function startCli(args: string[], env: Record<string, string> = {}): RunningCli {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, EXPRESS_CRYPTO_PAY_CONFIG: "", EXPRESS_CRYPTO_PAY_URL: "", EXPRESS_CRYPTO_PAY_API_KEY: "", ...env },
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk) => void (out += chunk));
  child.stderr.on("data", (chunk) => void (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    line: (pattern, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const look = () => {
          const match = out.match(pattern);
          if (match) {
            clearInterval(timer);
            resolve(match);
          } else if (Date.now() > until || child.exitCode !== null) {
            clearInterval(timer);
            reject(new Error(`no line matching ${pattern} (exit ${child.exitCode}); stdout:\n${out}\nstderr:\n${err}`));
          }
        };
        const until = Date.now() + timeoutMs;
        const timer = setInterval(look, 50);
      }),
  };
}
