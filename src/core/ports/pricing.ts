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

/** What the router tells a pricing adapter when it takes it into use (`PricingAdapter.bind`). */
export interface PricingHost {
  /** Every asset the service may ask a price of: the currency list's coins and the fiat currencies. */
  assets: readonly string[];
  /** Where the adapter reports sources it leaves out and sources that fail. */
  logger: { warn(message: string, ...details: unknown[]): void; error(message: string, ...details: unknown[]): void };
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
  /** Stops background work (refresh timers); the router calls it from `close()`. Optional. */
  close?(): Promise<void>;
}
