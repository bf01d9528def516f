/**
 * A live price source: one provider's public API (Coinbase, Kraken, Binance, CoinGecko) or an
 * on-chain feed (Chainlink), read by `exchangeRates()`, which combines several of them.
 */

/** One price a source observed. */
export interface SourcePrice {
  /** The priced asset, in our symbols ("BTC", never Kraken's "XBT"). */
  base: string;
  /** What it is priced in ("USD"; Binance's are "USDT"). */
  quote: string;
  /** A positive plain decimal string exactly as the provider wrote it: never through a float. */
  price: string;
  /** When the provider observed it; the fetch time when the provider gives none. */
  at: Date;
}

/** What a source is asked for in one refresh. */
export interface SourceRequest {
  /** Assets to price ("BTC", "ETH", "USDT", "EUR", ...): a source answers those it knows and leaves out the rest. */
  bases: readonly string[];
  /** Aborted when the source's time is up. */
  signal: AbortSignal;
  /** The clock, for sources whose answers carry no time. */
  now: () => Date;
  /**
   * Tells the caller that a base this source prices could not be priced in this read, and why
   * ("pair not listed": the provider does not list the pair now, or answered without it). The
   * other bases of the read still count. Optional for the caller; a source calls it when given.
   */
  missing?(base: string, reason: string): void;
}

/** A price source. */
export interface PriceSource {
  /** A short name for logs and for the sources recorded with a rate ("coinbase", "kraken", ...). */
  readonly name: string;
  /** How long one `fetch` may take before it counts as failed, in ms. */
  readonly timeoutMs: number;
  /**
   * Prices of the `bases` this source knows, each in the quote it uses (USD for most; USDT for
   * Binance). Throws a `PriceSourceError` naming the reason (HTTP status, a 429, a response that
   * is not the documented shape, a timeout) when the answer cannot be used; an entry it does not
   * know is simply left out, and one it knows but cannot price in this read is left out and
   * reported through `request.missing`.
   */
  fetch(request: SourceRequest): Promise<SourcePrice[]>;
  /**
   * Whether this source has `base` in its table (it is asked for it, whether the provider lists
   * it now or not): the health check lists the source under those assets only. Optional: without
   * it, a source is listed under the assets it answered or reported missing, and under every
   * asset before its first answer.
   */
  covers?(base: string): boolean;
}

/** Why a source's answer was not used; its message is what the log shows. */
export class PriceSourceError extends Error {
  constructor(
    readonly source: string,
    message: string,
  ) {
    super(`${source}: ${message}`);
    this.name = "PriceSourceError";
  }
}
