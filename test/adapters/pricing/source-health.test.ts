import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import express from "express";
import request from "supertest";
import parsePrometheusTextFormat, { type ParsedFamily } from "parse-prometheus-text-format";
import { coinbase, coingecko, exchangeRates, kraken, type ExchangeRates, type PriceSource } from "../../../src/rates";
import type { HealthReport } from "../../../src/index";
import type { PriceSourceHealth } from "../../../src/operator";
import { setup, simulatedLiveChain, TestClock, type Harness } from "../../helpers";
import { startMarket, USD_PRICES, type Market } from "./market";

/**
 * Price sources as the operator sees them: in `payments.health()` (per source: last good read,
 * last failure, whether it counts) and in the metrics scrape (reads by source and outcome, their
 * latency, the age of each source's last good read), with the real sources reading local servers
 * that answer as the providers do (./market.ts).
 */

const PREFIX = "express_crypto_pay_";
let market: Market;
let liars: Market;
let clock: TestClock;
const open: Harness[] = [];

beforeAll(async () => {
  [market, liars] = await Promise.all([startMarket(), startMarket()]);
});
afterAll(async () => {
  await Promise.all([market.close(), liars.close()]);
});
beforeEach(() => {
  clock = new TestClock(Math.floor(Date.now() / 1000) * 1000);
  for (const provider of [market.coinbase, market.kraken, market.coingecko, liars.coinbase, liars.kraken]) {
    provider.behaviour = "ok";
    provider.prices = { ...USD_PRICES };
  }
  market.coingeckoTime = clock.ms;
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.router.close();
});

// Patient enough that a busy machine never turns a good read into a timeout.
const http = { timeoutMs: 3000 };
const three = () => [
  coinbase({ baseUrl: market.coinbase.url, ...http }),
  kraken({ baseUrl: market.kraken.url, ...http }),
  coingecko({ baseUrl: market.coingecko.url, ...http }),
];

async function harness(pricing: ExchangeRates): Promise<Harness> {
  const h = await setup({ liveChain: simulatedLiveChain(), pricing, now: clock.now, publicUrl: "https://shop.example" });
  open.push(h);
  // Joins the read bind() started, then reads afresh: every source has been read at least once.
  await pricing.refresh();
  await pricing.refresh();
  return h;
}

async function health(h: Harness): Promise<{ status: number; body: HealthReport }> {
  const app = express();
  app.get("/health", h.router.healthHandler);
  const res = await request(app).get("/health");
  return { status: res.status, body: res.body as HealthReport };
}

const source = (report: HealthReport, name: string): PriceSourceHealth => {
  const found = report.priceSources.find((entry) => entry.name === name);
  expect(found, `${name} in ${JSON.stringify(report.priceSources)}`).toBeDefined();
  return found!;
};

async function scrape(h: Harness): Promise<{ families: ParsedFamily[]; text: string }> {
  const app = express();
  app.get("/metrics", h.router.metricsHandler);
  const res = await request(app).get("/metrics");
  expect(res.status, res.text).toBe(200);
  return { families: parsePrometheusTextFormat(res.text), text: res.text };
}

/** The value of the sample of `name` whose labels include these, or undefined. */
function value(families: ParsedFamily[], name: string, labels: Record<string, string>): number | undefined {
  const family = families.find((candidate) => candidate.name === PREFIX + name);
  const sample = family?.metrics.find((metric) => Object.entries(labels).every(([key, wanted]) => metric.labels?.[key] === wanted));
  return sample === undefined ? undefined : Number(sample.value ?? sample.count);
}

