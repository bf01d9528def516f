import express from "express";
import request from "supertest";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { binance, coinbase, coingecko, exchangeRates, kraken, type ExchangeRates, type PriceSource } from "../../../src/rates";
import { DEFAULT_CURRENCIES } from "../../../src/chains";
import type { HealthReport } from "../../../src/index";
import { formatDecimal, mulDivDown, parseDecimal } from "../../../src/money";
import { setup, simulatedLiveChain, TestClock, type Harness } from "../../helpers";
import { expectError } from "../../http/v1/support";
import { startMarket, USD_PRICES, type FakeProvider, type Market } from "./market";

/**
 * Prices by the pair, end to end: the router quoting live payments from exchangeRates() over the
 * four real HTTP sources, against local servers answering in each provider's documented format
 * (./market.ts), while one provider stops listing one pair (Kraken and Binance then refuse the
 * whole request naming it), lies about every asset, or is slow to answer its first read.
 */

let market: Market;
let clock: TestClock;
const open: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  market = await startMarket();
});
afterAll(async () => {
  await market.close();
});
beforeEach(() => {
  clock = new TestClock(Math.floor(Date.now() / 1000) * 1000); // whole seconds, as CoinGecko reports times
  market.coingeckoTime = clock.ms;
  for (const provider of providers()) {
    provider.behaviour = "ok";
    provider.prices = { ...USD_PRICES };
  }
});
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

const NAMES = ["coinbase", "kraken", "binance", "coingecko"] as const;
const providers = (): FakeProvider[] => NAMES.map((name) => market[name]);

// Patient enough that a busy machine never turns a good read into a timeout.
const patient = { timeoutMs: 3000 };
function four(): PriceSource[] {
  return [
    coinbase({ baseUrl: market.coinbase.url, ...patient }),
    kraken({ baseUrl: market.kraken.url, ...patient }),
    binance({ baseUrl: market.binance.url, ...patient }),
    coingecko({ baseUrl: market.coingecko.url, ...patient }),
  ];
}

/** The network each coin is paid on here. */
const CHAIN: Record<string, string> = { BTC: "BTC", ETH: "ETH", LTC: "LTC", USDT: "ETH", USDC: "BASE", TRX: "TRX", XMR: "XMR", POL: "POLYGON" };
/** Coins three or four of the providers price: one liar among them is outvoted. */
const WELL_SOURCED = ["BTC", "ETH", "LTC", "USDT", "USDC", "TRX"];

async function harness(pricing: ExchangeRates, coins?: string[]): Promise<Harness> {
  const currencies = coins ? DEFAULT_CURRENCIES.filter((currency) => coins.includes(currency.symbol)) : undefined;
  const h = await setup({ liveChain: simulatedLiveChain(), pricing, now: clock.now, publicUrl: "https://shop.example", ...(currencies ? { currencies } : {}) });
  open.push(h.router);
  // Joins the read bind() started, then reads afresh: every source has been read at least once.
  await pricing.refresh();
  await pricing.refresh();
  return h;
}

const pay = (h: Harness, coin: string) => h.post("/v1/payments", { amount: "120", amountCurrency: "USD", currency: coin, chain: CHAIN[coin] }, h.liveKey);

/** The names of the sources whose table has `coin`, sorted as rates record them. */
const covering = (sources: readonly PriceSource[], coin: string) =>
  sources
    .filter((source) => source.covers!(coin))
    .map((source) => source.name)
    .sort();

async function health(h: Harness): Promise<{ status: number; body: HealthReport }> {
  const app = express();
  app.get("/health", h.router.healthHandler);
  const res = await request(app).get("/health");
  return { status: res.status, body: res.body as HealthReport };
}

async function gauge(h: Harness, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const app = express();
  app.get("/metrics", h.router.metricsHandler);
  const families = parsePrometheusTextFormat((await request(app).get("/metrics")).text);
  const family = families.find((candidate) => candidate.name === `express_crypto_pay_${name}`);
  const sample = family?.metrics.find((metric) => Object.entries(labels).every(([key, wanted]) => metric.labels?.[key] === wanted));
  return sample === undefined ? undefined : Number(sample.value);
}

