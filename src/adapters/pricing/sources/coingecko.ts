import { z } from "zod";
import { positivePrice } from "./decimal";
import { getJson, jsonNumber } from "./http";
import { checkBaseUrl, checkTimeout, knownBases, nameMatching, optionsRecord, symbolTable, type HttpSourceOptions } from "./options";
import { PriceSourceError, type PriceSource } from "./types";

/**
 * CoinGecko's simple price endpoint (https://docs.coingecko.com/reference/simple-price):
 * `GET /api/v3/simple/price?ids=bitcoin,ethereum&vs_currencies=usd&include_last_updated_at=true&precision=full`
 * -> `{"bitcoin":{"usd":67187.33,"last_updated_at":1711356300},...}`. Prices are JSON NUMBERS,
 * sometimes in exponent notation (1.2e-7): the body is parsed with lossless-json and each
 * number is taken from the text CoinGecko wrote. `last_updated_at` (unix seconds) is the time.
 */

/** Options of `coingecko()`. */
export interface CoinGeckoOptions extends HttpSourceOptions {
  /**
   * A CoinGecko API key, sent in a header (`x-cg-demo-api-key`, or `x-cg-pro-api-key` with
   * `pro`), never in the URL, and never shown in an error. Optional on the public (demo) API.
   */
  apiKey?: string;
  /** A paid plan's key: sent as `x-cg-pro-api-key`, default baseUrl the pro API. Needs `apiKey`. */
  pro?: boolean;
  /** Default "https://api.coingecko.com", or "https://pro-api.coingecko.com" with `pro`. */
  baseUrl?: string;
  /** Our symbol -> a CoinGecko coin id ("DOGE" -> "dogecoin"), on top of `COINGECKO_IDS`; null removes one. */
  symbols?: Record<string, string | null>;
}

/** CoinGecko's coin ids (its /coins/list) for our crypto assets. CoinGecko has no fiat prices in USD here. */
export const COINGECKO_IDS: Readonly<Record<string, string>> = Object.freeze({
  BTC: "bitcoin",
  ETH: "ethereum",
  USDT: "tether",
  USDC: "usd-coin",
  LTC: "litecoin",
  TRX: "tron",
  BNB: "binancecoin",
  POL: "polygon-ecosystem-token",
  XMR: "monero",
});

// An entry without a usd price is CoinGecko knowing the id but having no price for it now.
const ANSWER = z.record(z.string(), z.object({ usd: jsonNumber.optional(), last_updated_at: jsonNumber.optional() }));

const NAME = "coingecko";
// Ids go into the query unescaped, comma-separated.
const COIN_ID = nameMatching(/^[a-z0-9][a-z0-9._-]{0,99}$/, 'a CoinGecko coin id such as "dogecoin"');

/**
 * A price source reading CoinGecko's simple price endpoint, in USD, each price stamped with
 * CoinGecko's own `last_updated_at`. An id CoinGecko leaves out of its answer (its way of saying
 * it does not know the id), or answers without a usd price or time, is left out and reported as
 * "pair not listed" while the other prices count; a malformed entry fails the whole fetch.
 */
export function coingecko(options?: CoinGeckoOptions): PriceSource {
  const record = optionsRecord(NAME, options, ["apiKey", "pro", "baseUrl", "timeoutMs", "symbols"]);
  const apiKey = record.apiKey;
  if (apiKey !== undefined && (typeof apiKey !== "string" || !/^[\x21-\x7e]{1,200}$/.test(apiKey))) {
    // The value is not shown: it is a secret.
    throw new TypeError(`${NAME}: apiKey must be a non-empty string of printable characters without spaces`);
  }
  if (record.pro !== undefined && typeof record.pro !== "boolean") throw new TypeError(`${NAME}: pro must be true or false`);
  const pro = record.pro === true;
  if (pro && apiKey === undefined) throw new TypeError(`${NAME}: pro: true needs an apiKey (the pro API refuses requests without one)`);
  const baseUrl = checkBaseUrl(NAME, record.baseUrl, pro ? "https://pro-api.coingecko.com" : "https://api.coingecko.com");
  const timeoutMs = checkTimeout(NAME, record.timeoutMs);
  const ids = symbolTable(NAME, "symbols", record.symbols, COINGECKO_IDS, COIN_ID);
  const headers: Record<string, string> = apiKey === undefined ? {} : { [pro ? "x-cg-pro-api-key" : "x-cg-demo-api-key"]: apiKey };
  const secrets = apiKey === undefined ? [] : [apiKey];

  return {
    name: NAME,
    timeoutMs,
    covers: (base) => ids.has(base),
    async fetch({ bases, signal, missing }) {
      const asked = knownBases(bases, ids);
      if (asked.length === 0) return [];
      const query = `ids=${[...new Set(asked.map((base) => ids.get(base)!))].join(",")}&vs_currencies=usd&include_last_updated_at=true&precision=full`;
      const label = `GET /api/v3/simple/price?${query}`;
      const answer = await getJson({
        source: NAME,
        label,
        url: `${baseUrl}/api/v3/simple/price?${query}`,
        signal,
        timeoutMs,
        schema: ANSWER,
        headers,
        secrets,
      });
      // Every entry is checked, asked for or not: one malformed entry means the answer is not trusted.
      const entries = new Map<string, { price: string; at: Date }>();
      for (const [id, { usd, last_updated_at: updated }] of Object.entries(answer)) {
        if (usd === undefined || updated === undefined) continue;
        entries.set(id, { price: positivePrice(NAME, `${id} usd price`, usd.value), at: unixSeconds(label, id, updated.value) });
      }
      return asked.flatMap((base) => {
        const entry = entries.get(ids.get(base)!);
        if (entry) return [{ base, quote: "USD", price: entry.price, at: entry.at }];
        missing?.(base, "pair not listed");
        return [];
      });
    },
  };
}

function unixSeconds(label: string, id: string, text: string): Date {
  // Whole seconds after 1970, at most 12 digits: a time a Date holds exactly.
  if (!/^[1-9]\d{0,11}$/.test(text))
    throw new PriceSourceError(NAME, `${label} answered ${id}.last_updated_at ${JSON.stringify(text.slice(0, 40))}, not a unix time in seconds`);
  return new Date(Number(text) * 1000);
}
