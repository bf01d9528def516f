import { describe, expect, it } from "vitest";
import { kraken, KRAKEN_PAIRS } from "../../../../src/adapters/pricing/sources/index";
import { ask, byBase, itFailsClearly, NOW, sourceError, useProviderServer, type Received, type Reply } from "./support";

/**
 * Kraken's documented answer (https://docs.kraken.com/api/docs/rest-api/get-ticker-information):
 *   GET /0/public/Ticker?pair=XBTUSD,ETHUSD
 *   -> {"error":[],"result":{"XXBTZUSD":{"a":["30300.10000","1","1.000"],"b":["30300.00000","1","1.000"],
 *        "c":["30303.20000","0.00067643"],"v":["4083.67001100","4412.73601799"],"p":["30706.77771","30689.13205"],
 *        "t":[34619,38907],"l":["29868.30000","29868.30000"],"h":["31631.00000","31631.00000"],"o":"30502.80000"}, ...}}
 * `c` is the last trade [price, lot volume]. Legacy pairs answer under X/Z-prefixed names
 * (XBTUSD -> XXBTZUSD, USDJPY -> ZUSDZJPY), newer ones under the name asked (USDCUSD, TRXUSD).
 * Errors: {"error":["EQuery:Unknown asset pair"]}.
 */

const server = useProviderServer(documented);

/** Kraken's answer key -> last trade price, for the pairs of the default table. */
const LAST: Record<string, string> = {
  XXBTZUSD: "67187.30000",
  XETHZUSD: "3456.78000",
  USDTZUSD: "1.00010000",
  USDCUSD: "0.99990000",
  XLTCZUSD: "84.12000",
  TRXUSD: "0.1234560",
  ZEURZUSD: "1.08420",
  ZGBPZUSD: "1.26500",
  USDCHF: "0.90000",
  ZUSDZCAD: "1.35000",
  AUDUSD: "0.65500",
  ZUSDZJPY: "151.200",
};
const KEY_OF: Record<string, string> = {
  XBTUSD: "XXBTZUSD",
  ETHUSD: "XETHZUSD",
  USDTUSD: "USDTZUSD",
  LTCUSD: "XLTCZUSD",
  EURUSD: "ZEURZUSD",
  GBPUSD: "ZGBPZUSD",
  USDCAD: "ZUSDZCAD",
  USDJPY: "ZUSDZJPY",
};

/** One ticker entry as Kraken writes it; `last` is the JSON token of the last trade price. */
function ticker(last: string): string {
  return `{"a":["30300.10000","1","1.000"],"b":["30300.00000","1","1.000"],"c":[${last},"0.00067643"],"v":["4083.67001100","4412.73601799"],"p":["30706.77771","30689.13205"],"t":[34619,38907],"l":["29868.30000","29868.30000"],"h":["31631.00000","31631.00000"],"o":"30502.80000"}`;
}

/** Answers like Kraken for every pair asked; `last` (a JSON token) replaces the price of the first pair. */
function documented(first?: string): (request: Received) => Reply {
  return (request) => {
    if (request.path !== "/0/public/Ticker") return { status: 404, body: "" };
    const pairs = (request.query.get("pair") ?? "").split(",");
    const entries: string[] = [];
    for (const [index, pair] of pairs.entries()) {
      const key = KEY_OF[pair] ?? pair;
      if (LAST[key] === undefined) return { body: '{"error":["EQuery:Unknown asset pair"]}' };
      entries.push(`"${key}":${ticker(index === 0 && first !== undefined ? first : JSON.stringify(LAST[key]))}`);
    }
    return { body: `{"error":[],"result":{${entries.join(",")}}}` };
  };
}

const source = (options: Parameters<typeof kraken>[0] = {}) => kraken({ baseUrl: server.url, ...options });

