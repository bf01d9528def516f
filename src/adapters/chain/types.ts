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
export type ChainPayoutStatus =
  | { status: "pending" }
  | { status: "confirmed" }
  | { status: "failed"; reason: string };

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
  /** Whether this adapter can serve `coin` on `network`. */
  supports(coin: string, network: string): boolean;
  /** Issues a fresh deposit address for one invoice. Never returns an address twice. */
  createAddress(request: { coin: string; network: string; merchantId: string; invoiceId: string }): Promise<string>;
  /** Whether `address` is a well-formed destination for `coin` on `network`. */
  isValidAddress(coin: string, network: string, address: string): Promise<boolean>;
  /**
   * Deposits whose state changed after `cursor` (null: from the beginning). Reports every
   * confirmation change and drop of a transfer to an address it issued; may repeat states.
   */
  pollDeposits(cursor: string | null, limit: number): Promise<DepositFeedPage>;
  /**
   * Broadcasts a payout. Idempotent by `payoutId`: a second call for the same payout returns
   * the first call's txHash instead of sending again.
   */
  sendPayout(request: {
    payoutId: string;
    coin: string;
    network: string;
    address: string;
    amount: bigint;
  }): Promise<{ txHash: string }>;
  /** Where a payout sent by `sendPayout` stands. */
  getPayoutStatus(request: { payoutId: string; txHash: string; coin: string; network: string }): Promise<ChainPayoutStatus>;
}
