import { z } from "zod";
import { invertedPrice, positivePrice } from "./decimal";
import { getJson, requestGroup } from "./http";
import { PairNotListedError } from "./listed-pairs";
import { checkBaseUrl, checkTimeout, knownBases, nameMatching, optionsRecord, symbolTable, type HttpSourceOptions } from "./options";
import { PriceSourceError, type PriceSource, type SourcePrice } from "./types";

/**
 * Coinbase's public prices API (https://docs.cdp.coinbase.com/coinbase-app/track-apis/prices),
 * no key needed:
 * - crypto: `GET /v2/prices/{BASE}-USD/spot` -> `{"data":{"base":"BTC","currency":"USD","amount":"67187.33"}}`,
 *   one request per asset, sent in parallel;
 * - fiat: `GET /v2/exchange-rates?currency=USD` -> `{"data":{"currency":"USD","rates":{"EUR":"0.92",...}}}`,
 *   one request for all, each rate being units of the currency per 1 USD.
 * Neither answer carries a time: prices are stamped with `now()`.
 */

/** Options of `coinbase()`. */
export interface CoinbaseOptions extends HttpSourceOptions {
  /** Default "https://api.coinbase.com". */
  baseUrl?: string;
  /**
   * Crypto assets priced through `/v2/prices/{code}-USD/spot`: our symbol -> Coinbase's
   * currency code, on top of `COINBASE_SPOT_CODES`; null removes one.
   */
  symbols?: Record<string, string | null>;
  /**
   * Fiat currencies priced through `/v2/exchange-rates?currency=USD`: our symbol -> Coinbase's
   * currency code, on top of `COINBASE_FIAT_CODES`; null removes one.
   */
  fiat?: Record<string, string | null>;
}

/**
 * Crypto assets Coinbase trades against USD. TRX, BNB and XMR are left out: Coinbase does not
 * list them (a pair it stops listing answers 404, and is left out of that read alone).
 */
export const COINBASE_SPOT_CODES: Readonly<Record<string, string>> = Object.freeze({
  BTC: "BTC",
  ETH: "ETH",
  USDT: "USDT",
  USDC: "USDC",
  LTC: "LTC",
  POL: "POL",
});

/** Fiat currencies read from Coinbase's USD exchange rates. */
export const COINBASE_FIAT_CODES: Readonly<Record<string, string>> = Object.freeze({ EUR: "EUR", GBP: "GBP", CHF: "CHF", CAD: "CAD", AUD: "AUD", JPY: "JPY" });

const SPOT_ANSWER = z.object({ data: z.object({ base: z.string(), currency: z.string(), amount: z.string() }) });
// Coinbase's error body: {"errors":[{"id":"not_found","message":"Invalid currency"}]}.
const NOT_FOUND = z.object({ errors: z.array(z.object({ id: z.literal("not_found") })).min(1) });
const RATES_ANSWER = z.object({ data: z.object({ currency: z.string(), rates: z.record(z.string(), z.string()) }) });

const NAME = "coinbase";
// A currency code goes into a URL path: letters and digits only.
const CODE = nameMatching(/^[A-Za-z0-9]{2,15}$/, 'a Coinbase currency code such as "BTC"');

/**
 * A price source reading Coinbase's public prices API.
 *
 * Crypto prices are Coinbase's spot price in USD, as written. Fiat prices are the inverse of
 * Coinbase's USD exchange rate: 1 EUR in USD = 1 / rate, computed exactly with bigints and
 * rounded DOWN at 18 decimal places ("0.92" -> "1.086956521739130434"). A spot pair Coinbase
 * answers 404 for (in its `errors` format: it does not list the pair) and a fiat currency missing
 * from the exchange rates are left out, reported as "pair not listed", while the other prices of
 * the read count; every other fault fails the whole fetch.
 */
