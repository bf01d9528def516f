import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { binance, chainlink, coinbase, coingecko, exchangeRates, kraken, type ExchangeRates } from "../../../src/rates";
import { createPaymentRouter, memoryStorage, staticPricing } from "../../../src/index";
import { mockAggregatorAbi, mockAggregatorBytecode } from "../../fixtures/contracts/artifacts";
import { deploy, mine } from "../chain/evm/support";
import { startAnvil, type Anvil } from "../chain/evm/anvil";
import { setup, simulatedLiveChain, TestClock, type Harness } from "../../helpers";
import { expectError, get } from "../../http/v1/support";
import { startMarket, USD_PRICES, type Market } from "./market";
import { formatDecimal, mulDivDown, parseDecimal } from "../../../src/money";

/**
 * Live exchange rates end to end: the router quoting live (and test) invoices from
 * exchangeRates() over the real source implementations, against local servers that answer in
 * each provider's documented format (./market.ts), and a Chainlink-compatible aggregator on anvil.
 */

let market: Market;
let node: Anvil;
let clock: TestClock;
const open: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  [market, node] = await Promise.all([startMarket(), startAnvil()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([market.close(), node.stop()]);
});
beforeEach(() => {
  clock = new TestClock(Math.floor(Date.now() / 1000) * 1000); // whole seconds, as CoinGecko reports times
  market.coingeckoTime = clock.ms - 10_000;
  for (const provider of [market.coinbase, market.kraken, market.binance, market.coingecko]) {
    provider.behaviour = "ok";
    provider.prices = { ...USD_PRICES };
  }
});
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

const http = { timeoutMs: 400 };

function liveRates(options: Partial<Parameters<typeof exchangeRates>[0]> = {}): ExchangeRates {
  return exchangeRates({
    sources: [
      coinbase({ baseUrl: market.coinbase.url, ...http }),
      kraken({ baseUrl: market.kraken.url, ...http }),
      coingecko({ baseUrl: market.coingecko.url, ...http }),
    ],
    now: clock.now,
    refreshSeconds: 3600,
    ...options,
  });
}

async function liveHarness(pricing: ExchangeRates): Promise<Harness> {
  const h = await setup({ liveChain: simulatedLiveChain(), pricing, now: clock.now, publicUrl: "https://shop.example" });
  open.push(h.router);
  // The read bind() started ran while the router was being set up, which can keep the event loop
  // busy past the sources' 400 ms: the first refresh() joins it, the second reads afresh.
  await pricing.refresh();
  await pricing.refresh();
  return h;
}

/** A live fixed-chain payment of `amount` USD paid in `coin`. */
const pay = (h: Harness, coin: string, amount = "120", extra: Record<string, unknown> = {}) =>
  h.post("/v1/payments", { amount, amountCurrency: "USD", currency: coin, chain: coin === "USDT" ? "ETH" : coin, ...extra }, h.liveKey);

