import { describe, expect, it } from "vitest";
import { coinbase } from "../../../../src/adapters/pricing/sources/index";
import { ask, byBase, itFailsClearly, NOW, sourceError, useProviderServer, type Received, type Reply } from "./support";

/**
 * Coinbase's documented answers (https://docs.cdp.coinbase.com/coinbase-app/track-apis/prices):
 *   GET /v2/prices/BTC-USD/spot          -> {"data":{"base":"BTC","currency":"USD","amount":"67187.33"}}
 *   GET /v2/exchange-rates?currency=USD  -> {"data":{"currency":"USD","rates":{"EUR":"0.92","JPY":"151.2",...}}}
 * Amounts and rates are JSON strings; rates are units of the currency per 1 USD.
 */

const server = useProviderServer(documented);

const SPOT: Record<string, string> = { BTC: "67187.33", ETH: "3456.789", USDT: "1.0001", USDC: "1", LTC: "84.12345678901234567890" };
const RATES: Record<string, string> = { EUR: "0.92", GBP: "0.79", CHF: "0.9", CAD: "1.35", AUD: "1.5", JPY: "151.2", BTC: "0.0000148834", AED: "3.6725" };

function spot(base: string, amount: string, currency = "USD"): string {
  return `{"data":{"base":"${base}","currency":"${currency}","amount":${amount}}}`;
}

/** Answers like Coinbase, from SPOT and RATES. */
function documented(overrides: { spot?: (base: string) => string; rates?: string } = {}): (request: Received) => Reply {
  return (request) => {
    const match = /^\/v2\/prices\/([A-Z0-9]+)-USD\/spot$/.exec(request.path);
    if (match && SPOT[match[1]!] !== undefined) return { body: overrides.spot?.(match[1]!) ?? spot(match[1]!, JSON.stringify(SPOT[match[1]!])) };
    if (match) return { status: 404, body: '{"errors":[{"id":"not_found","message":"Invalid base currency"}]}' };
    if (request.path === "/v2/exchange-rates" && request.query.get("currency") === "USD") {
      return { body: overrides.rates ?? JSON.stringify({ data: { currency: "USD", rates: RATES } }) };
    }
    return { status: 404, body: '{"errors":[{"id":"not_found","message":"Not found"}]}' };
  };
}

const source = (options: Parameters<typeof coinbase>[0] = {}) => coinbase({ baseUrl: server.url, ...options });

