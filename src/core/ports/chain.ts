import type { UnlistedTransferRecord } from "../deposits/records";
import { NodeError } from "../../errors";

/**
 * Access to a blockchain (or a simulation of one). Amounts are bigint units of the coin at the
 * decimals of the currency list (an adapter for a token with other on-chain decimals converts).
 */

/** The state of one transfer to an issued address, as the chain sees it now. */
export interface ChainDeposit {
  coin: string;
  network: string;
  address: string;
  txHash: string;
  /** Output (UTXO) or log (EVM) index: with network and txHash, identifies the transfer. */
  outputIndex: number;
  amount: bigint;
  confirmations: number;
  /** True when the transaction left the chain (reorg, replaced, reverted). */
  dropped: boolean;
  /**
   * The block this state is about, by hash: the block the transfer is in, null while it is in
   * none (a mempool transaction); for a drop, the block it left (null: it left the mempool
   * without being mined). Naming it lets the service tell a replayed report (a scan set back
   * to an older cursor, a rescan) from news: a drop from a block other than the one the
   * service last saw the transfer in is about a block the transfer has already left (a reorg
   * moved it), and changes nothing. Optional: without it, every report is applied as it comes.
   */
  blockHash?: string | null;
}

/** One page of the deposit feed. */
export interface DepositFeedPage {
  /** Deposits whose state changed since the cursor given (each its whole current state). */
  deposits: ChainDeposit[];
  /** Pass this to the next `pollDeposits` call; it moves only forward. */
  cursor: string;
  /** True when more changes are waiting beyond this page. */
  hasMore: boolean;
}

/** What `getPayoutStatus` reports about a sent payout. */
export type ChainPayoutStatus = { status: "pending" } | { status: "confirmed" } | { status: "failed"; reason: string };

/**
 * Durable named values the service keeps for an adapter, shared by every instance that shares
 * the storage (a nonce counter, signed payouts, a sweep list). Keys are the adapter's own; the
 * service keeps them apart from its other records.
 */
export interface ChainStateStore {
  /** The value stored under `key`, or null. */
  get(key: string): Promise<string | null>;
  /**
   * Runs `work` holding `key` exclusively: another call for the same key, in this process or
   * another one on the same storage, waits until this one ends. What `work` writes with `set`
   * is stored together when it resolves, and not at all when it throws. Keep network calls
   * out of it where you can: every other holder of the key waits for them.
   */
  withLock<T>(key: string, work: (state: ChainStateView) => Promise<T>): Promise<T>;
}

/** What `ChainStateStore.withLock` lets its work read and write. */
export interface ChainStateView {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
}

/** An address the service issued, as the adapter sees it when it looks addresses up. */
export interface IssuedAddress {
  address: string;
  /** The coin the address was issued for. */
  coin: string;
  /** The invoice it was issued for (an adapter may derive things from it, e.g. a CREATE2 salt). */
  invoiceId: string;
}

/** What `ChainHost.addressUse` says of one issued address. */
export interface AddressUse {
  address: string;
  /** Something was sent to it (any deposit, a dropped one included): it is used on chain. */
  received: boolean;
  /** It may be returned by `createAddress` for a new invoice of the merchant asked about. */
  reusable: boolean;
}

/**
 * A transfer of a token the service does not list (an ERC-20 contract outside the currency list)
 * to an issued address: never credited nor swept, reported so that it is not lost from view.
 */
export type UnlistedTransfer = Pick<UnlistedTransferRecord, "network" | "token" | "address" | "txHash" | "logIndex" | "amount" | "blockNumber">;

/**
 * What the service gives a chain adapter when it takes it into use (`ChainAdapter.bind`): the
 * facts a real chain watcher needs and has no business keeping itself.
 */
