/**
 * express-crypto-pay/monero: live payments in Monero (XMR) through `monerod` and
 * `monero-wallet-rpc`: a view-only wallet made from the merchant's address and private view key
 * sees the deposits (one subaddress per invoice), a full wallet in a second wallet RPC pays
 * payouts. Configuring it: docs/chains.md.
 */
export { moneroChain } from "./adapters/chain/monero/index";
export type { MoneroChain, MoneroChainOptions } from "./adapters/chain/monero/index";
