/** A price quote: how many units of `quote` one unit of `base` is worth. */
export interface Rate {
  /** Plain decimal string, e.g. "60000.5". */
  rate: string;
  /** When the source observed this price. */
  at: Date;
}

/** Where exchange rates come from (fiat and crypto alike). */
export interface PricingAdapter {
  /**
   * The price of 1 `base` in `quote` (e.g. base "BTC", quote "USD" gives "60000"). Returns null
   * when the adapter knows no price for the pair; throws when its source cannot be reached.
   */
  getRate(base: string, quote: string): Promise<Rate | null>;
}
