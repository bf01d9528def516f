/**
 * express-crypto-pay/rates: live exchange rates. `exchangeRates()` combines several price
 * sources (the median of the fresh prices, agreed by a strict majority of the sources that
 * answered), and refuses to quote rather than quote from a stale, lone or outvoted source. See
 * docs/exchange-rates.md.
 */
export { exchangeRates } from "./adapters/pricing/exchange-rates";
export type { ExchangeRates, ExchangeRatesOptions } from "./adapters/pricing/exchange-rates";
export * from "./adapters/pricing/sources/index";
export { PriceUnavailableError } from "./core/ports/pricing";
export type { PricingAdapter, PricingHost, Rate, PriceRead, PriceReadOutcome, PricePairStatus, PriceSourceStatus } from "./core/ports/pricing";
export { staticPricing, DEFAULT_USD_PRICES } from "./adapters/pricing/static";
export type { StaticPricing, StaticPricingOptions } from "./adapters/pricing/static";
