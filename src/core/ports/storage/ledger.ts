import type { BalanceRecord, LedgerEntry } from "../../ledger/records";
import type { Scope } from "./scope";

/** Outcome of `postLedgerEntries`: nothing is written unless the status is `posted`. */
export type PostLedgerResult =
  | { status: "posted" }
  /** An entry with one of the cause keys exists already: the cause was posted before. */
  | { status: "duplicate" }
  /** Posting would take the balance of `asset` below zero. */
  | { status: "insufficient"; asset: string };

/** Options of `postLedgerEntries`. */
export interface PostLedgerOptions {
  /** Post even when a balance ends below zero (a reversal of a credit). Default false. */
  overdraw?: boolean;
}

/**
 * Reads of the ledger: append-only entries, and per (merchant, mode, asset) a balance that is
 * the sum of its entries. Every read is confined to its `Scope`.
 */
export interface LedgerReads {
  /** Balance of one asset; 0n when the merchant never held it. */
  getBalance(scope: Scope, asset: string): Promise<bigint>;
  /** Every asset the merchant has held in `scope`'s mode, ordered by asset symbol. */
  listBalances(scope: Scope): Promise<BalanceRecord[]>;
  /** Ledger entries of `scope` in the order posted (optionally of one asset), whatever their `createdAt`. */
  listLedgerEntries(scope: Scope, asset?: string): Promise<LedgerEntry[]>;
  /**
   * One page of the ledger of `scope`, the last posted first (optionally of one asset): at most
   * `limit` entries posted before the entry `before` (an id), or the latest ones without it. An
   * id that names no entry of `scope` answers an empty page. A bounded read however long the
   * ledger is: what a paged list of entries reads.
   */
  pageLedgerEntries(scope: Scope, query: { asset?: string; before?: string | null; limit: number }): Promise<LedgerEntry[]>;
}

/**
 * The ledger, as a transaction sees it. Money moves only here, and only by whole batches of
 * entries: a cause (`causeKey`) posts at most once, and no debit takes a balance below zero.
 */
export interface LedgerStore extends LedgerReads {
  /**
   * Appends ledger entries and updates the balances they touch, all or nothing: nothing is
   * written when any entry's `causeKey` was posted before (`duplicate`) or when any balance
   * the batch lowers would end below zero (`insufficient`; a batch that only raises or keeps a
   * balance that is below zero already is posted). Checking and writing are one atomic step,
   * so concurrent debits can never overdraw a balance. A batch that repeats a cause key within
   * itself is a bug of the caller: it throws. An empty batch is `posted` and changes nothing.
   *
   * With `options.overdraw`, the balance check is skipped: the batch is posted even when a
   * balance ends below zero. Core uses it only to take back a credit whose deposit left the
   * chain (a "deposit_reversal"), which must be recorded whatever was spent since; every
   * other debit is then refused until credits bring the balance back to zero.
   */
  postLedgerEntries(entries: LedgerEntry[], options?: PostLedgerOptions): Promise<PostLedgerResult>;
}
