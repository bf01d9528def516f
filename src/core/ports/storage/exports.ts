import type { AuditEntryRecord } from "../../audit/records";
import type { DepositRecord } from "../../deposits/records";
import type { ExchangeRecord } from "../../exchanges/records";
import type { InvoiceRecord } from "../../invoices/records";
import type { LedgerEntry } from "../../ledger/records";
import type { Mode } from "../../merchants/records";
import type { PayoutRecord } from "../../payouts/records";

/** Where a page of an export starts: the time and id of the last record of the previous page. */
export interface ExportCursor {
  /** Epoch ms: the record's time (`createdAt`, `seenAt` for a deposit, `at` for an audit entry). */
  at: number;
  /** The record's id, which orders records of the same millisecond. */
  id: string;
}

/**
 * One page of an export read: the records of a time range, across every merchant or of one, in
 * one mode or both, oldest first by (time, id). `from` is included and `to` is not, both epoch ms.
 * With `after`, only the records ordered after that (time, id): walking the pages with the last
 * record of each sees every record of the range once, even while new ones are stored.
 */
export interface ExportQuery {
  /** Epoch ms, included. */
  from: number;
  /** Epoch ms, excluded. */
  to: number;
  /** One merchant's records only. */
  merchantId?: string;
  /** One mode's records only; both when absent. */
  mode?: Mode;
  /** At most this many records. */
  limit: number;
  /** The last record of the previous page; absent or null for the first page. */
  after?: ExportCursor | null;
}

/**
 * Reads for exports: keyset-paged walks over a time range across merchants, each page a bounded
 * read, so an export of millions of records holds one page at a time. No lock is taken; each page
 * sees what was committed when it was read. Records are ordered by (time, id), ids compared by
 * code unit. Optional (the `exports` part): without it the exports answer
 * `storage_feature_unavailable`.
 */
export interface ExportReads {
  /** Invoices (payments) by `createdAt`. */
  exportInvoices(query: ExportQuery): Promise<InvoiceRecord[]>;
  /** Deposits by `seenAt` (when the service first saw the transfer). */
  exportDeposits(query: ExportQuery): Promise<DepositRecord[]>;
  /** Payouts by `createdAt`: withdrawals (no `refundOf`) for "payout", refunds (with `refundOf`) for "refund". */
  exportPayouts(kind: "payout" | "refund", query: ExportQuery): Promise<PayoutRecord[]>;
  /** Exchanges (conversions) by `createdAt`. */
  exportExchanges(query: ExportQuery): Promise<ExchangeRecord[]>;
  /** Ledger entries by `createdAt`. */
  exportLedgerEntries(query: ExportQuery): Promise<LedgerEntry[]>;
  /** Audit log entries by `at` (when the action was taken). */
  exportAuditLog(query: ExportQuery): Promise<AuditEntryRecord[]>;
}