export interface ChainHost {
  /** "live" for the host's chains, "test" for the sandbox. */
  readonly mode: "test" | "live";
  /** Whether the currency list has `coin` on `network` (an adapter watches only those). */
  listed(coin: string, network: string): boolean;
  /**
   * The currency list's minConfirm for `coin` on `network`: when a deposit is final, unless the
   * adapter has a setting of its own, which it then answers in `requiredConfirmations`.
   */
  minConfirm(coin: string, network: string): number;
  /** Decimals of `coin` in the ledger (the currency list's), which the adapter's amounts use. */
  decimals(coin: string): number;
  /**
   * The currency list's chain id and token contract for `coin` on `network` (either may be
   * absent), or undefined when the list lacks the pair: an EVM adapter takes a token's contract
   * and the expected chain from here when its options name none. Optional: an adapter must not
   * need it.
   */
  networkOf?(coin: string, network: string): { chainId?: number; tokenContract?: string } | undefined;
  /**
   * Of `addresses` on `network`, those the service issued (one storage read, however many
   * addresses). Lookups are exact: pass addresses as `createAddress` returned them.
   */
  issuedAddresses(network: string, addresses: readonly string[]): Promise<IssuedAddress[]>;
  /** Durable state for the adapter. */
  readonly state: ChainStateStore;
  /**
   * Records a transfer of an unlisted token to an issued address, once it is final: the service
   * stores it (idempotently: a repeated report changes nothing), logs it once and lists it in
   * the operator report. Optional: a host without it is not told, and an adapter may then skip
   * looking for such transfers.
   */
  reportUnlisted?(transfer: UnlistedTransfer): Promise<void>;
  /**
   * For an adapter that hands addresses out again (a Bitcoin-family wallet and its gap limit):
   * of `addresses` on `network`, those the service issued, each with whether anything was ever
   * received at it (then it is used for good) and whether it may now go to a new invoice of
   * `merchantId` (its invoice is that merchant's, was never paid and its late-payment window
   * has passed). Returning a reusable address from `createAddress` moves it to the new invoice.
   */
  addressUse(network: string, addresses: readonly string[], merchantId: string): Promise<AddressUse[]>;
  /** The service's clock, epoch ms (the router's `now` option): what the adapter should time its own records by. */
  now(): number;
  /** Where the adapter reports what it does not throw (a node that is down, a skipped sweep). */
  readonly logger: { warn(message: string, ...details: unknown[]): void; error(message: string, ...details: unknown[]): void };
}

/**
 * A chain adapter. Core calls it outside storage transactions and treats every answer as
 * possibly repeated: deposits are reported as whole states and applied idempotently.
 */