describe("a pair one provider does not list", () => {
  for (const name of NAMES) {
    it(`leaves LTC out of ${name} alone: every other coin is quoted from all its sources, LTC from the others, and LTC counts again once relisted`, async () => {
      const sources = four();
      const pricing = exchangeRates({ sources, now: clock.now, refreshSeconds: 3600 });
      const h = await harness(pricing);
      const provider = market[name];
      delete provider.prices.LTC;
      const before = provider.server.requests.length;
      await pricing.refresh();

      for (const coin of Object.keys(CHAIN)) {
        const res = await pay(h, coin);
        expect(res.status, `${coin}: ${res.text}`).toBe(200);
        const expected = covering(sources, coin).filter((source) => coin !== "LTC" || source !== name);
        expect(res.body.rateSources, coin).toEqual(expected);
      }
      const ltc = (await health(h)).body.pricing.find((entry) => entry.coin === "LTC")!;
      expect(ltc).toMatchObject({ available: true, leftOut: [`${name}: pair not listed`] });
      expect([...ltc.sources].sort()).toEqual(NAMES.filter((other) => other !== name).sort());
      if (name === "kraken" || name === "binance") {
        // The whole request was refused, then asked again without the pair.
        const asked = provider.server.requests.slice(before).map((received) => received.query.get(name === "kraken" ? "pair" : "symbols")!);
        expect(asked[0]).toContain("LTC");
        expect(asked.some((list) => !list.includes("LTC") && list.includes(name === "kraken" ? "XBTUSD" : "BTCUSDT"))).toBe(true);
      }

      provider.prices.LTC = USD_PRICES.LTC!;
      await pricing.refresh();
      expect((await pay(h, "LTC")).body.rateSources).toEqual(covering(sources, "LTC"));
    });
  }

  it("counts a relisted pair again from the next background read, without a refresh by hand", async () => {
    const sources = four();
    const pricing = exchangeRates({ sources, now: clock.now, refreshSeconds: 1 });
    const h = await harness(pricing);
    delete market.kraken.prices.ETH;
    await pricing.refresh();
    const krakenEth = () =>
      pricing
        .sources()
        .find((source) => source.name === "kraken")!
        .pairs!.find((pair) => pair.base === "ETH")!;
    expect(krakenEth()).toEqual({ base: "ETH", quote: "USD", counts: false, leftOut: "pair not listed" });
    expect((await pay(h, "ETH")).body.rateSources).toEqual(["binance", "coinbase", "coingecko"]);

    market.kraken.prices.ETH = USD_PRICES.ETH!;
    // The background schedule reads every second here (the default is every 30 s): bounded by a deadline.
    const deadline = Date.now() + 10_000;
    while (!krakenEth().counts && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(krakenEth()).toEqual({ base: "ETH", quote: "USD", counts: true, leftOut: null });
    expect((await pay(h, "ETH")).body.rateSources).toEqual(["binance", "coinbase", "coingecko", "kraken"]);
    expect(h.logger.lines).toEqual(
      expect.arrayContaining([
        "warn price source kraken has no ETH/USD (pair not listed): left out of ETH until it has one again",
        "warn price source kraken prices ETH/USD again",
      ]),
    );
  });
});

describe("a coin short of sources", () => {
  it("is reported in health by pair and source (degraded, 200) while the other coins' invoices go on", async () => {
    const pricing = exchangeRates({ sources: four(), now: clock.now, refreshSeconds: 3600, maxAgeSeconds: 30 });
    // Without POL, which Coinbase (about to fail) and CoinGecko alone price.
    const h = await harness(pricing, ["BTC", "ETH", "LTC", "USDT", "XMR"]);
    // XMR has two providers: Kraken stops listing it.
    delete market.kraken.prices.XMR;
    // Coinbase stops answering, and 40 s later its last prices are older than maxAgeSeconds.
    market.coinbase.behaviour = "down";
    clock.ms += 40_000;
    market.coingeckoTime = clock.ms;
    await pricing.refresh();

    const report = await health(h);
    expect(report.status, JSON.stringify(report.body.reasons)).toBe(200);
    expect(report.body.status).toBe("degraded");
    expect(report.body.reasons).toContain("pricing: no usable price for XMR in USD (XMR/USD: 1 fresh source, 2 needed; down: kraken (pair not listed))");
    expect(report.body.reasons.filter((reason) => reason.startsWith("pricing: no usable price"))).toHaveLength(1);
    const xmr = report.body.pricing.find((entry) => entry.coin === "XMR")!;
    // CoinGecko's XMR price is fine, but one source makes no price.
    expect(xmr).toMatchObject({ available: false, sources: [], leftOut: ["kraken: pair not listed", "coingecko: fresh, too few sources for a price"] });
    const btc = report.body.pricing.find((entry) => entry.coin === "BTC")!;
    expect(btc).toMatchObject({ available: true, reason: null, sources: ["kraken", "binance", "coingecko"] });
    expect(btc.leftOut).toEqual(["coinbase: stale 40 s, its reads fail"]);

    expectError(await pay(h, "XMR"), 503, 50302, /XMR\/USD: 1 fresh source, 2 needed; down: kraken \(pair not listed\)/);
    for (const coin of ["BTC", "ETH", "LTC", "USDT"]) expect((await pay(h, coin)).status, coin).toBe(200);

    expect(await gauge(h, "price_pair_source_counting", { pair: "XMR/USD", source: "kraken" })).toBe(0);
    expect(await gauge(h, "price_pair_source_counting", { pair: "XMR/USD", source: "coingecko" })).toBe(0);
    expect(await gauge(h, "price_pair_sources_counting", { pair: "XMR/USD" })).toBe(0);
    expect(await gauge(h, "price_pair_sources_counting", { pair: "BTC/USD" })).toBe(3);
    // Coinbase does not price XMR: it is not listed under it at all.
    expect(await gauge(h, "price_pair_source_counting", { pair: "XMR/USD", source: "coinbase" })).toBeUndefined();
  });
});

/** The crypto prices of USD_PRICES times 1.1, exactly (fiat stays: the fake market serves only exact fiat inverses). */
function tenPercentHigh(): Record<string, string> {
  const high: Record<string, string> = { ...USD_PRICES };
  for (const symbol of ["BTC", "ETH", "USDT", "USDC", "LTC", "TRX", "BNB", "XMR", "POL"])
    high[symbol] = formatDecimal(mulDivDown(parseDecimal(USD_PRICES[symbol]!, 18, "down"), 11n, 10n), 18);
  return high;
}

describe("one provider of four lying about every asset, USDT included", () => {
  for (const liar of NAMES) {
    it(`is outvoted when it is ${liar}: every coin quoted at the honest price without it, no 503`, async () => {
      const sources = four();
      market[liar].prices = tenPercentHigh();
      const pricing = exchangeRates({ sources, now: clock.now, refreshSeconds: 3600 });
      const h = await harness(pricing, WELL_SOURCED);
      for (const coin of WELL_SOURCED) {
        const res = await pay(h, coin);
        expect(res.status, `${coin}: ${res.text}`).toBe(200);
        expect(res.body.rate, coin).toBe(USD_PRICES[coin]);
        expect(res.body.rateSources, coin).toEqual(covering(sources, coin).filter((name) => name !== liar));
      }
      const report = await health(h);
      expect(report.status).toBe(200);
      expect(report.body.pricing.every((entry) => entry.available)).toBe(true);
      const usdt = report.body.pricing.find((entry) => entry.coin === "USDT")!;
      if (liar !== "binance") expect(usdt.leftOut).toEqual([`${liar}: 10% from the median`]);
    });
  }
});

describe("the first quote", () => {
  it("comes once enough providers answered, before a slow provider's first read ends", async () => {
    market.kraken.behaviour = "hang";
    const pricing = exchangeRates({
      sources: [
        coinbase({ baseUrl: market.coinbase.url, ...patient }),
        kraken({ baseUrl: market.kraken.url, timeoutMs: 60_000 }),
        binance({ baseUrl: market.binance.url, ...patient }),
        coingecko({ baseUrl: market.coingecko.url, ...patient }),
      ],
      now: clock.now,
      refreshSeconds: 3600,
    });
    const h = await setup({ liveChain: simulatedLiveChain(), pricing, now: clock.now, publicUrl: "https://shop.example" });
    open.push(h.router);
    // Kraken holds its first read for up to 60 s: the quote is bounded far below that.
    const deadline = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), 5000).unref());
    const res = await Promise.race([pay(h, "BTC"), deadline]);
    expect(res).not.toBe("late");
    const answer = res as Exclude<typeof res, "late">;
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.rateSources).not.toContain("kraken");
    expect(answer.body.rateSources.length).toBeGreaterThanOrEqual(2);
    expect(pricing.sources().find((source) => source.name === "kraken")).toMatchObject({ lastGoodReadAt: null, lastFailure: null });
  });

  it("asks the providers only for the coins a chain serves and the fiat currencies", async () => {
    const pricing = exchangeRates({ sources: four(), now: clock.now, refreshSeconds: 3600 });
    const before = market.kraken.server.requests.length;
    await harness(pricing, ["BTC", "ETH"]);
    const asked = new Set(market.kraken.server.requests.slice(before).flatMap((received) => received.query.get("pair")!.split(",")));
    // USDT/USD too: Binance's USDT prices are converted with it.
    expect([...asked].sort()).toEqual(["AUDUSD", "ETHUSD", "EURUSD", "GBPUSD", "USDCAD", "USDCHF", "USDJPY", "USDTUSD", "XBTUSD"]);
  });
});
