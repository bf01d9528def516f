/**
 * Live price sources, one per provider: each a factory with one options object, validated at
 * creation, returning a `PriceSource` that `exchangeRates()` combines with others.
 */
export { binance, BINANCE_SYMBOLS, type BinanceOptions } from "./binance";
export { chainlink, type ChainlinkOptions } from "./chainlink";
/** @internal (see chainlink.ts). A statement of its own: stripInternal drops statements, not names of a list. */
export { aggregatorV3Abi } from "./chainlink";
export { coinbase, COINBASE_FIAT_CODES, COINBASE_SPOT_CODES, type CoinbaseOptions } from "./coinbase";
export { coingecko, COINGECKO_IDS, type CoinGeckoOptions } from "./coingecko";
export { kraken, KRAKEN_PAIRS, type KrakenOptions, type KrakenPair } from "./kraken";
export type { HttpSourceOptions } from "./options";
export { PriceSourceError, type PriceSource, type SourcePrice, type SourceRequest } from "./types";