export interface ChainAdapter {
  /** A short name for logs and errors ("sandbox", "evm"). */
  readonly name: string;
  /**
   * Names this adapter's deposit feed, under which core stores how far it has read it.
   * Defaults to `name`. A feed that exists per process (the sandbox's) needs one per instance,
   * or instances sharing a database would skip each other's deposits.
   */
  readonly feedId?: string;
  /**
   * Called once by the router before any other method, with what the service offers the
   * adapter. Optional: an adapter that keeps nothing (the sandbox) needs none. Throws when the
   * adapter cannot serve this service (for example a coin it serves is not in the currency list).
   */
  bind?(host: ChainHost): void;
  /** Whether this adapter can serve `coin` on `network`. */
  supports(coin: string, network: string): boolean;
  /**
   * Issues a deposit address for one invoice: a fresh one, or one that `ChainHost.addressUse`
   * says is reusable for this merchant (the service then points it at this invoice). Never an
   * address another open invoice holds.
   */
  createAddress(request: { coin: string; network: string; merchantId: string; invoiceId: string }): Promise<string>;
  /** Whether `address` is a well-formed destination for `coin` on `network`. */
  isValidAddress(coin: string, network: string, address: string): Promise<boolean>;
  /**
   * The token contracts this adapter serves on `network` (its `tokens` option, which may differ
   * from the currency list's on a test chain). Core refuses a payout, refund or claim to any of
   * them, and to any token contract the currency list names on that network: a token sent to a
   * token contract is lost. Optional: without it, the currency list's contracts alone are refused.
   */
  tokenContracts?(network: string): ReadonlyArray<{ coin: string; contract: string }>;
  /**
   * Deposits whose state changed after `cursor` (null: from the beginning). Reports every
   * confirmation change and drop of a transfer to an address it issued; may repeat states (of
   * one transfer in one page, the last counts: it is its newest state). A
   * transfer that leaves the chain after it had its confirmations (a reorg deeper than them) is
   * reported dropped too, for as long as the adapter can see such a reorg: the service then
   * takes its credit back.
   */
  pollDeposits(cursor: string | null, limit: number): Promise<DepositFeedPage>;
  /**
   * Why payouts of `coin` on `network` cannot be made (for example no hot wallet is configured),
   * or null when they can. Core asks before debiting anything and answers 503 with the reason.
   * Optional: without it, payouts are always possible.
   */
  payoutsUnavailable?(coin: string, network: string): string | null;
  /**
   * Broadcasts a payout. Idempotent by `payoutId`: a second call for the same payout returns
   * the first call's txHash instead of sending again.
   */
  sendPayout(request: { payoutId: string; coin: string; network: string; address: string; amount: bigint }): Promise<{ txHash: string }>;
  /** Where a payout sent by `sendPayout` stands. */
  getPayoutStatus(request: { payoutId: string; txHash: string; coin: string; network: string }): Promise<ChainPayoutStatus>;
  /**
   * Housekeeping the background loop runs each round after the deposit sync (moving received
   * funds into the hot wallet, for one). Returns how many things it did. Optional; the ledger
   * never depends on it.
   */
  maintain?(): Promise<number>;
  /**
   * Confirmations after which a deposit of `coin` on `network` is final: core credits it then,
   * and the adapter follows it (for reorgs) until then. Optional: without it, the currency
   * list's `minConfirm` (what `ChainHost.minConfirm` answers). An adapter with its own setting
   * (`confirmations` of evmChain and bitcoinChain) answers it here, so the two never disagree.
   */
  requiredConfirmations?(coin: string, network: string): number;
  /**
   * What a payer's wallet link for `coin` on `network` must name, on an EVM chain: the chain id
   * and, for a token, its contract (EIP-681). The hosted page of a live invoice builds its
   * `ethereum:` link from this only, never from the currency list, so the link names the chain
   * and contract the adapter watches; null (or no method) gives no link, only the address.
   * `native` marks the chain's own coin, asked for by `value`.
   */
  walletLink?(coin: string, network: string): { chainId: number; tokenContract?: string; native?: boolean } | null;
  /**
   * Reaches the node and checks that it serves what the adapter was configured for (its
   * network, chain id, keys). Resolves when it does. Rejects with a `ChainMismatchError` when
   * it serves something else: core then never scans this chain and answers 503 for its coins.
   * Any other rejection (the node cannot be reached yet) is tried again later. The router calls
   * it before the chain's first scan and from `ready()`. Optional: without it, the chain is
   * taken as ready.
   */
  ready?(): Promise<void>;
  /**
   * Where the node and the scan stand, for health checks and metrics: the node's head and the
   * adapter's own cursor, with both blocks' timestamps (a few cheap node calls, none when the
   * scan is at the head). `scannedHeight`, when given, stands for the adapter's own position (a
   * process that never scanned, such as the operator's command line, passes the stored
   * cursor's). Rejects when the node cannot be reached. Optional: without it, health reports
   * the chain by its readiness and last scan only.
   */
  syncStatus?(options?: { scannedHeight?: number }): Promise<ChainSyncStatus>;
  /**
   * The hot wallet's balances, read from the node: the native coin (which pays the fees) and
   * every listed token it pays out, each with the adapter's low-balance threshold. Empty when
   * the chain has no hot wallet configured. Rejects when the node cannot be reached. Optional.
   */
  hotWalletBalances?(): Promise<HotWalletBalance[]>;
  /**
   * What the hot wallet spends to send this payout, per coin of `hotWalletBalances`: the amount
   * itself, and the fee where it is paid in another coin (gas in the native coin for a token
   * payout) or can be estimated. Core refuses a payout these do not fit in (balances minus the
   * payouts not yet sent). Optional: without it, the amount in the payout's coin.
   */
  payoutNeeds?(request: { coin: string; network: string; amount: bigint }): Promise<Array<{ coin: string; amount: bigint }>>;
  /**
   * What the chain holds for the service, per coin the adapter serves, for reconciliation
   * against the records: the hot wallet, final deposits not yet moved into it, the network fees
   * its own transactions have paid, and the float the operator declared. Read from the node
   * (balances, unspent outputs, receipts) and the adapter's durable state in pages, without
   * holding a lock the payouts or the scan wait on. Rejects when the node cannot be reached.
   * Optional: a chain without it is reported as not reconcilable.
   */
  holdings?(): Promise<ChainHoldings>;
  /**
   * Recovery: makes the next deposit sync read the chain again from block `fromHeight`; what is
   * found again is applied idempotently. Optional: `payments.admin.rescan` refuses a chain
   * without it.
   */
  rescan?(fromHeight: number): Promise<void>;
  /**
   * The height of the last block a stored cursor of this feed has read (null before its first
   * block). Lets a process that never scanned (the operator's command line) report how far the
   * scan stands from the cursor in storage. Optional.
   */
  cursorHeight?(cursor: string): number | null;
  /** Releases connections and timers; the router calls it from `close()`. Optional. */
  close?(): Promise<void>;
}

