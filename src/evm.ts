/**
 * express-crypto-pay/evm: live payments on Ethereum-family networks (Ethereum, BNB Smart Chain,
 * and any EVM network of the currency list), through a JSON-RPC node. Configuring it, the hot
 * wallet, deposit addresses, consolidation and payouts: docs/chains.md.
 */
export { evmChain } from "./adapters/chain/evm/index";
export type { EvmChain, EvmChainOptions } from "./adapters/chain/evm/index";
