import type { DepositRecord } from "../../deposits/records";
import type { Mode } from "../../merchants/records";
import type { Scope } from "./scope";

/**
 * Deposits that an operator must hear about: every one reversed at least once (`reversals > 0`)
 * or not counting toward its invoice (a stray coin, or a transfer after the invoice closed).
 */
export interface NotableDepositQuery {
  /** At most this many, in the order stored. */
  limit: number;
  /** The id of the last deposit of the previous page; null for the first page. */
  after?: string | null;
}

/**
 * Reads of deposits: transfers seen on a chain to an issued address, each with its chain
 * identity (mode, network, txHash, outputIndex).
 */
export interface DepositReads {
  /** The deposit with this id in `scope`, or null (another merchant's or mode's is not found). */
  getDeposit(scope: Scope, id: string): Promise<DepositRecord | null>;
  /** Deposits of an invoice, in the order they were first seen; empty for an unknown invoice. */
  listDepositsForInvoice(invoiceId: string): Promise<DepositRecord[]>;
  /**
   * Per asset, the sum of `scope`'s deposits that are seen but not yet confirmed (status
   * PENDING), ordered by asset symbol; assets without one are left out.
   */
  sumPendingDeposits(scope: Scope): Promise<Array<{ asset: string; amount: bigint }>>;
}

/**
 * The operator report's read of deposits (part of the optional `operatorReport` part, with
 * `UnlistedTransferReads`): across every merchant, never reachable from the merchant API.
 */
export interface NotableDepositReads {
  /**
   * Deposits in `mode` (every merchant) that were reversed at least once (`reversals > 0`) or
   * do not count toward their invoice (`countsTowardInvoice` false), in the order stored; with
   * `query.after`, those stored after that deposit. Feeds the operator report.
   */
  listNotableDeposits(mode: Mode, query: NotableDepositQuery): Promise<DepositRecord[]>;
}

/**
 * Deposits, as a transaction sees them. The chain identity is unique: it is what makes a
 * transfer reported twice (by two instances at once, say) recorded, and so credited, once.
 */
export interface DepositStore extends DepositReads {
  /** Locks and returns the deposit with this chain identity in `mode`, or null. */
  lockDeposit(mode: Mode, network: string, txHash: string, outputIndex: number): Promise<DepositRecord | null>;
  /** Stores a new deposit. Throws if its (mode, network, txHash, outputIndex) or its id exists. */
  insertDeposit(deposit: DepositRecord): Promise<void>;
  /**
   * Replaces the stored deposit with the same id (which must exist: throws otherwise). Its chain
   * identity may change with it (throws if another deposit has the new one), and it moves to
   * another invoice's list if its `invoiceId` changed.
   */
  updateDeposit(deposit: DepositRecord): Promise<void>;
}
