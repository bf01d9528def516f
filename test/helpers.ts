import express from "express";
import { expect } from "vitest";
import request from "supertest";
import { sandboxChain, type SandboxChain } from "../src/adapters/chain/sandbox";
import type { ChainAdapter } from "../src/core/ports/chain";
import { SANDBOX_CHAIN } from "../src/core/ports/chain";
import { memoryStorage } from "../src/adapters/storage/memory/index";
import { postgresStorage } from "../src/postgres";
import { createPaymentRouter, staticPricing, type PaymentRouter, type PaymentRouterOptions, type Storage } from "../src/index";

/**
 * The sandbox's simulation standing in for a live chain, for tests of what the router and core
 * do in live mode (mode isolation, live balances, live payouts): those are chain-independent,
 * and a simulation lets them drive deposits by hand. The router refuses the real sandbox as a
 * live chain, so this copy leaves out its mark and has a feed id of its own. How a real live
 * chain behaves is tested against real nodes under test/adapters/chain (evm/, bitcoin/).
 */
export function simulatedLiveChain(): SimulatedLiveChain {
  const { [SANDBOX_CHAIN]: _mark, ...chain } = sandboxChain();
  return chain;
}

/** What `simulatedLiveChain()` returns: the sandbox's methods without its mark. */
export type SimulatedLiveChain = Omit<SandboxChain, typeof SANDBOX_CHAIN>;

/** A clock tests move by hand. */
export class TestClock {
  constructor(public ms = Date.parse("2026-03-01T12:00:00.000Z")) {}
  now = (): number => this.ms;
  advanceMinutes(minutes: number): void {
    this.ms += minutes * 60_000;
  }
}

/** A logger that keeps what it is told, so tests can assert nothing unexpected was logged. */
export function recordingLogger() {
  const lines: string[] = [];
  return { lines, warn: (message: string) => void lines.push(`warn ${message}`), error: (message: string) => void lines.push(`error ${message}`) };
}

let sharedPglite: Promise<{ close(): Promise<void> }> | undefined;
let schemas = 0;

/**
 * The storage of a test: in memory, fast and isolated. TEST_STORAGE=pglite runs the same tests
 * on the SQL adapter instead (PGlite, one per test file, a schema per router: a deep check).
 */
async function testStorage(): Promise<Storage> {
  if (process.env.TEST_STORAGE !== "pglite") return memoryStorage();
  sharedPglite ??= import("@electric-sql/pglite").then(({ PGlite }) => PGlite.create());
  const pglite = (await sharedPglite) as Parameters<typeof postgresStorage>[0]["pglite"];
  return postgresStorage({ pglite, schema: `test_${++schemas}`, cache: true });
}

/**
 * A fresh host app with the router mounted at `mountPath`, a merchant with a test and a live
 * key, and a second merchant for isolation tests. Background loops are off: tests call tick().
 * Webhook endpoints may be private addresses (`allowPrivateUrls`), since test receivers listen
 * on 127.0.0.1; tests of the address policy pass `webhooks: { allowPrivateUrls: false }`.
 */
export async function setup(options: PaymentRouterOptions & { mountPath?: string; liveChain?: ChainAdapter } = {}) {
  const { mountPath = "/", liveChain, ...routerOptions } = options;
  const clock = new TestClock();
  const logger = recordingLogger();
  const router: PaymentRouter = createPaymentRouter({
    ...(routerOptions.storage || routerOptions.dataDir ? {} : { storage: await testStorage() }),
    backgroundIntervalMs: false,
    now: clock.now,
    logger,
    // Live mode refuses the fixed table unless asked for explicitly, and needs publicUrl.
    ...(liveChain ? { chain: liveChain, pricing: staticPricing({ allowLive: true }), publicUrl: "https://shop.example" } : {}),
    ...routerOptions,
    ...(mountPath === "/" ? {} : { mountPath }),
    webhooks: { intervalMs: false, allowPrivateUrls: true, ...routerOptions.webhooks },
  });
  const app = express();
  app.get("/host-route", (_req, res) => res.send("host"));
  app.use(mountPath, router);
  const merchant = await router.admin.createMerchant({ name: "Shop" });
  const testKey = (await router.admin.issueApiKey(merchant.id, { mode: "test" })).key;
  const liveKey = (await router.admin.issueApiKey(merchant.id, { mode: "live" })).key;
  const other = await router.admin.createMerchant({ name: "Other shop" });
  const otherTestKey = (await router.admin.issueApiKey(other.id, { mode: "test" })).key;
  const prefix = mountPath === "/" ? "" : mountPath;

  /** POSTs JSON to a path under the mount point with a key. */
  const post = (path: string, body?: unknown, key: string | null = testKey) => {
    let call = request(app).post(`${prefix}${path}`);
    if (key !== null) call = call.set("Authorization", `Bearer ${key}`);
    return body === undefined ? call : call.send(body as object);
  };
  return { app, router, clock, logger, merchant, other, testKey, liveKey, otherTestKey, post, prefix };
}

export type Harness = Awaited<ReturnType<typeof setup>>;

/**
 * Asserts an answer is exactly the error object `{ error, message }`, as JSON, with this
 * status and, when given, this code.
 */
export function expectErrorObject(
  res: { status: number; headers: Record<string, string>; body: Record<string, unknown>; text?: string },
  status: number,
  code?: number,
): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(Object.keys(res.body).sort()).toEqual(["error", "message"]);
  if (code !== undefined) expect(res.body.error).toBe(code);
  expect(typeof res.body.message).toBe("string");
  expect((res.body.message as string).length).toBeGreaterThan(0);
}
