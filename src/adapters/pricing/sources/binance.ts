import { z } from "zod";
import { positivePrice } from "./decimal";
import { getJson } from "./http";
import { ListedPairs } from "./listed-pairs";
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
 * Binance's USDT markets for our assets: long-standing, high-volume markets (XMR is not one:
 * Binance delisted it). A symbol Binance stops listing is left out of that read alone (see
 * `binance()`). USDT itself has no USDT price and is left out; the only
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
 * Binance refuses a whole request whose `symbols` list holds one symbol it does not list (400,
 * -1121 "Invalid symbol."): the source then asks again in halves to find which, leaves those out
 * (reported as "pair not listed") and asks for each of them alone on later reads, so that a
 * symbol Binance lists again counts from the next read on. A symbol missing from the answer is
 * left out the same way; a malformed answer or any other error fails the whole fetch. A 418
 * (Binance's ban after ignored 429s) counts as rate limiting.
 */
export function binance(options?: BinanceOptions): PriceSource {
  const record = optionsRecord(NAME, options, ["baseUrl", "timeoutMs", "symbols"]);
  const baseUrl = checkBaseUrl(NAME, record.baseUrl, "https://api.binance.com");
  const timeoutMs = checkTimeout(NAME, record.timeoutMs);
  const symbols = symbolTable(NAME, "symbols", record.symbols, BINANCE_SYMBOLS, SYMBOL);
  const listed = new ListedPairs();

  /** One ticker request: each asked symbol's price as written, by symbol. */
  const ticker = async (group: string[], signal: AbortSignal): Promise<Map<string, string>> => {
    const label = `GET /api/v3/ticker/price?symbols=${JSON.stringify(group)}`;
    const answer = await getJson({
      source: NAME,
      label,
      url: `${baseUrl}/api/v3/ticker/price?symbols=${encodeURIComponent(JSON.stringify(group))}`,
      signal,
      timeoutMs,
      schema: ANSWER,
      rateLimitStatuses: [418],
      explainStatus: explain,
      notListed: (status, body) => status === 400 && invalidSymbol(body),
    });
    const prices = new Map<string, string>();
    for (const { symbol, price } of answer) {
      if (prices.has(symbol)) throw new PriceSourceError(NAME, `${label} answered ${symbol} twice`);
      prices.set(symbol, positivePrice(NAME, `${symbol} price`, price));
    }
    return prices;
  };

  return {
    name: NAME,
    timeoutMs,
    covers: (base) => symbols.has(base),
    async fetch({ bases, signal, now, missing }) {
      const asked = knownBases(bases, symbols);
      if (asked.length === 0) return [];
      const list = [...new Set(asked.map((base) => symbols.get(base)!))];
      const { found, notListed } = await listed.read(list, (group) => ticker(group, signal));
      const at = now();
      return asked.flatMap((base) => {
        const symbol = symbols.get(base)!;
        const price = found.get(symbol);
        if (price !== undefined) return [{ base, quote: "USDT", price, at }];
        missing?.(base, notListed.includes(symbol) ? "pair not listed" : "no price in the answer");
        return [];
      });
    },
  };
}

/** Whether a 400 body is Binance's `{"code":-1121,"msg":"Invalid symbol."}`. */
function invalidSymbol(body: unknown): boolean {
  const parsed = ERROR_BODY.safeParse(body);
  return parsed.success && /invalid symbol/i.test(parsed.data.msg);
}

/** Binance's error body `{"code":-1121,"msg":"Invalid symbol."}`, as a message. */
function explain(_status: number, body: unknown): string | undefined {
  const parsed = ERROR_BODY.safeParse(body);
  if (!parsed.success) return undefined;
  return `${parsed.data.msg.slice(0, 120)} (code ${String(parsed.data.code)})`;
}
