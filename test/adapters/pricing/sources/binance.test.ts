import { describe, expect, it } from "vitest";
import { binance, BINANCE_SYMBOLS } from "../../../../src/adapters/pricing/sources/index";
import { ask, byBase, itFailsClearly, NOW, sourceError, useProviderServer, type Received, type Reply } from "./support";

/**
 * Binance's documented answer
 * (https://developers.binance.com/docs/binance-spot-api-docs/rest-api/market-data-endpoints#symbol-price-ticker):
 *   GET /api/v3/ticker/price?symbols=%5B%22BTCUSDT%22,%22BNBUSDT%22%5D   (symbols=["BTCUSDT","BNBUSDT"])
 *   -> [{"symbol":"BTCUSDT","price":"6000.01000000"},{"symbol":"BNBUSDT","price":"300.00000000"}]
 * Any unknown symbol in the list: HTTP 400 {"code":-1121,"msg":"Invalid symbol."}.
 * Too many requests: 429 with Retry-After; ignoring those: 418 (banned) with Retry-After.
 */

const server = useProviderServer(documented);

const PRICES: Record<string, string> = {
  BTCUSDT: "67187.33000000",
  ETHUSDT: "3456.78900000",
  USDCUSDT: "0.99990000",
  LTCUSDT: "84.12000000",
  TRXUSDT: "0.12345000",
  BNBUSDT: "600.10000000",
  EURUSDT: "1.08420000",
};

/** Answers like Binance for the symbols asked; `first` (a JSON token) replaces the first one's price. */
function documented(first?: string): (request: Received) => Reply {
  return (request) => {
    if (request.path !== "/api/v3/ticker/price") return { status: 404, body: "" };
    const symbols = JSON.parse(request.query.get("symbols") ?? "[]") as string[];
    if (symbols.some((symbol) => PRICES[symbol] === undefined)) return { status: 400, body: '{"code":-1121,"msg":"Invalid symbol."}' };
    return {
      body: `[${symbols.map((symbol, index) => `{"symbol":"${symbol}","price":${index === 0 && first !== undefined ? first : JSON.stringify(PRICES[symbol])}}`).join(",")}]`,
    };
  };
}

const source = (options: Parameters<typeof binance>[0] = {}) => binance({ baseUrl: server.url, ...options });

