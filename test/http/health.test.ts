import { PGlite } from "@electric-sql/pglite";
import express from "express";
import pg from "pg";
import { postgresStorage } from "../../src/postgres";
import { DATABASE_URL, dropSchema, uniqueSchema } from "../adapters/storage/sql-fixtures";
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { exchangeRates } from "../../src/adapters/pricing/exchange-rates";
import { memoryStorage } from "../../src/adapters/storage/memory/index";
import { createPaymentRouter, type PaymentRouter } from "../../src/index";
import { DEFAULT_CURRENCIES } from "../../src/chains";
import { scripted } from "../adapters/pricing/scripted-source";
import { closeDeliveryTests, createEndpoint, createInvoice, harness, PERSISTED, startReceiver } from "../delivery/receiver";
import { recordingLogger, setup, simulatedLiveChain, TestClock } from "../helpers";

/**
 * payments.health(), healthHandler (readiness) and livenessHandler through the router, without
 * nodes: the sandbox, a simulated live chain, scripted price sources, a storage that fails and
 * a webhook receiver that fails. The live-node cases are in test/adapters/chain/{evm,bitcoin}.
 */

const routers: PaymentRouter[] = [];
afterEach(async () => {
  await Promise.all(routers.splice(0).map((router) => router.close()));
  await closeDeliveryTests();
});

function mount(router: PaymentRouter) {
  routers.push(router);
  const app = express();
  app.get("/health", router.healthHandler);
  app.get("/livez", router.livenessHandler);
  app.use(router);
  return app;
}

const SECRET_PATTERN = /sk_(test|live)_|whsec_|password|rpcUrl|127\.0\.0\.1:\d+|Shop/;

describe("health with the sandbox only", () => {
  it("answers 200 with every part, no API key needed, and nothing secret or merchant-specific", async () => {
    const h = await setup();
    routers.push(h.router);
    await createInvoice(h);
    await h.router.tick();
    const app = mount(h.router);
    const res = await request(app).get("/health");
    expect(res.status, res.text).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.body.status).toBe("ok");
    expect(res.body.reasons).toEqual([]);
    expect(res.body.storage.reachable).toBe(true);
    expect(typeof res.body.storage.roundTripMs).toBe("number");
    expect(res.body.chains).toEqual([]);
    expect(res.body.pricing).toEqual([]);
    expect(res.body.webhooks).toEqual({ retrying: 0, due: 0, oldestDueSeconds: 0, failingEndpoints: 0 });
    expect(res.body.background.schedules.map((schedule: { name: string }) => schedule.name)).toContain("invoice expiry (test)");
    expect(res.body.background.schedules.every((schedule: { lastRoundAt: string | null }) => schedule.lastRoundAt !== null)).toBe(true);
    expect(res.text).not.toMatch(SECRET_PATTERN);
    expect(res.text).not.toContain(h.merchant.id);
    expect(await h.router.health()).toEqual({ ...res.body, storage: { reachable: true, roundTripMs: expect.any(Number) } });

    const live = await request(app).get("/livez");
    expect(live.status).toBe(200);
    expect(live.body.status).toBe("alive");
  });

  it("reports a simulated live chain's heights, lag and last scan from syncStatus", async () => {
    const chain = simulatedLiveChain();
    const h = await setup({ liveChain: chain, currencies: [oneCoin()] });
    routers.push(h.router);
    let report = await h.router.health();
    expect(report.chains).toEqual([
      expect.objectContaining({
        chain: chain.feedId,
        state: "pending",
        nodeReachable: true,
        nodeHeight: 0,
        scannedHeight: null,
        lagBlocks: null,
        lastScanAt: null,
        pendingPayouts: 0,
      }),
    ]);
    await h.router.tick();
    chain.createDeposit({ coin: "BTC", network: "BTC", address: "nobody", amount: 1n });
    report = await h.router.health();
    expect(report.chains[0]).toMatchObject({
      state: "ready",
      nodeHeight: 1,
      scannedHeight: 0,
      lagBlocks: 1,
      lagSeconds: 1,
      lastScanAt: new Date(h.clock.ms).toISOString(),
    });
    expect(report.pricing).toEqual([{ coin: "BTC", quote: "USD", available: true, at: expect.any(String), reason: null, sources: [], leftOut: [] }]);
    expect(report.status).toBe("ok");
  });

  it("is unhealthy past maxLagSeconds and names the chain", async () => {
    const chain = simulatedLiveChain();
    const h = await setup({ liveChain: chain, currencies: [oneCoin()], health: { maxLagSeconds: 2 } });
    routers.push(h.router);
    await h.router.tick();
    for (let i = 0; i < 3; i++) chain.createDeposit({ coin: "BTC", network: "BTC", address: "nobody", amount: 1n });
    const app = mount(h.router);
    const res = await request(app).get("/health");
    expect(res.status).toBe(503);
    expect(res.body.reasons).toEqual([`chain ${chain.feedId}: scanner 3 blocks (3 s) behind the node`]);
    await h.router.tick();
    expect((await request(app).get("/health")).status).toBe(200);
  });

  it("is unhealthy after nodeDownAfterMs of a node not answering, degraded before, and ok when it answers again", async () => {
    const chain = simulatedLiveChain();
    let down = false;
    const syncStatus = chain.syncStatus!;
    chain.syncStatus = async () => {
      if (down) throw new Error("connect ECONNREFUSED");
      return syncStatus();
    };
    const h = await setup({ liveChain: chain, currencies: [oneCoin()], health: { nodeDownAfterMs: 30_000 } });
    routers.push(h.router);
    const app = mount(h.router);
    down = true;
    let res = await request(app).get("/health");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("degraded");
    expect(res.body.chains[0]).toMatchObject({ nodeReachable: false, nodeDownSince: new Date(h.clock.ms).toISOString() });
    h.clock.ms += 31_000;
    res = await request(app).get("/health");
    expect(res.status).toBe(503);
    expect(res.body.reasons).toEqual([`chain ${chain.feedId}: node not answering for 31 s`]);
    expect(res.text).not.toContain("ECONNREFUSED");
    down = false;
    res = await request(app).get("/health");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("ok");
    expect(res.body.chains[0].nodeDownSince).toBeNull();
  });
});

