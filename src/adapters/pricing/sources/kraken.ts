import { z } from "zod";
import { invertedPrice, positivePrice } from "./decimal";
import { checkShape, getJson } from "./http";
import { ListedPairs, PairNotListedError } from "./listed-pairs";
import { checkBaseUrl, checkTimeout, knownBases, optionsRecord, symbolTable, type HttpSourceOptions } from "./options";
import { PriceSourceError, type PriceSource } from "./types";

/**
 * Kraken's public ticker (https://docs.kraken.com/api/docs/rest-api/get-ticker-information),
 * no key needed: `GET /0/public/Ticker?pair=XBTUSD,ETHUSD,...`, one request for every asset ->
 * `{"error":[],"result":{"XXBTZUSD":{"c":["67187.30000","0.00100000"],...},...}}`, where `c` is
 * the last trade [price, lot volume]. The answer carries no time: prices are stamped `now()`.
 */

/** How one of our symbols is read from Kraken's ticker. */
export interface KrakenPair {
  /** The pair name sent in `?pair=` (Kraken's altname, e.g. "XBTUSD"). */
  pair: string;
  /**
   * The keys Kraken may answer it under, first found wins. Kraken answers its legacy pairs under
   * their full name ("XBTUSD" -> "XXBTZUSD"), newer ones under the altname. Default: [pair].
   */
  keys?: readonly string[];
  /**
   * True when the pair is USD-based (USDJPY: JPY per 1 USD): the price of 1 of our symbol in USD
   * is then 1 / last, rounded down at 18 decimals. Default false (last is already in USD).
   */
  inverse?: boolean;
}

/** Options of `kraken()`. */
export interface KrakenOptions extends Omit<HttpSourceOptions, "symbols"> {
  /** Default "https://api.kraken.com". */
  baseUrl?: string;
  /**
   * Our symbol -> a Kraken pair against USD, on top of `KRAKEN_PAIRS`: a pair name ("BNBUSD",
   * answered under the same key, priced in USD) or a `KrakenPair`; null removes one.
   */
  symbols?: Record<string, string | KrakenPair | null>;
}

/**
 * The pairs asked of Kraken. We send the altnames of Kraken's AssetPairs list (what its own
 * examples use, "XBTUSD") and accept the answer under the pair's full name too, since Kraken
 * answers its older pairs under names with X/Z asset prefixes ("XXBTZUSD", "ZEURZUSD") and its
 * newer ones under the altname ("USDCUSD", "TRXUSD"). Kraken has no CHF/USD, CAD/USD or
 * JPY/USD markets, only the USD-based USDCHF, USDCAD and USDJPY: those are inverted. BNB and
 * POL are left out, as Kraken does not list them against USD. A pair Kraken stops listing is
 * left out of that read alone (see `kraken()`), so the table does not have to be exact.
 */
export const KRAKEN_PAIRS: Readonly<Record<string, Readonly<Required<KrakenPair>>>> = Object.freeze({
  BTC: { pair: "XBTUSD", keys: ["XXBTZUSD", "XBTUSD"], inverse: false },
  ETH: { pair: "ETHUSD", keys: ["XETHZUSD", "ETHUSD"], inverse: false },
  USDT: { pair: "USDTUSD", keys: ["USDTZUSD", "USDTUSD"], inverse: false },
  USDC: { pair: "USDCUSD", keys: ["USDCUSD"], inverse: false },
  LTC: { pair: "LTCUSD", keys: ["XLTCZUSD", "LTCUSD"], inverse: false },
  TRX: { pair: "TRXUSD", keys: ["TRXUSD"], inverse: false },
  XMR: { pair: "XMRUSD", keys: ["XXMRZUSD", "XMRUSD"], inverse: false },
  EUR: { pair: "EURUSD", keys: ["ZEURZUSD", "EURUSD"], inverse: false },
  GBP: { pair: "GBPUSD", keys: ["ZGBPZUSD", "GBPUSD"], inverse: false },
  CHF: { pair: "USDCHF", keys: ["USDCHF", "ZUSDZCHF"], inverse: true },
  CAD: { pair: "USDCAD", keys: ["ZUSDZCAD", "USDCAD"], inverse: true },
  AUD: { pair: "AUDUSD", keys: ["AUDUSD", "ZAUDZUSD"], inverse: false },
  JPY: { pair: "USDJPY", keys: ["ZUSDZJPY", "USDJPY"], inverse: true },
});

const ANSWER = z.object({ error: z.array(z.string()), result: z.unknown().optional() });
// Only `c` is read; the other fields (a, b, v, p, t, l, h, o) are Kraken's business.
const TICKERS = z.record(z.string(), z.object({ c: z.tuple([z.string(), z.string()]) }));

