import { BINANCE_SYMBOLS, COINBASE_FIAT_CODES, COINBASE_SPOT_CODES, COINGECKO_IDS, KRAKEN_PAIRS } from "../../../src/adapters/pricing/sources/index";
import { startProviderServer, type ProviderServer, type Received, type Reply } from "./sources/support";

/**
 * A small market for end-to-end tests: four local HTTP servers, each answering in its
 * provider's documented format (the formats and their documentation are recorded in
 * test/adapters/pricing/sources/*.test.ts) from a price table the test sets, or misbehaving
 * the way providers do (down, an HTML page, rate limited, hanging, an answer of the wrong shape).
 */

/** How a provider answers. */
export type Behaviour = "ok" | "down" | "html" | "rate-limited" | "hang" | "garbage";

/** Prices in USD as decimal strings; fiat ones are chosen so that their inverses are exact. */
export const USD_PRICES: Readonly<Record<string, string>> = Object.freeze({
  BTC: "60000",
  ETH: "3000",
  USDT: "1",
  USDC: "1",
  LTC: "80",
  POL: "0.25",
  XMR: "160",
  TRX: "0.125",
  BNB: "600",
  EUR: "1.25",
  GBP: "1.6",
  CHF: "1.25",
  CAD: "0.8",
  AUD: "0.625",
  JPY: "0.008",
});

/** One provider of the market: its server, its own prices (a copy of USD_PRICES to start with) and behaviour. */
export interface FakeProvider {
  server: ProviderServer;
  url: string;
  prices: Record<string, string>;
  behaviour: Behaviour;
}

export interface Market {
  coinbase: FakeProvider;
  kraken: FakeProvider;
  binance: FakeProvider;
  coingecko: FakeProvider;
  /** The time CoinGecko reports as last_updated_at (the only provider that gives one), epoch ms. */
  coingeckoTime: number;
  close(): Promise<void>;
}

/** 1 / value for the exact fiat table above (0.8 -> "1.25", "125" for JPY...). */
function inverse(value: string): string {
  const exact: Record<string, string> = { "1.25": "0.8", "1.6": "0.625", "0.8": "1.25", "0.625": "1.6", "0.008": "125" };
  const answer = exact[value];
  if (!answer) throw new Error(`the fake market has no exact inverse of ${value}: pick a fiat price from USD_PRICES' set`);
  return answer;
}

/** Starts the four providers. */
export async function startMarket(): Promise<Market> {
  const make = async (): Promise<FakeProvider> => {
    const server = await startProviderServer();
    return { server, url: server.url, prices: { ...USD_PRICES }, behaviour: "ok" };
  };
  const [coinbase, kraken, binance, coingecko] = await Promise.all([make(), make(), make(), make()]);
  const market: Market = {
    coinbase,
    kraken,
    binance,
    coingecko,
    coingeckoTime: Date.now(),
    close: async () => {
      await Promise.all([coinbase, kraken, binance, coingecko].map((provider) => provider.server.close()));
    },
  };
  const answer =
    (provider: FakeProvider, ok: (request: Received) => Reply) =>
    (request: Received): Reply => {
      switch (provider.behaviour) {
        case "ok":
          return ok(request);
        case "down":
          return { status: 500, body: '{"message":"internal error"}' };
        case "html":
          return { status: 200, headers: { "content-type": "text/html" }, body: "<!doctype html><title>Maintenance</title><h1>We'll be right back</h1>" };
        case "rate-limited":
          return { status: 429, headers: { "retry-after": "30" }, body: '{"message":"Too many requests"}' };
        case "hang":
          return { hang: true };
        case "garbage":
          return { status: 200, body: '{"surprise":[1,2,3]}' };
      }
    };
  const byCode = (table: Readonly<Record<string, string>>) => new Map(Object.entries(table).map(([symbol, code]) => [code, symbol]));

  // https://docs.cdp.coinbase.com/coinbase-app/track-apis/prices
  const spot = byCode(COINBASE_SPOT_CODES);
  const fiat = byCode(COINBASE_FIAT_CODES);
  coinbase.server.reply = answer(coinbase, (request) => {
    const pair = /^\/v2\/prices\/([A-Z0-9]+)-USD\/spot$/.exec(request.path);
    if (pair) {
      const symbol = spot.get(pair[1]!);
      if (!symbol || !coinbase.prices[symbol]) return { status: 404, body: '{"errors":[{"id":"not_found","message":"Invalid currency"}]}' };
      return { body: JSON.stringify({ data: { base: pair[1], currency: "USD", amount: coinbase.prices[symbol] } }) };
    }
    if (request.path === "/v2/exchange-rates") {
      const rates: Record<string, string> = {};
      for (const [code, symbol] of fiat) if (coinbase.prices[symbol]) rates[code] = inverse(coinbase.prices[symbol]!);
      return { body: JSON.stringify({ data: { currency: "USD", rates } }) };
    }
    return { status: 404, body: '{"errors":[{"id":"not_found"}]}' };
  });

  // https://docs.kraken.com/api/docs/rest-api/get-ticker-information
  const pairs = new Map(Object.entries(KRAKEN_PAIRS).map(([symbol, pair]) => [pair.pair, { symbol, ...pair }]));
  kraken.server.reply = answer(kraken, (request) => {
    const result: Record<string, { c: [string, string] }> = {};
    for (const name of (request.query.get("pair") ?? "").split(",")) {
      const pair = pairs.get(name);
      const price = pair && kraken.prices[pair.symbol];
      if (!pair || !price) return { body: JSON.stringify({ error: ["EQuery:Unknown asset pair"] }) };
      result[pair.keys[0]!] = { c: [pair.inverse ? inverse(price) : price, "0.5"] };
    }
    return { body: JSON.stringify({ error: [], result }) };
  });

  // https://developers.binance.com/docs/binance-spot-api-docs/rest-api/market-data-endpoints#symbol-price-ticker
  const symbols = byCode(BINANCE_SYMBOLS);
  binance.server.reply = answer(binance, (request) => {
    const asked = JSON.parse(request.query.get("symbols") ?? "[]") as string[];
    const unknown = asked.filter((symbol) => !symbols.has(symbol) || !binance.prices[symbols.get(symbol)!]);
    if (unknown.length > 0) return { status: 400, body: '{"code":-1121,"msg":"Invalid symbol."}' };
    return { body: JSON.stringify(asked.map((symbol) => ({ symbol, price: binance.prices[symbols.get(symbol)!] }))) };
  });

  // https://docs.coingecko.com/reference/simple-price: prices are JSON numbers, written as such.
  const ids = byCode(COINGECKO_IDS);
  coingecko.server.reply = answer(coingecko, (request) => {
    const entries = (request.query.get("ids") ?? "")
      .split(",")
      .filter((id) => ids.has(id) && coingecko.prices[ids.get(id)!])
      .map((id) => `"${id}":{"usd":${coingecko.prices[ids.get(id)!]},"last_updated_at":${Math.floor(market.coingeckoTime / 1000)}}`);
    return { body: `{${entries.join(",")}}` };
  });
  return market;
}