describe("health of prices", () => {
  it("answers 503 naming the coin when every price source is down, and 200 again when they recover", async () => {
    const clock = new TestClock();
    const sources = [scripted("a", { BTC: "60000" }), scripted("b", { BTC: "60010" })];
    const pricing = exchangeRates({ sources, now: clock.now, refreshSeconds: 3600, maxAgeSeconds: 120 });
    const router = createPaymentRouter({
      storage: memoryStorage(),
      chain: simulatedLiveChain(),
      currencies: [oneCoin()],
      pricing,
      publicUrl: "https://shop.example",
      backgroundIntervalMs: false,
      now: clock.now,
      logger: recordingLogger(),
    });
    const app = mount(router);
    expect((await request(app).get("/health")).status).toBe(200);
    for (const source of sources) source.state.fail = "HTTP 503";
    clock.ms += 300_000;
    await pricing.refresh();
    const res = await request(app).get("/health");
    expect(res.status, res.text).toBe(503);
    // Unhealthy: no served coin has a price; each source that no longer counts makes a degraded reason of its own.
    const why = "BTC/USD: 0 fresh sources, 2 needed; stale: a (300 s old), b (300 s old); down: a, b";
    expect(res.body.reasons).toEqual([
      `pricing: no usable price for BTC in USD (${why})`,
      "pricing: source a does not count (no fresh prices: its reads fail (a: HTTP 503))",
      "pricing: source b does not count (no fresh prices: its reads fail (b: HTTP 503))",
    ]);
    expect(res.body.pricing).toEqual([
      {
        coin: "BTC",
        quote: "USD",
        available: false,
        at: null,
        reason: why,
        sources: [],
        leftOut: ["a: stale 300 s, its reads fail", "b: stale 300 s, its reads fail"],
      },
    ]);
    for (const source of sources) source.state.fail = null;
    await pricing.refresh();
    const back = await request(app).get("/health");
    expect(back.status).toBe(200);
    expect(back.body.reasons).toEqual([]);
    expect(back.body.priceSources.map((source: { counts: boolean }) => source.counts)).toEqual([true, true]);
  });
});