describe("binance", () => {
  it("prices every asset with one request, in USDT, at the fetch time", async () => {
    const prices = await source().fetch(ask(["BTC", "ETH", "USDC", "LTC", "TRX", "BNB", "EUR"]));
    expect(prices).toEqual([
      { base: "BTC", quote: "USDT", price: "67187.33", at: NOW },
      { base: "ETH", quote: "USDT", price: "3456.789", at: NOW },
      { base: "USDC", quote: "USDT", price: "0.9999", at: NOW },
      { base: "LTC", quote: "USDT", price: "84.12", at: NOW },
      { base: "TRX", quote: "USDT", price: "0.12345", at: NOW },
      { base: "BNB", quote: "USDT", price: "600.1", at: NOW },
      { base: "EUR", quote: "USDT", price: "1.0842", at: NOW },
    ]);
  });

  it("sends the symbols as a URL-encoded JSON list", async () => {
    await source().fetch(ask(["BTC", "ETH"]));
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: "GET", target: "/api/v3/ticker/price?symbols=%5B%22BTCUSDT%22%2C%22ETHUSDT%22%5D" });
    expect(server.requests[0]!.query.get("symbols")).toBe('["BTCUSDT","ETHUSDT"]');
  });

  it("leaves out USDT (no USDT price of USDT), fiat other than EUR and unknown bases", async () => {
    expect(byBase(await source().fetch(ask(["USDT", "BTC", "JPY", "GBP", "DOGE"])))).toEqual({ BTC: "67187.33" });
    expect(server.requests[0]!.query.get("symbols")).toBe('["BTCUSDT"]');
    expect(await source().fetch(ask(["USDT", "JPY"]))).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(Object.keys(BINANCE_SYMBOLS)).toEqual(["BTC", "ETH", "USDC", "LTC", "TRX", "BNB", "EUR"]);
  });

  it("takes symbol overrides and removals", async () => {
    PRICES.DOGEUSDT = "0.1234";
    try {
      const prices = await source({ symbols: { DOGE: "DOGEUSDT", EUR: null } }).fetch(ask(["DOGE", "EUR"]));
      expect(byBase(prices)).toEqual({ DOGE: "0.1234" });
    } finally {
      delete PRICES.DOGEUSDT;
    }
  });

  it("finds a symbol Binance does not list from its 400 -1121 refusal, prices every other one, and counts it again once listed", async () => {
    const missing: Record<string, string> = {};
    const fetch = source({ symbols: { XYZ: "XYZUSDT" } });
    const read = () => fetch.fetch({ ...ask(["BTC", "XYZ", "ETH", "LTC"]), missing: (base, reason) => void (missing[base] = reason) });
    expect(byBase(await read())).toEqual({ BTC: "67187.33", ETH: "3456.789", LTC: "84.12" });
    expect(missing).toEqual({ XYZ: "pair not listed" });
    const before = server.requests.length;
    await read();
    expect(server.requests.slice(before).map((request) => request.query.get("symbols"))).toEqual(['["BTCUSDT","ETHUSDT","LTCUSDT"]', '["XYZUSDT"]']);
    PRICES.XYZUSDT = "2.5";
    try {
      delete missing.XYZ;
      expect(byBase(await read())).toEqual({ BTC: "67187.33", XYZ: "2.5", ETH: "3456.789", LTC: "84.12" });
      expect(missing).toEqual({});
    } finally {
      delete PRICES.XYZUSDT;
    }
  });

  it("fails with Binance's message on any other 400", async () => {
    server.reply = () => ({ status: 400, body: '{"code":-1100,"msg":"Illegal characters found in parameter."}' });
    expect((await sourceError(source().fetch(ask(["BTC"])))).message).toMatch(
      /answered HTTP 400 Bad Request: Illegal characters found in parameter\. \(code -1100\)/,
    );
  });

  it("counts a 418 ban as rate limiting", async () => {
    server.reply = () => ({
      status: 418,
      headers: { "retry-after": "120" },
      body: '{"code":-1003,"msg":"Way too many requests; IP banned until 1711356300000."}',
    });
    expect((await sourceError(source().fetch(ask(["BTC"])))).message).toMatch(
      /was rate limited \(HTTP 418 I'm a Teapot, Retry-After: 120\): Way too many requests/,
    );
  });

  it("leaves out a symbol missing from the answer, and fails the whole answer on a symbol answered twice", async () => {
    server.reply = () => ({ body: '[{"symbol":"BTCUSDT","price":"60000"}]' });
    const missing: Record<string, string> = {};
    expect(byBase(await source().fetch({ ...ask(["BTC", "ETH"]), missing: (base, reason) => void (missing[base] = reason) }))).toEqual({ BTC: "60000" });
    expect(missing).toEqual({ ETH: "no price in the answer" });
    server.reply = () => ({ body: '[{"symbol":"BTCUSDT","price":"60000"},{"symbol":"BTCUSDT","price":"1"}]' });
    expect((await sourceError(source().fetch(ask(["BTC"])))).message).toMatch(/answered BTCUSDT twice/);
  });

  it("fails the whole answer when one entry is malformed", async () => {
    server.reply = () => ({ body: '[{"symbol":"BTCUSDT","price":"60000"},{"symbol":"ETHUSDT"}]' });
    expect((await sourceError(source().fetch(ask(["BTC", "ETH"])))).message).toMatch(/not the documented shape: 1\.price/);
  });

  it("validates its options at creation", () => {
    expect(() => binance({ symbols: { DOGE: "DOGEBTC" } })).toThrow(/binance: symbols.DOGE: must be a Binance symbol quoted in USDT/);
    expect(() => binance({ baseUrl: 42 as never })).toThrow(/binance: baseUrl must be an http\(s\) URL/);
    expect(() => binance(null as never)).toThrow(/binance: options must be an object/);
  });

  itFailsClearly({
    server: () => server,
    source: (overrides) => source(overrides),
    bases: ["BTC", "ETH"],
    answerWithPrice: (price) =>
      documented(price)({
        method: "GET",
        path: "/api/v3/ticker/price",
        query: new URLSearchParams({ symbols: '["BTCUSDT","ETHUSDT"]' }),
        target: "",
        headers: {},
        body: "",
      }).body!,
    prices: { zero: '"0.00000000"', negative: '"-67187.33"', nonNumeric: '"67,187.33"' },
    wrongShape: '{"symbol":"BTCUSDT","price":"67187.33"}',
  });
});