export function coinbase(options?: CoinbaseOptions): PriceSource {
  const record = optionsRecord(NAME, options, ["baseUrl", "timeoutMs", "symbols", "fiat"]);
  const baseUrl = checkBaseUrl(NAME, record.baseUrl, "https://api.coinbase.com");
  const timeoutMs = checkTimeout(NAME, record.timeoutMs);
  const spot = symbolTable(NAME, "symbols", record.symbols, COINBASE_SPOT_CODES, CODE);
  const fiat = symbolTable(NAME, "fiat", record.fiat, COINBASE_FIAT_CODES, CODE);
  // The built-in tables do not overlap: a symbol in both was added to one of them by the user,
  // and that choice wins over the other table's default.
  for (const symbol of [...spot.keys()]) {
    if (!fiat.has(symbol)) continue;
    const inSymbols = given(record.symbols, symbol);
    const inFiat = given(record.fiat, symbol);
    if (inSymbols && inFiat) throw new TypeError(`${NAME}: ${symbol} is in both symbols and fiat: give it in one of them`);
    if (inFiat) spot.delete(symbol);
    else fiat.delete(symbol);
  }

  return {
    name: NAME,
    timeoutMs,
    covers: (base) => spot.has(base) || fiat.has(base),
    async fetch({ bases, signal, now, missing }) {
      const spotBases = knownBases(bases, spot);
      const fiatBases = knownBases(bases, fiat);
      if (spotBases.length === 0 && fiatBases.length === 0) return [];
      const group = requestGroup(signal);

      const spotPrice = async (base: string) => {
        const code = spot.get(base)!;
        const label = `GET /v2/prices/${code}-USD/spot`;
        const answer = await getJson({
          source: NAME,
          label,
          url: `${baseUrl}/v2/prices/${code}-USD/spot`,
          signal: group.signal,
          timeoutMs,
          schema: SPOT_ANSWER,
          notListed: (status, body) => status === 404 && NOT_FOUND.safeParse(body).success,
        });
        const { data } = answer;
        if (data.base.toUpperCase() !== code.toUpperCase() || data.currency !== "USD") {
          throw new PriceSourceError(NAME, `${label} answered for ${data.base}-${data.currency}`);
        }
        return { base, price: positivePrice(NAME, `${base} price`, data.amount) };
      };

      const fiatPrices = async () => {
        const label = "GET /v2/exchange-rates?currency=USD";
        const answer = await getJson({
          source: NAME,
          label,
          url: `${baseUrl}/v2/exchange-rates?currency=USD`,
          signal: group.signal,
          timeoutMs,
          schema: RATES_ANSWER,
        });
        if (answer.data.currency !== "USD") throw new PriceSourceError(NAME, `${label} answered rates for ${answer.data.currency}`);
        const found: { base: string; price: string }[] = [];
        for (const base of fiatBases) {
          const rate = answer.data.rates[fiat.get(base)!];
          if (rate === undefined) {
            missing?.(base, "pair not listed");
            continue;
          }
          const perUsd = positivePrice(NAME, `${base} rate`, rate);
          found.push({ base, price: invertedPrice(NAME, `${base} rate`, perUsd) });
        }
        return found;
      };

      let found: { base: string; price: string }[];
      try {
        // A spot pair Coinbase does not list is left out; it fails nothing else.
        const spotOrMissing = (base: string) =>
          spotPrice(base).then(
            (price) => [price],
            (error) => {
              if (!(error instanceof PairNotListedError)) throw error;
              missing?.(base, "pair not listed");
              return [];
            },
          );
        const answers = await Promise.all([...spotBases.map(spotOrMissing), fiatBases.length ? fiatPrices() : Promise.resolve([])]);
        found = answers.flat();
      } catch (error) {
        group.abort();
        throw error;
      }
      const at = now();
      return found.map(({ base, price }): SourcePrice => ({ base, quote: "USD", price, at }));
    },
  };
}

function given(table: unknown, symbol: string): boolean {
  return typeof table === "object" && table !== null && Object.hasOwn(table, symbol);
}
