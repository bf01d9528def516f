import { z } from "zod";
import { positivePrice } from "./decimal";
import { getJson } from "./http";
import { checkBaseUrl, checkTimeout, knownBases, nameMatching, optionsRecord, symbolTable, type HttpSourceOptions } from "./options";
import { PriceSourceError, type PriceSource } from "./types";

/**
 * Binance's symbol price ticker
 * (https://developers.binance.com/docs/binance-spot-api-docs/rest-api/market-data-endpoints#symbol-price-ticker),
 * no key needed: `GET /api/v3/ticker/price?symbols=["BTCUSDT","ETHUSDT"]` (the JSON list
 * URL-encoded), one request for every asset -> `[{"symbol":"BTCUSDT","price":"67187.33000000"},...]`.
 * Binance quotes in USDT and gives no time: prices are `quote: "USDT"` (the combining layer
 * turns USDT into USD), stamped `now()`.
 */

/** Options of `binance()`. */
export interface BinanceOptions extends HttpSourceOptions {
  /** Default "https://api.binance.com". */
  baseUrl?: string;
  /**
   * Our symbol -> a Binance spot symbol quoted in USDT ("DOGE" -> "DOGEUSDT"), on top of
   * `BINANCE_SYMBOLS`; null removes one.
   */
  symbols?: Record<string, string | null>;
}

/**
 * Binance's USDT markets for our assets. Binance refuses the whole request (400, code -1121
 * "Invalid symbol.") when ANY listed symbol is unknown to it, so this table holds only
 * long-standing, high-volume markets (XMR is not one: Binance delisted it). USDT itself has no USDT price and is left out; the only
 * fiat is EUR (EURUSDT): Binance's other fiat/USDT markets come and go.
 */
export const BINANCE_SYMBOLS: Readonly<Record<string, string>> = Object.freeze({
  BTC: "BTCUSDT",
  ETH: "ETHUSDT",
  USDC: "USDCUSDT",
  LTC: "LTCUSDT",
  TRX: "TRXUSDT",
  BNB: "BNBUSDT",
  EUR: "EURUSDT",
});

const ANSWER = z.array(z.object({ symbol: z.string(), price: z.string() }));
// `code` is a LosslessNumber here (the body was parsed losslessly); it is only shown.
const ERROR_BODY = z.object({ code: z.unknown(), msg: z.string() });

const NAME = "binance";
const SYMBOL = nameMatching(/^[A-Z0-9]{1,20}USDT$/, 'a Binance symbol quoted in USDT such as "DOGEUSDT"');

/**
 * A price source reading Binance's spot price ticker: the latest price of each market, in USDT.
 * Every asked symbol must be in the answer: a missing one or a malformed one fails the whole
 * fetch. A 418 (Binance's ban after ignored 429s) counts as rate limiting.
 */
export function binance(options?: BinanceOptions): PriceSource {
  const record = optionsRecord(NAME, options, ["baseUrl", "timeoutMs", "symbols"]);
  const baseUrl = checkBaseUrl(NAME, record.baseUrl, "https://api.binance.com");
  const timeoutMs = checkTimeout(NAME, record.timeoutMs);
  const symbols = symbolTable(NAME, "symbols", record.symbols, BINANCE_SYMBOLS, SYMBOL);

  return {
    name: NAME,
    timeoutMs,
    async fetch({ bases, signal, now }) {
      const asked = knownBases(bases, symbols);
      if (asked.length === 0) return [];
      const list = [...new Set(asked.map((base) => symbols.get(base)!))];
      const label = `GET /api/v3/ticker/price?symbols=${JSON.stringify(list)}`;
      const answer = await getJson({
        source: NAME,
        label,
        url: `${baseUrl}/api/v3/ticker/price?symbols=${encodeURIComponent(JSON.stringify(list))}`,
        signal,
        timeoutMs,
        schema: ANSWER,
        rateLimitStatuses: [418],
        explainStatus: (status, body) => explain(status, body, asked, symbols),
      });
      const prices = new Map<string, string>();
      for (const { symbol, price } of answer) {
        if (prices.has(symbol)) throw new PriceSourceError(NAME, `${label} answered ${symbol} twice`);
        prices.set(symbol, price);
      }
      const at = now();
      return asked.map((base) => {
        const symbol = symbols.get(base)!;
        const price = prices.get(symbol);
        if (price === undefined) throw new PriceSourceError(NAME, `${label} answered no ${symbol}`);
        return { base, quote: "USDT", price: positivePrice(NAME, `${symbol} price`, price), at };
      });
    },
  };
}

/** Binance's error body `{"code":-1121,"msg":"Invalid symbol."}`, with what to do about it. */
function explain(status: number, body: unknown, asked: readonly string[], symbols: ReadonlyMap<string, string>): string | undefined {
  const parsed = ERROR_BODY.safeParse(body);
  if (!parsed.success) return undefined;
  const said = `${parsed.data.msg.slice(0, 120)} (code ${String(parsed.data.code)})`;
  if (status === 400 && /invalid symbol/i.test(parsed.data.msg)) {
    const listed = asked.map((base) => `${base}: ${symbols.get(base)}`).join(", ");
    return `${said}: Binance does not list one of ${listed}; remove it with symbols: { <SYMBOL>: null }`;
  }
  return said;
}
