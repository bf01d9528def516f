import type { ExportQuery, ExportReads } from "../../../core/ports/storage/index";
import type { SqlQueryable } from "./sql-client";
import { auditColumns } from "./statements/audit-log";
import type { Row } from "./statements/columns";
import { depositColumns } from "./statements/deposits";
import { exportPageQuery } from "./statements/exports";
import type { Statements } from "./statements/index";
import { invoiceColumns } from "./statements/invoices";
import { ledgerColumns } from "./statements/ledger";
import { exchangeColumns, payoutColumns } from "./statements/payouts";

/** The export reads, over a connection (the pool, or a transaction's). */
export function sqlExportReads(db: SqlQueryable, s: Statements): ExportReads {
  const page = async <T>(columns: { list: string; read: (row: Row) => T }, table: string, time: string, query: ExportQuery, extra: string | null = null) => {
    const { text, params } = exportPageQuery(columns.list, table, time, query, extra);
    return (await db.query(text, params)).rows.map(columns.read);
  };
  return {
    exportInvoices: (query) => page(invoiceColumns, s.tables.invoices, "created_at", query),
    exportDeposits: (query) => page(depositColumns, s.tables.deposits, "seen_at", query),
    exportPayouts: (kind, query) =>
      page(payoutColumns, s.tables.payouts, "created_at", query, kind === "refund" ? "refund_of IS NOT NULL" : "refund_of IS NULL"),
    exportExchanges: (query) => page(exchangeColumns, s.tables.exchanges, "created_at", query),
    exportLedgerEntries: (query) => page(ledgerColumns, s.tables.ledger, "created_at", query),
    // Walks the audit log's (at DESC, id DESC) index backwards: no index of its own needed.
    exportAuditLog: (query) => page(auditColumns, s.tables.auditLog, "at", query),
  };
}
