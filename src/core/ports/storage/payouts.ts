import type { Mode } from "../../merchants/records";
import type { PayoutRecord, PayoutStatus } from "../../payouts/records";
import type { PageQuery, Scope } from "./scope";

/** Filters of the payout list: plain payouts (withdrawals) or refunds. */
export interface PayoutFilter {
  kind: "payout" | "refund";
  /** Refunds of one invoice only. */
  refundOf?: string;
  status?: PayoutStatus;
}

/**
 * Reads of payouts: withdrawals, and refunds (a payout with `refundOf`). A read given a `Scope`
 * never answers another merchant's or mode's payout.
 */
export interface PayoutReads {
  /** The payout with this id if it belongs to `scope`, else null. */
  getPayout(scope: Scope, id: string): Promise<PayoutRecord | null>;
  /** Payouts of `scope` matching `filter`, newest first by (createdAt, id), one page. */
  listPayouts(scope: Scope, filter: PayoutFilter, page: PageQuery): Promise<PayoutRecord[]>;
  /**
   * Payouts in `mode` (every merchant) with this status ordered by (createdAt, id), at most
   * `limit`; with `after` (the id of the last payout of the previous page), only those ordered
   * after it. Feeds the loop that follows payouts on their chains.
   */
  listPayoutsByStatus(mode: Mode, status: PayoutStatus, limit: number, after?: string | null): Promise<PayoutRecord[]>;
  /** Every refund (payout with `refundOf`) of one invoice, any status, oldest first by (createdAt, id). */
  listRefunds(invoiceId: string): Promise<PayoutRecord[]>;
}

/**
 * Payouts, as a transaction sees them: the id is unique, and a payout changes under
 * `lockPayout`. The money leaves the balance through the ledger (`postLedgerEntries`), in the
 * same transaction that inserts the payout.
 */
export interface PayoutStore extends PayoutReads {
  /** Stores a new payout. Throws if the id exists. */
  insertPayout(payout: PayoutRecord): Promise<void>;
  /** Locks and returns the payout with this id (any merchant), or null. */
  lockPayout(id: string): Promise<PayoutRecord | null>;
  /** Replaces the stored payout with the same id (which must exist: throws otherwise). */
  updatePayout(payout: PayoutRecord): Promise<void>;
}