const NAME = "kraken";
// Pair names go into the query unescaped, comma-separated.
const PAIR_NAME = /^[A-Za-z0-9.]{3,24}$/;

/**
 * A price source reading Kraken's public ticker: the last trade price of each pair, in USD.
 * Kraken refuses a whole request that names one pair it does not list ("EQuery:Unknown asset
 * pair"): the source then asks again in halves to find which, leaves those pairs out (reported
 * as "pair not listed") and asks for each of them alone on later reads, so that a pair Kraken
 * lists again counts from the next read on. A pair missing from the answer is left out the same
 * way ("no price in the answer"); any other error, or a malformed price, fails the whole fetch.
 */
export function kraken(options?: KrakenOptions): PriceSource {
  const record = optionsRecord(NAME, options, ["baseUrl", "timeoutMs", "symbols"]);
  const baseUrl = checkBaseUrl(NAME, record.baseUrl, "https://api.kraken.com");
  const timeoutMs = checkTimeout(NAME, record.timeoutMs);
  const pairs = symbolTable<Readonly<Required<KrakenPair>>>(NAME, "symbols", record.symbols, KRAKEN_PAIRS, checkPair);
  const listed = new ListedPairs();
  const byName = new Map([...pairs.values()].map((pair) => [pair.pair, pair]));

  /** One Ticker request: each asked pair's last trade price as written, by pair name. */
  const ticker = async (group: string[], signal: AbortSignal): Promise<Map<string, { key: string; last: string }>> => {
    const names = group.join(",");
    const label = `GET /0/public/Ticker?pair=${names}`;
    const answer = await getJson({ source: NAME, label, url: `${baseUrl}/0/public/Ticker?pair=${names}`, signal, timeoutMs, schema: ANSWER });
    if (answer.error.length > 0) {
      const said = answer.error.map((text) => text.slice(0, 120)).join("; ");
      if (answer.error.some((text) => /^EQuery:Unknown asset pair/i.test(text))) throw new PairNotListedError(NAME, `${label} answered an error: ${said}`);
      const limited = /too many requests|rate limit/i.test(said);
      throw new PriceSourceError(NAME, `${label} ${limited ? "was rate limited" : "answered an error"}: ${said}`);
    }
    if (answer.result === undefined) throw new PriceSourceError(NAME, `${label} answered neither an error nor a result`);
    const tickers = checkShape(NAME, label, TICKERS, answer.result);
    const found = new Map<string, { key: string; last: string }>();
    for (const name of group) {
      const { keys } = byName.get(name)!;
      const key = keys.find((candidate) => Object.hasOwn(tickers, candidate));
      if (key !== undefined) found.set(name, { key, last: positivePrice(NAME, `${key} last trade price`, tickers[key]!.c[0]) });
    }
    return found;
  };

  return {
    name: NAME,
    timeoutMs,
    covers: (base) => pairs.has(base),
    async fetch({ bases, signal, now, missing }) {
      const asked = knownBases(bases, pairs);
      if (asked.length === 0) return [];
      const names = [...new Set(asked.map((base) => pairs.get(base)!.pair))];
      const { found, notListed } = await listed.read(names, (group) => ticker(group, signal));
      const at = now();
      return asked.flatMap((base) => {
        const { pair, inverse } = pairs.get(base)!;
        const answer = found.get(pair);
        if (!answer) {
          missing?.(base, notListed.includes(pair) ? "pair not listed" : "no price in the answer");
          return [];
        }
        const price = inverse ? invertedPrice(NAME, `${answer.key} last trade price`, answer.last) : answer.last;
        return [{ base, quote: "USD", price, at }];
      });
    },
  };
}

function checkPair(value: unknown): Readonly<Required<KrakenPair>> {
  if (typeof value === "string") value = { pair: value };
  if (typeof value !== "object" || value === null) throw new Error('must be a Kraken pair name such as "BNBUSD" or { pair, keys?, inverse? }');
  const { pair, keys, inverse, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw new Error(`unknown field "${Object.keys(rest)[0]}" (known: pair, keys, inverse)`);
  if (typeof pair !== "string" || !PAIR_NAME.test(pair)) throw new Error(`pair must be a Kraken pair name such as "BNBUSD", got ${JSON.stringify(pair)}`);
  if (keys !== undefined && (!Array.isArray(keys) || keys.length === 0 || !keys.every((key) => typeof key === "string" && PAIR_NAME.test(key)))) {
    throw new Error("keys must be a non-empty list of Kraken pair names");
  }
  if (inverse !== undefined && typeof inverse !== "boolean") throw new Error("inverse must be true or false");
  return { pair, keys: (keys as string[] | undefined) ?? [pair], inverse: inverse ?? false };
}
