/**
 * The ledger: append-only entries and the balances they sum to.
 * Amounts are bigint smallest units of the record's asset; times are epoch milliseconds.
 * Storage adapters persist these shapes as they are.
 */
import type { Mode } from "../merchants/records";

/** One append-only ledger line; a balance is the sum of its lines. */
export interface LedgerEntry {
  id: string;
  merchantId: string;
  mode: Mode;
  asset: string;
  /** Signed: credits positive, debits negative. */
  amount: bigint;
  kind: "deposit" | "deposit_reversal" | "payout" | "payout_reversal" | "exchange_out" | "exchange_in";
  /** Unique reason for the entry ("deposit:dep_..."): the same cause never posts twice. */
  causeKey: string;
  createdAt: number;
}

/** A balance of one asset. */
export interface BalanceRecord {
  merchantId: string;
  mode: Mode;
  asset: string;
  amount: bigint;
  updatedAt: number;
}