describe("health of storage", () => {
  it("answers 503 when the storage cannot be read, without the storage's own words", async () => {
    const storage = memoryStorage();
    let broken = false;
    const getMerchant = storage.getMerchant.bind(storage);
    storage.getMerchant = async (id) => {
      if (broken) throw new Error("connection to postgres://admin:hunter2@db terminated");
      return getMerchant(id);
    };
    const router = createPaymentRouter({ storage, backgroundIntervalMs: false, logger: recordingLogger() });
    const app = mount(router);
    expect((await request(app).get("/health")).body.storage.reachable).toBe(true);
    broken = true;
    const res = await request(app).get("/health");
    expect(res.status).toBe(503);
    expect(res.body.reasons).toEqual(["storage: not reachable"]);
    expect(res.body.storage).toEqual({ reachable: false, roundTripMs: null });
    expect(res.text).not.toMatch(/hunter2|postgres:/);
  });

  it("answers 503 when the PostgreSQL storage's pool is ended (PGlite closed without a server), and never shows the connection string", async () => {
    const schema = uniqueSchema("health");
    const pool = DATABASE_URL ? new pg.Pool({ connectionString: DATABASE_URL, max: 2 }) : null;
    const pglite = pool ? null : await PGlite.create();
    const storage = pool ? postgresStorage({ pool, schema }) : postgresStorage({ pglite: pglite as never, schema });
    const router = createPaymentRouter({ storage, backgroundIntervalMs: false, logger: recordingLogger() });
    const app = mount(router);
    try {
      let res = await request(app).get("/health");
      expect(res.status, res.text).toBe(200);
      expect(res.body.storage.reachable).toBe(true);
      await (pool ? pool.end() : pglite!.close());
      res = await request(app).get("/health");
      expect(res.status).toBe(503);
      expect(res.body.reasons).toEqual(["storage: not reachable"]);
      if (DATABASE_URL) expect(res.text).not.toContain(new URL(DATABASE_URL).host);
    } finally {
      routers.splice(routers.indexOf(router), 1);
      await router.close().catch(() => undefined);
      await dropSchema(schema);
    }
  });

  it("answers 503 when the storage does not answer within timeoutMs", async () => {
    const storage = memoryStorage();
    const router = createPaymentRouter({ storage, backgroundIntervalMs: false, logger: recordingLogger(), health: { timeoutMs: 50 } });
    const app = mount(router);
    storage.getMerchant = () => new Promise(() => undefined);
    const res = await request(app).get("/health");
    expect(res.status).toBe(503);
    expect(res.body.storage.reachable).toBe(false);
  });
});

describe("health of hot wallets", () => {
  it("is degraded (still 200) when a hot wallet is below its low mark, with the balance in coin units", async () => {
    const chain = simulatedLiveChain();
    const low = { coin: "BTC", network: "BTC", address: "bc1qhotwallet", amount: 1_000_000n, lowBalance: 5_000_000n };
    Object.assign(chain, { hotWalletBalances: async () => [low] });
    const h = await setup({ liveChain: chain, currencies: [oneCoin()] });
    routers.push(h.router);
    await h.router.tick();
    const res = await request(mount(h.router)).get("/health");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("degraded");
    expect(res.body.reasons).toEqual([`chain ${chain.feedId}: hot wallet BTC balance below its low mark`]);
    expect(res.body.chains[0].hotWallet).toEqual([{ coin: "BTC", network: "BTC", address: "bc1qhotwallet", amount: "0.01", low: true }]);
  });
});

describe("health of webhook delivery", () => {
  it("is degraded (still 200) with the backlog when a receiver fails", async () => {
    const h = await harness({ webhooks: PERSISTED });
    const receiver = await startReceiver({ fallback: 500 });
    await createEndpoint(h, receiver.url);
    await createInvoice(h);
    await h.router.tick();
    const app = mount(h.router);
    let res = await request(app).get("/health");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("degraded");
    expect(res.body.reasons).toEqual(["webhooks: 1 endpoint(s) failing"]);
    expect(res.body.webhooks).toEqual({ retrying: 1, due: 0, oldestDueSeconds: 0, failingEndpoints: 1 });
    h.clock.ms += 90_000;
    res = await request(app).get("/health");
    // Due since the retry's time (one minute after the attempt, give or take its jitter).
    expect(res.body.webhooks).toMatchObject({ retrying: 1, due: 1, failingEndpoints: 1 });
    expect(res.body.webhooks.oldestDueSeconds).toBeGreaterThan(0);
    expect(res.text).not.toContain(receiver.url);
    receiver.reply(200);
    await h.router.tick();
    res = await request(app).get("/health");
    expect(res.body.status).toBe("ok");
    expect(res.body.webhooks).toEqual({ retrying: 0, due: 0, oldestDueSeconds: 0, failingEndpoints: 0 });
  });
});

describe("liveness", () => {
  it("answers 503 once the router is closed", async () => {
    const router = createPaymentRouter({ storage: memoryStorage(), backgroundIntervalMs: false, logger: recordingLogger() });
    const app = mount(router);
    expect((await request(app).get("/livez")).status).toBe(200);
    await router.close();
    routers.splice(routers.indexOf(router), 1);
    const res = await request(app).get("/livez");
    expect(res.status).toBe(503);
    expect(res.body.status).toBe("closed");
  });
});

describe("health options", () => {
  it("are checked at start-up", () => {
    expect(() => createPaymentRouter({ storage: memoryStorage(), health: { nodeDownAfterMs: -1 } })).toThrow(/health\.nodeDownAfterMs/);
    expect(() => createPaymentRouter({ storage: memoryStorage(), health: { timeoutMs: 0 } })).toThrow(/health\.timeoutMs/);
    expect(() => createPaymentRouter({ storage: memoryStorage(), health: { nodeDown: 1 } as never })).toThrow(/nodeDown/);
  });
});

/** A currency list of BTC only, so that one price source table covers every served coin. */
function oneCoin() {
  return DEFAULT_CURRENCIES.find((currency) => currency.symbol === "BTC")!;
}
