import type { DepositStatus } from "../../deposits/records";
import type { Mode } from "../../merchants/records";
import type { PayoutStatus } from "../../payouts/records";

/** How many records and their amounts summed, in the smallest unit of their coin or asset. */
export interface RecordTotal {
  count: number;
  amount: bigint;
}

/** Deposits of one mode summed per network, coin, status and whether they are stray. */
export interface DepositTotal extends RecordTotal {
  network: string;
  coin: string;
  status: DepositStatus;
  /** True for deposits of a coin other than their invoice's (credited in the coin received). */
  stray: boolean;
  /** Sum of their service fees (`DepositRecord.fee`), in the same unit: the operator's share of what was received. */
  fee: bigint;
}

/** Payouts of one mode summed per network, coin, status and whether their transaction was broadcast. */
export interface PayoutTotal extends RecordTotal {
  network: string;
  coin: string;
  status: PayoutStatus;
  /** True when the payout has a transaction hash (the chain accepted its transaction). */
  sent: boolean;
  /** Sum of the fees debited with them (`PayoutRecord.fee`), in the same unit. */
  fee: bigint;
}

/** The balances of one mode summed per asset, every merchant together. */
export interface BalanceTotal {
  asset: string;
  /** Sum of every merchant's balance of the asset (balances below zero included). */
  amount: bigint;
  /** Merchants whose balance of the asset is below zero. */
  deficits: number;
  /** Sum of those balances below zero (zero or less). */
  deficit: bigint;
}

/** Unlisted-token transfers of one mode summed per network and token contract, in the token's raw units. */
export interface UnlistedTotal extends RecordTotal {
  network: string;
  token: string;
}

/**
 * Aggregate reads for reconciling the records with the chains, across every merchant of one
 * mode: sums computed where the records are (GROUP BY in SQL), so a report over millions of
 * records costs a few rows, and no lock is taken. Each list is ordered by its key columns.
 * Optional (the `reconcile` part): without it the reconcile report answers `storage_feature_unavailable`.
 */
export interface ReconcileReads {
  /** Deposits per (network, coin, status, stray), ordered by those. */
  depositTotals(mode: Mode): Promise<DepositTotal[]>;
  /** Payouts per (network, coin, status, sent), ordered by those (false before true). */
  payoutTotals(mode: Mode): Promise<PayoutTotal[]>;
  /** Balances per asset, ordered by asset; an asset is listed once any merchant has a balance row of it. */
  balanceTotals(mode: Mode): Promise<BalanceTotal[]>;
  /** Unlisted-token transfers per (network, token), ordered by those. */
  unlistedTotals(mode: Mode): Promise<UnlistedTotal[]>;
}
