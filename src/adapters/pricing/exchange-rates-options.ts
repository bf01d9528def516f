import { z } from "zod";
import type { PriceSource } from "./sources/types";
import type { PriceSourceStatus, PricingAdapter } from "../../core/ports/pricing";

/** The options of `exchangeRates()` and the adapter it returns, with the schema the options are checked against at creation. */

/** Options of `exchangeRates()`. */
export interface ExchangeRatesOptions {
  /** Where prices come from: `coinbase()`, `kraken()`, `binance()`, `coingecko()`, `chainlink()` or your own `PriceSource`s. */
  sources: PriceSource[];
  /** A price older than this is not used. Default 120. */
  maxAgeSeconds?: number;
  /**
   * Fewer fresh sources that agree than this: no quote (503). Default 2 (1 when only one source
   * is given). A quote needs, besides, a strict majority of the sources that answered.
   */
  minSources?: number;
  /** A source further than this from the median does not agree: it is left out, and logged. Default 2. */
  maxDeviationPercent?: number;
  /**
   * How often each source is read, in the background, each on its own schedule: the next read of
   * a source starts this long after its last one ended. Default 30. Quoting never waits for it
   * (but for the very first quote of a pair, which waits until enough sources answered for it).
   * A pair a provider lists again counts from the source's next read.
   */
  refreshSeconds?: number;
  /**
   * Stablecoins and the band around 1 USD (in percent) beyond which they are not quoted and a
   * warning is logged: a depeg. A USDT off its peg converts no USDT-quoted price (Binance's) either.
   * Default `{ USDT: 2, USDC: 2 }`; false turns the guard off.
   */
  stablecoins?: Record<string, number> | false;
  /**
   * Assets to keep prices of. Default: the coins the router's chains (and its sandbox) serve and
   * its fiat currencies (it tells the adapter when it is mounted), or the default lists when used
   * on its own.
   */
  assets?: string[];
  /** The clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

/** The adapter `exchangeRates()` returns. */
export interface ExchangeRates extends PricingAdapter {
  /** Reads every source now and waits for them (start-up, tests); the background schedules do this on their own. */
  refresh(): Promise<void>;
  /** Stops the background reads, abandoning those under way. */
  close(): Promise<void>;
  /** Where each source stands (last good read, last failure, whether it counts now), from memory: never a call to a source. */
  sources(): PriceSourceStatus[];
}

/** What `exchangeRates()` checks its options against, once, at creation. */
export const optionsSchema = z.strictObject({
  sources: z
    .array(
      z.looseObject({
        name: z.string().min(1),
        timeoutMs: z.number().positive(),
        fetch: z.custom<PriceSource["fetch"]>((value) => typeof value === "function", { error: "must have a fetch() method" }),
      }),
    )
    .min(1, { error: "needs at least one source, such as coinbase()" }),
  maxAgeSeconds: z.number().positive().max(86_400).optional(),
  minSources: z.int().min(1).optional(),
  maxDeviationPercent: z.number().positive().max(100).optional(),
  refreshSeconds: z.number().min(1).max(3_600).optional(),
  stablecoins: z.union([z.literal(false), z.record(z.string().regex(/^[A-Z0-9]{2,10}$/), z.number().positive().max(50))]).optional(),
  assets: z.array(z.string().regex(/^[A-Z0-9]{2,10}$/)).optional(),
  now: z.custom<() => number>((value) => typeof value === "function").optional(),
});