describe("live invoices priced by exchangeRates", () => {
  it("quotes from the median of three providers and records the rate's sources and time", async () => {
    market.coinbase.prices.BTC = "60100";
    market.kraken.prices.BTC = "59950";
    market.coingecko.prices.BTC = "60000.5";
    const h = await liveHarness(liveRates());
    const res = await pay(h, "BTC", "120.01");
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      rate: "60000.5",
      rateSources: ["coinbase", "coingecko", "kraken"],
      rateAt: new Date(market.coingeckoTime - (market.coingeckoTime % 1000)).toISOString(),
    });
    // 120.01 / 60000.5 = 0.0020001499..., rounded up to the satoshi.
    expect(res.body.payAmount).toBe("0.00200015");
    const merchantView = await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: res.body.id }, h.liveKey);
    expect(merchantView.body.rate).toBe(60000.5);
  });

  it("keeps quoting with one provider down, and logs which one", async () => {
    market.kraken.behaviour = "down";
    const h = await liveHarness(liveRates());
    const res = await pay(h, "ETH");
    expect(res.status, res.text).toBe(200);
    expect(res.body.rateSources).toEqual(["coinbase", "coingecko"]);
    expect(h.logger.lines.some((line) => /kraken: .*500/.test(line))).toBe(true);
  });

  it("leaves out a provider far from the others, and logs it", async () => {
    market.coingecko.prices.ETH = "3300";
    const h = await liveHarness(liveRates());
    const res = await pay(h, "ETH");
    expect(res.body).toMatchObject({ rate: "3000", rateSources: ["coinbase", "kraken"] });
    expect(h.logger.lines.some((line) => /coingecko left out for ETH\/USD: 10% from the median/.test(line))).toBe(true);
  });

  for (const behaviour of ["garbage", "html", "rate-limited", "hang"] as const) {
    it(`leaves out a provider that answers ${behaviour}, with a logged reason, and quotes from the others`, async () => {
      market.coinbase.behaviour = behaviour;
      const h = await liveHarness(liveRates());
      const res = await pay(h, "BTC");
      expect(res.status, res.text).toBe(200);
      expect(res.body.rateSources).toEqual(["coingecko", "kraken"]);
      const reason = h.logger.lines.find((line) => line.includes("coinbase"));
      expect(reason, h.logger.lines.join("\n")).toMatch(
        { garbage: /shape|expected/i, html: /not JSON/i, "rate-limited": /rate limited.*30/i, hang: /within|timed out|time/i }[behaviour],
      );
    });
  }

  it("answers 503 naming the pair and why when every price is stale, and resumes by itself when providers recover", async () => {
    const pricing = liveRates({ maxAgeSeconds: 120 });
    const h = await liveHarness(pricing);
    expect((await pay(h, "BTC")).status).toBe(200);
    for (const provider of [market.coinbase, market.kraken, market.coingecko]) provider.behaviour = "down";
    clock.advanceMinutes(3);
    await pricing.refresh(); // what the background refresh does: every provider fails
    const refused = await pay(h, "BTC");
    expectError(
      refused,
      503,
      50302,
      /^No price for BTC\/USD right now: BTC\/USD: 0 fresh sources, 2 needed; stale: coinbase \(180 s old\), coingecko \(190 s old\), kraken \(180 s old\); down: coinbase, coingecko, kraken\.$/,
    );
    // A conversion that needs a rate is refused the same way, never priced from an old value.
    const conversion = await h.post("/v1/conversions", { fromCurrency: "BTC", toCurrency: "ETH", amount: "0.1" }, h.liveKey);
    expect(conversion.status).toBe(503);

    for (const provider of [market.coinbase, market.kraken, market.coingecko]) provider.behaviour = "ok";
    market.coingeckoTime = clock.ms;
    await pricing.refresh();
    expect((await pay(h, "BTC")).status).toBe(200);
  });

  it("prices across USD when no direct pair exists: ETH in BTC, EUR in USDT", async () => {
    const h = await liveHarness(liveRates());
    const pairs = await h.post("/api/v1/exchange/pairs", undefined, h.liveKey);
    const ethBtc = pairs.body.find(
      (pair: { fromCurrency: { symbol: string }; toCurrency: { symbol: string } }) => pair.fromCurrency.symbol === "ETH" && pair.toCurrency.symbol === "BTC",
    );
    expect(ethBtc.rate).toBe(0.05);
    const euro = await h.post("/v1/payments", { amount: "100", amountCurrency: "EUR", currency: "USDT", chain: "ETH" }, h.liveKey);
    // rate is the price of the coin in the amount's currency: 1 USDT = 0.8 EUR (USDT/USD 1, EUR/USD 1.25).
    expect(euro.body).toMatchObject({ rate: "0.8", payAmount: "125" });
  });

  it("counts Binance's USDT prices as USD through the other providers' USDT/USD", async () => {
    const pricing = liveRates({
      sources: [
        kraken({ baseUrl: market.kraken.url, ...http }),
        binance({ baseUrl: market.binance.url, ...http }),
        coingecko({ baseUrl: market.coingecko.url, ...http }),
      ],
    });
    market.binance.prices.BTC = "60030";
    market.kraken.prices.USDT = "0.999";
    market.coingecko.prices.USDT = "0.999";
    const h = await liveHarness(pricing);
    const res = await pay(h, "BTC");
    // Binance: 60030 USDT x 0.999 = 59969.97 USD; Kraken and CoinGecko 60000: the median is 60000.
    expect(res.body).toMatchObject({ rate: "60000", rateSources: ["binance", "coingecko", "kraken"] });
  });

  it("stops quoting USDT off its peg, with a 503 that says so, while BTC is still quoted", async () => {
    for (const provider of [market.coinbase, market.kraken, market.coingecko]) provider.prices.USDT = "0.95";
    const h = await liveHarness(liveRates());
    const refused = await pay(h, "USDT");
    expectError(refused, 503, 50302, /USDT is off its peg: 0\.95 USD, more than 2% from 1 USD/);
    expect((await pay(h, "BTC")).status).toBe(200);
    expect(h.logger.lines.some((line) => line.includes("USDT is off its peg"))).toBe(true);
  });

  it("takes a Chainlink feed on a real node as one of the sources", async () => {
    const feed = await deploy(node, mockAggregatorAbi, mockAggregatorBytecode, [8, "BTC / USD"]);
    await mine(
      node,
      node.wallet.writeContract({
        address: feed,
        abi: mockAggregatorAbi,
        functionName: "setRound",
        args: [6_001_000_000_000n, BigInt(Math.floor(clock.ms / 1000))],
        account: node.account(0),
        chain: null,
      }),
    );
    const pricing = liveRates({
      sources: [
        chainlink({ rpcUrl: node.rpcUrl, feeds: { "BTC/USD": feed } }),
        kraken({ baseUrl: market.kraken.url, ...http }),
        coingecko({ baseUrl: market.coingecko.url, ...http }),
      ],
      assets: ["BTC", "USDT", "ETH", "LTC", "TRX", "USD", "EUR"],
    });
    market.kraken.prices.BTC = "60020";
    const h = await liveHarness(pricing);
    const res = await pay(h, "BTC");
    expect(res.body).toMatchObject({ rate: "60010", rateSources: ["chainlink", "coingecko", "kraken"] });
  });
});

