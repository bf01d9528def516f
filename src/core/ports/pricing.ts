/** A price quote: how many units of `quote` one unit of `base` is worth. */
export interface Rate {
  /** Plain decimal string, e.g. "60000.5". */
  rate: string;
  /** When the price was observed (for a rate combined from several sources, the oldest of them). */
  at: Date;
  /** Where the price came from ("coinbase", "kraken", ...; "static" for a fixed table). Optional for third-party adapters. */
  sources?: string[];
}

/**
 * A price that cannot be quoted right now, and why (too few fresh sources, a stablecoin off its
 * peg, sources down). `getRate` throws it; the service answers 503 with its message, which names
 * the pair and the reason and never a source's credentials.
 */
export class PriceUnavailableError extends Error {
  constructor(
    readonly base: string,
    readonly quote: string,
    readonly reason: string,
  ) {
    super(`No price for ${base}/${quote} right now: ${reason}`);
    this.name = "PriceUnavailableError";
  }
}

/**
 * How one read of a price source ended: "ok" (fresh prices), "stale" (it answered, but every
 * price was older than the adapter's age limit) or "error" (it failed, timed out or answered
 * something unusable).
 */
export type PriceReadOutcome = "ok" | "stale" | "error";

/** One read of one price source, as the adapter reports it to the router (for metrics). */
export interface PriceRead {
  /** The source's name, one of those configured ("coinbase", "kraken", ...). */
  source: string;
  /** How it ended. */
  outcome: PriceReadOutcome;
  /** How long the read took, in seconds. */
  seconds: number;
}

/**
 * Where one source stands for one asset's price in USD (the pair every other rate is made from),
 * from the adapter's memory: whether that price is made with it now, and why not.
 */
export interface PricePairStatus {
  /** The asset priced ("XMR" for XMR/USD). */
  base: string;
  /** What it is priced in: "USD". */
  quote: string;
  /** Whether the asset's price is made with this source now. */
  counts: boolean;
  /**
   * Why it does not count now, or null when it counts: "pair not listed", "stale 40 s", "its
   * reads fail", "3.1% from the median", "USDT/USD has no price", "not read yet", or "fresh, too
   * few sources for a price" (this source is fine; the asset has no price).
   */
  leftOut: string | null;
}

/**
 * Where one price source stands, from what the adapter's own reads saw (asking it never calls
 * the source). What `payments.health()` lists per source.
 */
export interface PriceSourceStatus {
  /** The source's name. */
  name: string;
  /** When its last read with fresh prices ended, or null when none had. */
  lastGoodReadAt: Date | null;
  /** Its last failed read: when, and why (scrubbed of URLs and keys); null when none failed. It stays after the source recovers. */
  lastFailure: { at: Date; message: string } | null;
  /** Whether its prices are used now: fresh, and agreeing with the others for at least one asset. */
  counts: boolean;
  /** What the combine rules leave out of it now (why it does not count, or the assets it is an outlier for), or null. */
  leftOut: string | null;
  /**
   * Each asset this source prices, and whether that price counts now (see {@link PricePairStatus}).
   * Optional for third-party adapters: the health check then lists no sources per coin.
   */
  pairs?: PricePairStatus[];
}

/** What the router tells a pricing adapter when it takes it into use (`PricingAdapter.bind`). */
export interface PricingHost {
  /** Every asset the service may ask a price of: the coins a chain serves (the sandbox included) and the fiat currencies. */
  assets: readonly string[];
  /** Where the adapter reports sources it leaves out and sources that fail. */
  logger: { warn(message: string, ...details: unknown[]): void; error(message: string, ...details: unknown[]): void };
  /** Called after each read of a source ends (the router counts them in its metrics). Cheap; never throws. Optional. */
  priceRead?(read: PriceRead): void;
}

/** Where exchange rates come from (fiat and crypto alike). */
export interface PricingAdapter {
  /**
   * The price of 1 `base` in `quote` (e.g. base "BTC", quote "USD" gives "60000"). Returns null
   * when the adapter knows no price for the pair; throws (a `PriceUnavailableError` where it can
   * say why) when no usable price can be had right now.
   */
  getRate(base: string, quote: string): Promise<Rate | null>;
  /** Called once by the router before use with the assets it prices and its logger. Optional. */
  bind?(host: PricingHost): void;
  /**
   * Where each price source stands, from memory (no call to a source): for the health check and
   * metrics. Optional: an adapter without it shows no sources in health.
   */
  sources?(): PriceSourceStatus[];
  /** Stops background work (refresh timers); the router calls it from `close()`. Optional. */
  close?(): Promise<void>;
}
