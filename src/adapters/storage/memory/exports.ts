import type { Mode } from "../../../core/merchants/records";
import type { ExportQuery, ExportReads } from "../../../core/ports/storage/index";
import { copy, copyInvoice } from "./copy";
import type { Run, Tables } from "./tables";

/** What every exported record has: an id, an owner and a mode (null for an audit entry about a merchant's settings). */
interface Owned {
  id: string;
  merchantId: string;
  mode: Mode | null;
}

/**
 * One page of `records` for `query`, oldest first by (time, id). The memory adapter has no index
 * by time across merchants: each page is one pass over the table, which suits the record counts
 * it is meant for (tests, trials).
 */
function exportPage<R extends Owned>(records: Iterable<R>, query: ExportQuery, time: (record: R) => number, out: (record: R) => R): R[] {
  const after = query.after ?? null;
  const found: R[] = [];
  for (const record of records) {
    const at = time(record);
    if (at < query.from || at >= query.to) continue;
    if (query.merchantId !== undefined && record.merchantId !== query.merchantId) continue;
    if (query.mode !== undefined && record.mode !== query.mode) continue;
    if (after && (at < after.at || (at === after.at && record.id <= after.id))) continue;
    found.push(record);
  }
  found.sort((a, b) => time(a) - time(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return found.slice(0, Math.max(0, query.limit)).map(out);
}

/** Keyset-paged reads of a time range across merchants, for exports. */
export function exportReads(t: Tables, run: Run): ExportReads {
  const created = (record: { createdAt: number }) => record.createdAt;
  return {
    exportInvoices: (query) => run("exportInvoices", () => exportPage(t.invoices.values(), query, created, copyInvoice)),
    exportDeposits: (query) => run("exportDeposits", () => exportPage(t.deposits.values(), query, (deposit) => deposit.seenAt, copy)),
    exportPayouts: (kind, query) =>
      run("exportPayouts", () =>
        exportPage(
          [...t.payouts.values()].filter((payout) => (kind === "refund") === (payout.refundOf !== null)),
          query,
          created,
          copy,
        ),
      ),
    exportExchanges: (query) => run("exportExchanges", () => exportPage(t.exchanges.values(), query, created, copy)),
    exportLedgerEntries: (query) => run("exportLedgerEntries", () => exportPage([...t.ledgerByScope.values()].flat(), query, created, copy)),
    exportAuditLog: (query) => run("exportAuditLog", () => exportPage(t.auditLog.values(), query, (entry) => entry.at, copy)),
  };
}
