/**
 * express-crypto-pay/bitcoin: live payments in Bitcoin-family coins (BTC, LTC) through a Bitcoin
 * Core compatible node's JSON-RPC, with deposit addresses from an account xpub. Configuring it:
 * docs/chains.md.
 */
export { bitcoinChain } from "./adapters/chain/bitcoin/index";
export type { BitcoinChain, BitcoinChainOptions } from "./adapters/chain/bitcoin/index";