/** The crypto prices of USD_PRICES times 1.1, exactly (fiat stays: the fake market serves only exact fiat inverses). */
function tenPercentHigh(): Record<string, string> {
  const high: Record<string, string> = { ...USD_PRICES };
  for (const symbol of ["BTC", "ETH", "USDT", "USDC", "LTC", "TRX", "BNB"])
    high[symbol] = formatDecimal(mulDivDown(parseDecimal(USD_PRICES[symbol]!, 18, "down"), 11n, 10n), 18);
  return high;
}

describe("two lying providers never make a price", () => {
  // A longer time than the other tests' 400 ms: here a provider that misses it would change the count.
  const patient = { timeoutMs: 3000 };
  const four = () => [
    coinbase({ baseUrl: market.coinbase.url, ...patient }),
    kraken({ baseUrl: market.kraken.url, ...patient }),
    binance({ baseUrl: market.binance.url, ...patient }),
    coingecko({ baseUrl: market.coingecko.url, ...patient }),
  ];

  it("answers 503 naming who said what when Coinbase and Kraken are both 10% high on every asset, USDT included", async () => {
    market.coinbase.prices = tenPercentHigh();
    market.kraken.prices = tenPercentHigh();
    const h = await liveHarness(liveRates({ sources: four() }));
    const refused = await pay(h, "ETH");
    // Binance's 3000 USDT cannot be counted in USD: USDT/USD (1.1 by the two liars) is off its peg.
    expectError(refused, 503, 50302, /ETH\/USD: the sources disagree: 2 of the 4 that answered agree, 3 needed/);
    expect(refused.body.message).toMatch(/binance 3000 USDT \(not counted: USDT\/USD: USDT is off its peg: 1\.1 USD/);
    expect(refused.body.message).toMatch(/coinbase 3300, coingecko 3000, kraken 3300/);
    for (const coin of ["BTC", "LTC", "USDT"]) expect((await pay(h, coin)).status, coin).toBe(503);
  });

  it("still quotes from two agreeing providers when the other two are down", async () => {
    market.coinbase.behaviour = "down";
    market.binance.behaviour = "hang";
    const h = await liveHarness(liveRates({ sources: four() }));
    const res = await pay(h, "ETH");
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ rate: "3000", rateSources: ["coingecko", "kraken"] });
  });
});

describe("which pricing each mode uses", () => {
  it("quotes test-mode invoices from the host's pricing too, and keeps the fixed table when none is given", async () => {
    const h = await liveHarness(liveRates());
    const test = await h.post("/v1/payments", { amount: "120", amountCurrency: "USD", currency: "BTC", chain: "BTC" }, h.testKey);
    expect(test.body.rateSources).toEqual(["coinbase", "coingecko", "kraken"]);
    const plain = await setup({ now: clock.now });
    open.push(plain.router);
    const fixed = await plain.post("/v1/payments", { amount: "120", amountCurrency: "USD", currency: "BTC", chain: "BTC" });
    expect(fixed.body.rateSources).toEqual(["static"]);
  });

  it("refuses at boot a live chain with the fixed table, unless the host allows it explicitly", () => {
    expect(() => createPaymentRouter({ chains: [simulatedLiveChain()], backgroundIntervalMs: false })).toThrow(
      /live chains need live prices.*exchangeRates.*staticPricing\(\{ allowLive: true \}\)/,
    );
    expect(() => createPaymentRouter({ chains: [simulatedLiveChain()], pricing: staticPricing(), backgroundIntervalMs: false })).toThrow(/fixed table/);
    const allowed = createPaymentRouter({
      chains: [simulatedLiveChain()],
      pricing: staticPricing({ allowLive: true }),
      publicUrl: "https://shop.example",
      backgroundIntervalMs: false,
      storage: memoryStorage(),
    });
    open.push(allowed);
  });

  it("fetches nothing while an invoice is created: quotes come from the last background read", async () => {
    const h = await liveHarness(liveRates());
    const before = market.coinbase.server.requests.length + market.kraken.server.requests.length + market.coingecko.server.requests.length;
    for (let i = 0; i < 5; i++) expect((await pay(h, "LTC")).status).toBe(200);
    expect(market.coinbase.server.requests.length + market.kraken.server.requests.length + market.coingecko.server.requests.length).toBe(before);
    expect((await get(h, "/v1/balances", h.liveKey)).status).toBe(200);
  });
});