/** What `ChainAdapter.syncStatus` reports: the node's head against the scanner's position. */
export interface ChainSyncStatus {
  /** The network the status is of ("ETH", "LTC"). */
  network: string;
  /** Height of the node's latest block. */
  nodeHeight: number;
  /** Height of the last block the scanner has read, or null before its first scan. */
  scannedHeight: number | null;
  /** Typical seconds between blocks on this network: the lag in time when the block times below are not reported. */
  blockSeconds: number;
  /**
   * The timestamp of the node's head block. With `unscannedBlockTime`, the scanner's lag in
   * time is how long, in the chain's own time, blocks have waited unread: a burst of quick
   * blocks reads as the seconds it took, not as blocks x `blockSeconds`, and a long gap before
   * a block not read yet is no lag. Optional: without it, lag is estimated from `blockSeconds`.
   */
  nodeBlockTime?: Date;
  /** The timestamp of the first block the scanner has not read (`scannedHeight` + 1); null when it has read the head or not started. Optional, as `nodeBlockTime`. */
  unscannedBlockTime?: Date | null;
  /**
   * Deposit addresses holding final deposits that wait to be moved into the hot wallet (the
   * sweep list and the sweep in flight), read from the adapter's state. Absent for an adapter
   * that does not sweep (the Bitcoin family spends deposits where they are; EVM with
   * consolidation off).
   */
  pendingSweeps?: number;
}

/** One balance of a hot wallet (`ChainAdapter.hotWalletBalances`). */
export interface HotWalletBalance {
  coin: string;
  network: string;
  /** The hot wallet's address (public; never a key). */
  address: string;
  /** In the coin's smallest unit (the ledger's decimals). */
  amount: bigint;
  /** The configured low-balance threshold in the same unit, or null when none is set. */
  lowBalance: bigint | null;
}

/**
 * What `ChainAdapter.ready` rejects with when the node serves another network or chain than
 * the adapter's (a mainnet key on a regtest node, a node on another chain id): no retry can
 * mend it, the configuration must change. Its message names the mismatch and never a key or
 * the node's URL; being a `NodeError`, it passes through the adapters' scrubbing unchanged.
 */
export class ChainMismatchError extends NodeError {
  override readonly name = "ChainMismatchError";
}

/** Marks the sandbox chain, which may serve test mode only. */
export const SANDBOX_CHAIN = Symbol.for("express-crypto-pay.sandbox-chain");

/** What `ChainAdapter.holdings` reports: one reading of what the chain holds for the service. */
export interface ChainHoldings {
  /** The network read ("ETH", "LTC"). */
  network: string;
  /** Height of the block the balances are of (the node's head when read). */
  height: number;
  /** One entry per coin the adapter serves, and the native coin that pays its fees. */
  coins: CoinHoldings[];
}

/** One coin of `ChainHoldings`, every amount in the coin's ledger units. */
export interface CoinHoldings {
  coin: string;
  /**
   * What the hot wallet holds of the coin, payouts already broadcast taken out (0 without a hot
   * wallet). For a family whose deposits are the wallet's own outputs (Bitcoin), the final
   * deposits not yet spent are here.
   */
  hotWallet: bigint;
  /** Final deposits still at deposit addresses, not yet moved into the hot wallet (EVM forwarders). */
  depositAddresses: bigint;
  /**
   * Network fees paid in this coin by the service's own transactions (payouts, sweeps, the
   * factory's deployment), in total since the adapter first sent one: what left the holdings
   * without a record of the ledger explaining it.
   */
  networkFees: bigint;
  /**
   * What the operator put in for fees and declared (the adapter's `float` option): the
   * operator's money, not the merchants'. 0 when none is declared.
   */
  float: bigint;
}