describe("kraken", () => {
  it("prices every asset with one Ticker request, from the last trade price, in USD at the fetch time", async () => {
    const prices = await source().fetch(ask(["BTC", "ETH", "USDT", "USDC", "LTC", "TRX"]));
    expect(prices).toEqual([
      { base: "BTC", quote: "USD", price: "67187.3", at: NOW },
      { base: "ETH", quote: "USD", price: "3456.78", at: NOW },
      { base: "USDT", quote: "USD", price: "1.0001", at: NOW },
      { base: "USDC", quote: "USD", price: "0.9999", at: NOW },
      { base: "LTC", quote: "USD", price: "84.12", at: NOW },
      { base: "TRX", quote: "USD", price: "0.123456", at: NOW },
    ]);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: "GET", target: "/0/public/Ticker?pair=XBTUSD,ETHUSD,USDTUSD,USDCUSD,LTCUSD,TRXUSD" });
  });

  it("prices fiat, inverting the USD-based pairs at 18 decimals rounded down", async () => {
    const prices = await source().fetch(ask(["EUR", "GBP", "CHF", "CAD", "AUD", "JPY"]));
    expect(byBase(prices)).toEqual({
      EUR: "1.0842",
      GBP: "1.265",
      AUD: "0.655",
      CHF: "1.111111111111111111", // 1 / 0.9 (USDCHF)
      CAD: "0.74074074074074074", // 1 / 1.35 (ZUSDZCAD)
      JPY: "0.006613756613756613", // 1 / 151.2 (ZUSDZJPY)
    });
    expect(server.requests[0]!.query.get("pair")).toBe("EURUSD,GBPUSD,USDCHF,USDCAD,AUDUSD,USDJPY");
  });

  it("documents its pair table", () => {
    expect(KRAKEN_PAIRS.BTC).toEqual({ pair: "XBTUSD", keys: ["XXBTZUSD", "XBTUSD"], inverse: false });
    expect(KRAKEN_PAIRS.JPY).toMatchObject({ pair: "USDJPY", inverse: true });
    expect(KRAKEN_PAIRS.BNB).toBeUndefined();
  });

  it("leaves out bases it does not know and asks nothing for none", async () => {
    expect(byBase(await source().fetch(ask(["BTC", "BNB", "DOGE"])))).toEqual({ BTC: "67187.3" });
    expect(server.requests[0]!.query.get("pair")).toBe("XBTUSD");
    expect(await source().fetch(ask(["BNB"]))).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it("accepts an answer under the altname as well as the full pair name", async () => {
    server.reply = () => ({ body: `{"error":[],"result":{"XBTUSD":${ticker('"60000.1"')}}}` });
    expect(byBase(await source().fetch(ask(["BTC"])))).toEqual({ BTC: "60000.1" });
  });

  it("takes pair overrides: a name, or a pair with its answer keys and orientation", async () => {
    server.reply = () => ({ body: `{"error":[],"result":{"BNBUSD":${ticker('"600.5"')},"ZUSDZSEK":${ticker('"10"')}}}` });
    const prices = await source({ symbols: { BNB: "BNBUSD", SEK: { pair: "USDSEK", keys: ["ZUSDZSEK"], inverse: true }, BTC: null } }).fetch(
      ask(["BNB", "SEK", "BTC"]),
    );
    expect(byBase(prices)).toEqual({ BNB: "600.5", SEK: "0.1" });
    expect(server.requests[0]!.query.get("pair")).toBe("BNBUSD,USDSEK");
  });

  it("fails with Kraken's own messages when its error list is not empty", async () => {
    server.reply = () => ({ body: '{"error":["EService:Unavailable"]}' });
    expect((await sourceError(source().fetch(ask(["BTC"])))).message).toBe("kraken: GET /0/public/Ticker?pair=XBTUSD answered an error: EService:Unavailable");
  });

  it("finds a pair Kraken does not list from its refusal of the whole request, and prices every other pair", async () => {
    const missing: Record<string, string> = {};
    const fetch = source({ symbols: { BNB: "BNBUSD" } });
    const read = () => fetch.fetch({ ...ask(["BTC", "ETH", "BNB", "USDT", "LTC"]), missing: (base, reason) => void (missing[base] = reason) });
    expect(byBase(await read())).toEqual({ BTC: "67187.3", ETH: "3456.78", USDT: "1.0001", LTC: "84.12" });
    expect(missing).toEqual({ BNB: "pair not listed" });
    expect(server.requests[0]!.query.get("pair")).toBe("XBTUSD,ETHUSD,BNBUSD,USDTUSD,LTCUSD");
    // Later reads ask for the listed pairs in one request and for the unlisted one alone.
    const before = server.requests.length;
    await read();
    expect(server.requests.slice(before).map((request) => request.query.get("pair"))).toEqual(["XBTUSD,ETHUSD,USDTUSD,LTCUSD", "BNBUSD"]);
    // Listed again: it counts from the next read.
    LAST.BNBUSD = "600.5";
    try {
      delete missing.BNB;
      expect(byBase(await read())).toMatchObject({ BNB: "600.5", BTC: "67187.3" });
      expect(missing).toEqual({});
    } finally {
      delete LAST.BNBUSD;
    }
  });

  it("keeps the unlisted pairs a read found before it was cut short, so the next read does not search again", async () => {
    const fetch = source({ symbols: { BNB: "BNBUSD" }, timeoutMs: 500 });
    const read = () => fetch.fetch(ask(["BTC", "ETH", "BNB", "USDT", "LTC"]));
    // The search in halves finds BNBUSD, then the link stalls: the read fails at its timeout.
    const answer = documented();
    let stalled = false;
    server.reply = (request) => {
      if (!stalled && request.query.get("pair") === "USDTUSD,LTCUSD") {
        stalled = true;
        return { hang: true };
      }
      return answer(request);
    };
    await expect(read()).rejects.toThrow();
    expect(server.requests.map((request) => request.query.get("pair"))).toEqual([
      "XBTUSD,ETHUSD,BNBUSD,USDTUSD,LTCUSD",
      "XBTUSD,ETHUSD,BNBUSD",
      "XBTUSD,ETHUSD",
      "BNBUSD",
      "USDTUSD,LTCUSD",
    ]);
    const before = server.requests.length;
    expect(byBase(await read())).toEqual({ BTC: "67187.3", ETH: "3456.78", USDT: "1.0001", LTC: "84.12" });
    expect(server.requests.slice(before).map((request) => request.query.get("pair"))).toEqual(["XBTUSD,ETHUSD,USDTUSD,LTCUSD", "BNBUSD"]);
  });

  it("says rate limited when Kraken's error says too many requests", async () => {
    server.reply = () => ({ body: '{"error":["EGeneral:Too many requests"]}' });
    expect((await sourceError(source().fetch(ask(["BTC"])))).message).toMatch(/was rate limited: EGeneral:Too many requests/);
  });

  it("leaves out a pair missing from the answer, reporting it, and prices the others", async () => {
    server.reply = () => ({ body: `{"error":[],"result":{"XXBTZUSD":${ticker('"60000"')}}}` });
    const missing: Record<string, string> = {};
    const prices = await source().fetch({ ...ask(["BTC", "ETH"]), missing: (base, reason) => void (missing[base] = reason) });
    expect(byBase(prices)).toEqual({ BTC: "60000" });
    expect(missing).toEqual({ ETH: "no price in the answer" });
  });

  it("fails the whole answer when one entry is malformed", async () => {
    server.reply = () => ({ body: `{"error":[],"result":{"XXBTZUSD":${ticker('"60000"')},"XETHZUSD":{"c":["3000"]}}}` });
    expect((await sourceError(source().fetch(ask(["BTC", "ETH"])))).message).toMatch(/not the documented shape: XETHZUSD\.c/);
  });

  it("validates its options at creation", () => {
    expect(() => kraken({ symbols: { BNB: "BNB USD" } })).toThrow(/kraken: symbols.BNB: pair must be a Kraken pair name/);
    expect(() => kraken({ symbols: { SEK: { pair: "USDSEK", inverse: "yes" } as never } })).toThrow(/kraken: symbols.SEK: inverse must be true or false/);
    expect(() => kraken({ timeoutMs: 1.5 })).toThrow(/kraken: timeoutMs must be a whole number/);
    expect(() => kraken({ baseUrl: "https://api.kraken.com/?x=1" })).toThrow(/kraken: baseUrl must not have a query/);
  });

  itFailsClearly({
    server: () => server,
    source: (overrides) => source(overrides),
    bases: ["BTC", "ETH"],
    answerWithPrice: (price) =>
      documented(price)({ method: "GET", path: "/0/public/Ticker", query: new URLSearchParams("pair=XBTUSD,ETHUSD"), target: "", headers: {}, body: "" }).body!,
    prices: { zero: '"0.00000"', negative: '"-1.5"', nonNumeric: '"NaN"' },
    wrongShape: '{"error":[],"result":{"XXBTZUSD":{"c":"67187.3"},"XETHZUSD":{"c":["1","2"]}}}',
  });
});