/** A histogram series' observation count, from its `_count` line (the parser drops the labels of all but one series). */
function histogramCount(text: string, name: string, labels: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${PREFIX}${name}_count{${labels}} `));
  return line === undefined ? undefined : Number(line.split(" ")[1]);
}

describe("a price source that goes down and comes back", () => {
  it("shows in health (last failure, not counting once its prices are stale) and in metrics (reads by outcome, latency, age)", async () => {
    // One source is enough for a price here: only two of the three serve every coin (TRX), and one of those goes down.
    const pricing = exchangeRates({ sources: three(), now: clock.now, refreshSeconds: 3600, maxAgeSeconds: 120, minSources: 1 });
    const h = await harness(pricing);
    const before = await health(h);
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(before.body.reasons).toEqual([]);
    expect(before.body.priceSources.map(({ name, counts, lastFailure, leftOut }) => ({ name, counts, lastFailure, leftOut }))).toEqual(
      ["coinbase", "kraken", "coingecko"].map((name) => ({ name, counts: true, lastFailure: null, leftOut: null })),
    );
    expect(source(before.body, "kraken").lastGoodReadAt).toBe(new Date(clock.ms).toISOString());
    const first = await scrape(h);
    const okReads = value(first.families, "price_reads_total", { source: "kraken", outcome: "ok" })!;
    expect(okReads).toBeGreaterThanOrEqual(2);
    expect(histogramCount(first.text, "price_read_duration_seconds", 'source="kraken"')).toBe(okReads);
    expect(value(first.families, "price_source_counting", { source: "kraken" })).toBe(1);
    expect(value(first.families, "price_source_last_good_read_age_seconds", { source: "kraken" })).toBe(0);

    // Down for three reads; its last prices still count until they are older than maxAgeSeconds.
    market.kraken.behaviour = "down";
    await pricing.refresh();
    const early = await health(h);
    expect(source(early.body, "kraken")).toMatchObject({ counts: true, lastFailureAt: new Date(clock.ms).toISOString() });
    expect(source(early.body, "kraken").lastFailure).toMatch(/^kraken: GET .* answered HTTP 500/);
    clock.advanceMinutes(3);
    market.coingeckoTime = clock.ms;
    await pricing.refresh();
    await pricing.refresh();
    const down = await health(h);
    expect(down.status, JSON.stringify(down.body.reasons)).toBe(200);
    expect(down.body.status).toBe("degraded");
    expect(down.body.reasons).toEqual([
      expect.stringMatching(/^pricing: source kraken does not count \(no fresh prices: its reads fail \(kraken: GET .*HTTP 500/),
    ]);
    expect(source(down.body, "kraken")).toMatchObject({ counts: false, lastGoodReadAt: source(before.body, "kraken").lastGoodReadAt });
    expect(source(down.body, "coinbase")).toMatchObject({ counts: true, lastGoodReadAt: new Date(clock.ms).toISOString() });
    const during = await scrape(h);
    expect(value(during.families, "price_reads_total", { source: "kraken", outcome: "error" })).toBe(3);
    expect(value(during.families, "price_reads_total", { source: "kraken", outcome: "ok" })).toBe(okReads);
    expect(histogramCount(during.text, "price_read_duration_seconds", 'source="kraken"')).toBe(okReads + 3);
    expect(value(during.families, "price_source_counting", { source: "kraken" })).toBe(0);
    expect(value(during.families, "price_source_counting", { source: "coinbase" })).toBe(1);
    expect(value(during.families, "price_source_last_good_read_age_seconds", { source: "kraken" })).toBe(180);

    // Back: it counts again; its last failure stays in the report for the operator to read.
    market.kraken.behaviour = "ok";
    await pricing.refresh();
    const back = await health(h);
    expect(back.body.status).toBe("ok");
    expect(source(back.body, "kraken")).toMatchObject({ counts: true, leftOut: null, lastGoodReadAt: new Date(clock.ms).toISOString() });
    expect(source(back.body, "kraken").lastFailure).toMatch(/HTTP 500/);
    const after = await scrape(h);
    expect(value(after.families, "price_reads_total", { source: "kraken", outcome: "ok" })).toBe(okReads + 1);
    expect(value(after.families, "price_source_counting", { source: "kraken" })).toBe(1);
    expect(value(after.families, "price_source_last_good_read_age_seconds", { source: "kraken" })).toBe(0);

    // The log: the outage's error once, a line a read, a line when it is back; nothing of the others.
    const lines = h.logger.lines.filter((line) => /price source kraken (failed|still|recovered)/.test(line));
    expect(lines).toEqual([
      expect.stringMatching(/^error price source kraken failed; it is retried every read, .*: kraken: GET .*HTTP 500/),
      expect.stringMatching(/^warn price source kraken still failing \(2 reads in a row\): kraken: GET .*HTTP 500/),
      expect.stringMatching(/^warn price source kraken still failing \(3 reads in a row\)/),
      "warn price source kraken recovered after 3 failed reads",
    ]);
    // Besides, its prices going stale and fresh again: once each.
    expect(h.logger.lines.filter((line) => line.includes("price source kraken left out until its prices are fresh again"))).toHaveLength(1);
    expect(h.logger.lines.filter((line) => line.includes("price source kraken has fresh prices again"))).toHaveLength(1);
  });

  it("counts a read whose prices are all older than maxAgeSeconds as stale", async () => {
    const pricing = exchangeRates({ sources: three(), now: clock.now, refreshSeconds: 3600, maxAgeSeconds: 120 });
    const h = await harness(pricing);
    // CoinGecko reports its own observation time: five minutes old is too old to use.
    market.coingeckoTime = clock.ms - 300_000;
    await pricing.refresh();
    const { families } = await scrape(h);
    expect(value(families, "price_reads_total", { source: "coingecko", outcome: "stale" })).toBe(1);
    const report = await health(h);
    expect(source(report.body, "coingecko")).toMatchObject({ counts: false, lastFailure: null, leftOut: "no fresh prices: they are older than maxAgeSeconds" });
  });
});

describe("two lying sources among five", () => {
  /** A source read under another name (a second server of the same provider). */
  const renamed = (inner: PriceSource, name: string): PriceSource => ({ name, timeoutMs: inner.timeoutMs, fetch: (req) => inner.fetch(req) });

  it("are left out by the combine rules and show as not counting, naming the assets; the three honest ones count", async () => {
    for (const provider of [liars.coinbase, liars.kraken]) {
      provider.prices = { ...USD_PRICES, BTC: "66000", ETH: "3300", LTC: "88", USDT: "1.1" };
    }
    const pricing = exchangeRates({
      sources: [
        ...three(),
        renamed(coinbase({ baseUrl: liars.coinbase.url, ...http }), "coinbase-b"),
        renamed(kraken({ baseUrl: liars.kraken.url, ...http }), "kraken-b"),
      ],
      now: clock.now,
      refreshSeconds: 3600,
      // Crypto only: the lying servers tell the truth about fiat, where they would count.
      assets: ["BTC", "ETH", "LTC"],
    });
    const h = await harness(pricing);
    const res = await h.post("/v1/payments", { amount: "120", amountCurrency: "USD", currency: "ETH", chain: "ETH" }, h.liveKey);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ rate: "3000", rateSources: ["coinbase", "coingecko", "kraken"] });

    const report = (await health(h)).body;
    for (const name of ["coinbase", "kraken", "coingecko"]) expect(source(report, name)).toMatchObject({ counts: true, leftOut: null });
    for (const name of ["coinbase-b", "kraken-b"]) {
      const liar = source(report, name);
      expect(liar.counts).toBe(false);
      expect(liar.lastFailure).toBeNull();
      expect(liar.leftOut).toMatch(/^too far from the median for /);
      for (const asset of ["BTC", "ETH", "LTC", "USDT"]) expect(liar.leftOut).toContain(`${asset}/USD (10%)`);
    }
    expect(report.reasons).toEqual(expect.arrayContaining([expect.stringMatching(/^pricing: source coinbase-b does not count \(too far from the median/)]));
    const { families } = await scrape(h);
    expect(value(families, "price_source_counting", { source: "kraken-b" })).toBe(0);
    expect(value(families, "price_source_counting", { source: "coingecko" })).toBe(1);
    // A lying source still answers: its reads are ok, only the combine rules leave it out.
    expect(value(families, "price_reads_total", { source: "kraken-b", outcome: "ok" })).toBeGreaterThanOrEqual(2);
  });
});

describe("the fixed table", () => {
  it("is one source, static, that always counts", async () => {
    const h = await setup({});
    open.push(h);
    const report = (await health(h)).body;
    expect(report.priceSources).toEqual([
      { name: "static", counts: true, lastGoodReadAt: expect.any(String), lastFailureAt: null, lastFailure: null, leftOut: null },
    ]);
  });
});
