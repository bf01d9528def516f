/**
 * express-crypto-pay/chains: the chain adapter author's kit. `ChainAdapter` and what it reports
 * (deposits, payouts, sync status, holdings), the host it is bound to, the sandbox chain behind
 * test mode, and the address rules of every family. The live adapters are in `/evm`, `/bitcoin`
 * and `/monero`; `runChainAdapterTests` (express-crypto-pay/testing) checks an adapter. `sandboxChain` and `ChainMismatchError` are in the main entry only (the
 * CommonJS build gives each entry its own copy of the code; one copy keeps `instanceof` true).
 */
export type {
  ChainAdapter,
  ChainDeposit,
  DepositFeedPage,
  ChainPayoutStatus,
  ChainHost,
  ChainStateStore,
  ChainStateView,
  IssuedAddress,
  UnlistedTransfer,
  AddressUse,
  ChainSyncStatus,
  HotWalletBalance,
  ChainHoldings,
  CoinHoldings,
} from "./core/ports/chain";
export type { SandboxChain, SandboxChainOptions } from "./adapters/chain/sandbox";
export { isValidAddress, isValidAddressOfFamily, addressFamily, DEFAULT_ADDRESS_FAMILIES, ANY_CHAIN } from "./adapters/chain/address-rules";
export type { AddressFamily, AddressRuleOptions, ChainKind } from "./adapters/chain/address-rules";
export { DEFAULT_CURRENCIES, DEFAULT_FIAT } from "./currencies";
export type { CurrencyConfig, NetworkConfig } from "./currencies";
export type { NodeError } from "./errors";
