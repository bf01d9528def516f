import { refuseUnknownOptions } from "../../options-error";
import { AmountFormatError, formatDecimal, mulDivDown, parseDecimal, pow10, RATE_DECIMALS } from "../../money";
import type { PriceSourceStatus, PricingAdapter, Rate } from "../../core/ports/pricing";

/**
 * USD prices the static table starts from: round numbers close to the 2026 market, so that
 * examples and tests read naturally. They are not live prices; use an HTTP feed in production.
 */
export const DEFAULT_USD_PRICES: Readonly<Record<string, string>> = Object.freeze({
  BTC: "60000",
  ETH: "3000",
  USDT: "1",
  USDC: "1",
  POL: "0.25",
  LTC: "80",
  TRX: "0.12",
  XMR: "160",
  USD: "1",
  EUR: "1.08",
  GBP: "1.27",
  CHF: "1.13",
  CAD: "0.73",
  AUD: "0.66",
  JPY: "0.0066",
});

/** Options of {@link staticPricing}. */
export interface StaticPricingOptions {
  /**
   * USD price of 1 unit of each symbol, as a positive decimal string with at most 18 decimal
   * places. Merged over {@link DEFAULT_USD_PRICES}: an entry here replaces the default of the
   * same symbol, the other defaults stay. Symbols are matched case-insensitively.
   */
  usdPrices?: Record<string, string>;
  /** The observation time reported with every rate; defaults to the current time. */
  at?: () => Date;
  /**
   * Lets live mode quote from this fixed table. Without it, a router with a live chain refuses
   * the table at start-up, so that no live invoice is ever priced from it by accident. Set it
   * only for prices you really mean to fix (a stablecoin shop pricing USDT at 1 USD).
   */
  allowLive?: boolean;
}

/** Marks the fixed table (see `StaticPricing`). */
export const STATIC_PRICING = Symbol.for("express-crypto-pay.static-pricing");

/** A pricing adapter backed by a fixed table that tests and the sandbox can change at run time. */
export interface StaticPricing extends PricingAdapter {
  /**
   * Marks a fixed table for the router, which refuses it in live mode unless `allowLive` is set.
   * @internal: the router's check, not something a user sets or reads (`staticPricing()` sets it).
   */
  readonly [STATIC_PRICING]: { allowLive: boolean };
  /**
   * Sets (or adds) the USD price of `symbol`. Throws when `usdPrice` is not a positive decimal
   * string with at most 18 decimal places; the table is left unchanged then.
   */
  setPrice(symbol: string, usdPrice: string): void;
  /** One source named "static", always counting: the table is read from memory and cannot fail. */
  sources(): PriceSourceStatus[];
}

/**
 * A pricing adapter that answers from a table of USD prices, for tests, the sandbox and hosts
 * that fix their own prices. `getRate(base, quote)` is usd(base) / usd(quote), computed exactly
 * at 18 decimals and rounded down. The table is validated here, so a bad entry fails at boot.
 *
 * - Same base and quote: "1", whatever the symbol (a unit is always worth itself).
 * - A symbol missing from the table: null.
 * - A ratio too small to show at 18 decimals: null rather than "0", because callers divide by
 *   the rate and a zero rate is never a usable price.
 */
export function staticPricing(options: StaticPricingOptions = {}): StaticPricing {
  refuseUnknownOptions("staticPricing", options, ["usdPrices", "at", "allowLive"]);
  const at = options.at ?? (() => new Date());
  // Prices are kept as bigints scaled by 10^RATE_DECIMALS so that getRate is pure bigint math.
  const prices = new Map<string, bigint>();
  const table = { ...DEFAULT_USD_PRICES, ...options.usdPrices };
  const seenInOptions = new Set<string>();
  for (const symbol of Object.keys(options.usdPrices ?? {})) {
    const key = normalizeSymbol(symbol, "usdPrices");
    // "btc" and "BTC" would silently shadow each other; make the host pick one.
    if (seenInOptions.has(key)) throw new Error(`staticPricing: usdPrices lists "${key}" twice (symbols are case-insensitive)`);
    seenInOptions.add(key);
  }
  for (const [symbol, price] of Object.entries(table)) {
    prices.set(normalizeSymbol(symbol, "usdPrices"), parsePrice(symbol, price, "usdPrices"));
  }

  return {
    [STATIC_PRICING]: { allowLive: options.allowLive === true },
    async getRate(base: string, quote: string): Promise<Rate | null> {
      const baseKey = base.toUpperCase();
      const quoteKey = quote.toUpperCase();
      if (baseKey === quoteKey) return { rate: "1", at: at(), sources: ["static"] };
      const baseUsd = prices.get(baseKey);
      const quoteUsd = prices.get(quoteKey);
      if (baseUsd === undefined || quoteUsd === undefined) return null;
      // Both prices carry the same 10^18 scale, which cancels; multiplying by 10^18 first
      // keeps 18 decimals of the quotient before the (downward) integer division.
      const rate = mulDivDown(baseUsd, pow10(RATE_DECIMALS), quoteUsd);
      if (rate === 0n) return null;
      return { rate: formatDecimal(rate, RATE_DECIMALS), at: at(), sources: ["static"] };
    },

    // One source, the table itself: always there, never failing.
    sources: () => [{ name: "static", lastGoodReadAt: at(), lastFailure: null, counts: true, leftOut: null }],

    setPrice(symbol: string, usdPrice: string): void {
      const key = normalizeSymbol(symbol, "setPrice");
      prices.set(key, parsePrice(symbol, usdPrice, "setPrice"));
    },
  };
}

function normalizeSymbol(symbol: string, where: string): string {
  if (typeof symbol !== "string" || !/^[A-Za-z0-9]{1,20}$/.test(symbol)) {
    throw new Error(`staticPricing: ${where} symbol "${String(symbol)}" must be 1-20 letters or digits`);
  }
  return symbol.toUpperCase();
}

function parsePrice(symbol: string, price: unknown, where: string): bigint {
  const problem = `staticPricing: ${where} price of "${symbol}" must be a positive decimal string with at most ${RATE_DECIMALS} decimal places (e.g. "60000.5"), got ${JSON.stringify(price) ?? String(price)}`;
  if (typeof price !== "string") throw new Error(problem);
  let units: bigint;
  try {
    units = parseDecimal(price, RATE_DECIMALS);
  } catch (error) {
    if (error instanceof AmountFormatError) throw new Error(problem, { cause: error });
    throw error;
  }
  if (units <= 0n) throw new Error(problem);
  return units;
}
