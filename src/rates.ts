/**
 * express-crypto-pay/rates: live exchange rates. `exchangeRates()` combines several price
 * sources (the median of the fresh ones that agree), and refuses to quote rather than quote from
 * a stale or lone source. See the README, "Exchange rates".
 */
export { exchangeRates } from "./adapters/pricing/exchange-rates";
export type { ExchangeRates, ExchangeRatesOptions } from "./adapters/pricing/exchange-rates";
export * from "./adapters/pricing/sources/index";
export { PriceUnavailableError } from "./adapters/pricing/types";
export type { PricingAdapter, PricingHost, Rate } from "./adapters/pricing/types";