describe("coinbase", () => {
  it("prices crypto from the spot endpoint, exactly as written, in USD at the fetch time", async () => {
    const prices = await source().fetch(ask(["BTC", "ETH", "USDT", "USDC", "LTC"]));
    expect(prices).toEqual([
      { base: "BTC", quote: "USD", price: "67187.33", at: NOW },
      { base: "ETH", quote: "USD", price: "3456.789", at: NOW },
      { base: "USDT", quote: "USD", price: "1.0001", at: NOW },
      { base: "USDC", quote: "USD", price: "1", at: NOW },
      { base: "LTC", quote: "USD", price: "84.1234567890123456789", at: NOW },
    ]);
  });

  it("sends one GET per crypto asset to /v2/prices/{BASE}-USD/spot", async () => {
    await source().fetch(ask(["BTC", "ETH"]));
    expect(server.requests.map((r) => `${r.method} ${r.target}`).sort()).toEqual(["GET /v2/prices/BTC-USD/spot", "GET /v2/prices/ETH-USD/spot"]);
  });

  it("prices fiat as the inverse of the USD exchange rate, rounded down at 18 decimals", async () => {
    const prices = await source().fetch(ask(["EUR", "GBP", "CHF", "CAD", "AUD", "JPY"]));
    expect(byBase(prices)).toEqual({
      EUR: "1.086956521739130434", // 1 / 0.92 = 1.0869565217391304347826...
      GBP: "1.265822784810126582", // 1 / 0.79 = 1.2658227848101265822784...
      CHF: "1.111111111111111111",
      CAD: "0.74074074074074074", // 1 / 1.35 = 0.740740740740740740740... (18th decimal 0)
      AUD: "0.666666666666666666",
      JPY: "0.006613756613756613", // 1 / 151.2 = 0.0066137566137566137566...
    });
    expect(prices.every((price) => price.quote === "USD" && price.at === NOW)).toBe(true);
    expect(server.requests.map((r) => r.target)).toEqual(["/v2/exchange-rates?currency=USD"]);
  });

  it("answers crypto and fiat together and leaves out the bases it does not know", async () => {
    const prices = await source().fetch(ask(["BTC", "EUR", "TRX", "BNB", "DOGE", "BTC"]));
    expect(byBase(prices)).toEqual({ BTC: "67187.33", EUR: "1.086956521739130434" });
    expect(server.requests).toHaveLength(2);
  });

  it("sends no request when it knows none of the bases", async () => {
    expect(await source().fetch(ask(["TRX", "XYZ"]))).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it("takes symbol overrides and removals on top of its tables", async () => {
    const prices = await source({ symbols: { BTC: null, WETH: "ETH" }, fiat: { EUR: null, DIRHAM: "AED" } }).fetch(ask(["BTC", "WETH", "EUR", "DIRHAM"]));
    expect(byBase(prices)).toEqual({ WETH: "3456.789", DIRHAM: "0.272294077603812117" });
  });

  it("leaves out a fiat currency missing from the exchange rates, reporting it", async () => {
    server.reply = documented({ rates: JSON.stringify({ data: { currency: "USD", rates: { EUR: "0.92" } } }) });
    const missing: Record<string, string> = {};
    expect(byBase(await source().fetch({ ...ask(["EUR", "JPY"]), missing: (base, reason) => void (missing[base] = reason) }))).toEqual({
      EUR: "1.086956521739130434",
    });
    expect(missing).toEqual({ JPY: "pair not listed" });
  });

  it("writes a rate in exponent notation as a plain decimal before inverting it", async () => {
    server.reply = documented({ rates: JSON.stringify({ data: { currency: "USD", rates: { JPY: "1.5e2" } } }) });
    expect(byBase(await source().fetch(ask(["JPY"])))).toEqual({ JPY: "0.006666666666666666" });
  });

  it("refuses a spot answer for another pair than the one asked", async () => {
    server.reply = documented({ spot: (base) => spot(base === "BTC" ? "ETH" : base, '"3000"') });
    expect((await sourceError(source().fetch(ask(["BTC"])))).message).toBe("coinbase: GET /v2/prices/BTC-USD/spot answered for ETH-USD");
    server.reply = documented({ spot: (base) => spot(base, '"61000"', "EUR") });
    expect((await sourceError(source().fetch(ask(["BTC"])))).message).toMatch(/answered for BTC-EUR/);
  });

  it("refuses exchange rates for another currency than USD", async () => {
    server.reply = documented({ rates: JSON.stringify({ data: { currency: "EUR", rates: { USD: "1.08" } } }) });
    expect((await sourceError(source().fetch(ask(["EUR"])))).message).toMatch(/answered rates for EUR/);
  });

  it("leaves out a spot pair Coinbase answers 404 for, reporting it, and prices every other asset", async () => {
    const missing: Record<string, string> = {};
    const prices = await source({ symbols: { XMR: "XMR" } }).fetch({
      ...ask(["BTC", "XMR", "ETH", "EUR", "SEK"]),
      missing: (base, reason) => void (missing[base] = reason),
    });
    expect(byBase(prices)).toEqual({ BTC: "67187.33", ETH: "3456.789", EUR: "1.086956521739130434" });
    expect(missing).toEqual({ XMR: "pair not listed" });
  });

  it("fails on a 404 that is not Coinbase's not_found answer (a wrong baseUrl)", async () => {
    server.reply = () => ({ status: 404, body: "<html>Not Found</html>" });
    expect((await sourceError(source().fetch(ask(["BTC"])))).message).toMatch(/answered HTTP 404/);
  });

  it("fails the whole fetch when one of its parallel requests fails", async () => {
    server.reply = (request) => (request.path.includes("ETH") ? { status: 503, body: "upstream down" } : documented()(request));
    const error = await sourceError(source().fetch(ask(["BTC", "ETH", "EUR"])));
    expect(error.message).toBe('coinbase: GET /v2/prices/ETH-USD/spot answered HTTP 503 Service Unavailable: "upstream down"');
  });

  it("refuses a malformed rate even among good ones", async () => {
    server.reply = documented({ rates: JSON.stringify({ data: { currency: "USD", rates: { EUR: "0.92", JPY: "n/a" } } }) });
    expect((await sourceError(source().fetch(ask(["EUR", "JPY"])))).message).toMatch(/JPY rate "n\/a" is not a decimal number/);
  });

  it("validates its options at creation", () => {
    expect(() => coinbase({ timeoutMs: 0 })).toThrow(new TypeError("coinbase: timeoutMs must be a whole number of milliseconds >= 1, got 0"));
    expect(() => coinbase({ baseUrl: "ftp://example.com" })).toThrow(/coinbase: baseUrl must be an http\(s\) URL/);
    expect(() => coinbase({ symbols: { btc: "BTC" } })).toThrow(/coinbase: symbols keys are our symbols in capitals/);
    expect(() => coinbase({ symbols: { BTC: "BTC/../x" } })).toThrow(/coinbase: symbols.BTC: must be a Coinbase currency code/);
    expect(() => coinbase({ symbols: { XAU: "XAU" }, fiat: { XAU: "XAU" } })).toThrow(/XAU is in both symbols and fiat/);
    expect(() => coinbase({ timeout: 5 } as never)).toThrow(/unknown option\(s\) timeout \(did you mean timeoutMs\?\); valid options: baseUrl, timeoutMs/);
    expect(coinbase().timeoutMs).toBe(5000);
    expect(coinbase().name).toBe("coinbase");
  });

  itFailsClearly({
    server: () => server,
    source: (overrides) => source(overrides),
    bases: ["BTC"],
    answerWithPrice: (price) => spot("BTC", price),
    prices: { zero: '"0.00"', negative: '"-5"', nonNumeric: '"abc"' },
    wrongShape: '{"data":{"base":"BTC","currency":"USD","amount":67187.33}}',
  });
});
