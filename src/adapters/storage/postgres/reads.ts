import type { Scope, StorageReads } from "../../../core/ports/storage/index";
import { sqlAllowlistReads } from "./allowlist";
import { sqlExportReads } from "./export-reads";
import { sqlReconcileReads } from "./reconcile-reads";
import type { SqlQueryable } from "./sql-client";
import { sqlSubscriptionReads } from "./subscriptions";
import { auditColumns } from "./statements/audit-log";
import { numeric, type Row } from "./statements/columns";
import { depositColumns, unlistedTransferColumns } from "./statements/deposits";
import { eventColumns } from "./statements/events";
import { eventLogEnd, readEventLog } from "./event-log";
import type { Statements } from "./statements/index";
import { addressColumns, invoiceColumns } from "./statements/invoices";
import { balanceColumns, ledgerColumns } from "./statements/ledger";
import { apiKeyColumns, merchantColumns, readApiKeyMatch } from "./statements/merchants";
import { operatorListReads } from "./operator-lists";
import { type Condition, pagedQuery } from "./statements/paging";
import { paymentLinkColumns } from "./statements/payment-links";
import { exchangeColumns, payoutColumns } from "./statements/payouts";
import { attemptColumns, deliveryColumns } from "./statements/webhook-deliveries";
import { endpointColumns } from "./statements/webhook-endpoints";

/** The first row mapped, or null. */
async function one<T>(result: Promise<{ rows: Row[] }>, map: (row: Row) => T): Promise<T | null> {
  const row = (await result).rows[0];
  return row === undefined ? null : map(row);
}

/** The first row mapped if it belongs to `scope`, else null (another merchant's id is "not found"). */
async function scoped<T>(result: Promise<{ rows: Row[] }>, scope: Scope, map: (row: Row) => T): Promise<T | null> {
  const row = (await result).rows[0];
  return row === undefined || row.merchant_id !== scope.merchantId || row.mode !== scope.mode ? null : map(row);
}

/** Every row mapped. */
async function all<T>(result: Promise<{ rows: Row[] }>, map: (row: Row) => T): Promise<T[]> {
  return (await result).rows.map(map);
}

/**
 * The reads of the contract, over a connection: the pool outside a transaction (committed data),
 * or the transaction's own connection inside one (its own writes included).
 */
export function sqlReads(db: SqlQueryable, s: Statements): Required<StorageReads> {
  return {
    getMerchant: (id) => one(db.query(s.getMerchant, [id]), merchantColumns.read),
    listAuditLog: (query) => all(db.query(s.listAuditLog, [query.merchantId ?? null, Math.max(0, query.limit), query.after ?? null]), auditColumns.read),
    findApiKeyByHash: (hash) => one(db.query(s.findApiKeyByHash, [hash]), readApiKeyMatch),
    getApiKey: (id) => one(db.query(s.getApiKey, [id]), apiKeyColumns.read),
    listApiKeys: (merchantId) => all(db.query(s.listApiKeys, [merchantId]), apiKeyColumns.read),
    getInvoice: (scope, id) => scoped(db.query(s.getInvoice, [id]), scope, invoiceColumns.read),
    findInvoice: (id) => one(db.query(s.getInvoice, [id]), invoiceColumns.read),
    getPayout: (scope, id) => scoped(db.query(s.getPayout, [id]), scope, payoutColumns.read),
    getExchange: (scope, id) => scoped(db.query(s.getExchange, [id]), scope, exchangeColumns.read),
    findAddress: (mode, network, address) => one(db.query(s.findAddress, [mode, network, address]), addressColumns.read),
    findAddresses: async (mode, network, addresses) =>
      addresses.length === 0 ? [] : all(db.query(s.findAddresses, [mode, network, [...addresses]]), addressColumns.read),
    getDeposit: (scope, id) => scoped(db.query(s.getDeposit, [id]), scope, depositColumns.read),
    listDepositsForInvoice: (invoiceId) => all(db.query(s.listDepositsForInvoice, [invoiceId]), depositColumns.read),
    listNotableDeposits: (mode, query) => all(db.query(s.listNotableDeposits, [mode, query.limit, query.after ?? null]), depositColumns.read),
    getBalance: async (scope, asset) => {
      const row = (await db.query(s.getBalance, [scope.merchantId, scope.mode, asset])).rows[0];
      return row === undefined ? 0n : numeric.read(row.amount);
    },
    listBalances: (scope) => all(db.query(s.listBalances, [scope.merchantId, scope.mode]), balanceColumns.read),
    listLedgerEntries: (scope, asset) =>
      asset === undefined
        ? all(db.query(s.listLedgerEntries, [scope.merchantId, scope.mode]), ledgerColumns.read)
        : all(db.query(s.listLedgerEntriesOfAsset, [scope.merchantId, scope.mode, asset]), ledgerColumns.read),
    pageLedgerEntries: (scope, query) =>
      all(db.query(s.pageLedgerEntries, [scope.merchantId, scope.mode, query.asset ?? null, query.before ?? null, query.limit]), ledgerColumns.read),
    listEvents: (scope, options) =>
      options?.invoiceId === undefined
        ? all(db.query(s.listEvents, [scope.merchantId, scope.mode]), eventColumns.read)
        : all(db.query(s.listEventsOfInvoice, [scope.merchantId, scope.mode, options.invoiceId]), eventColumns.read),
    readEventLog: (scope, position, limit) => readEventLog(db, s, scope, position, limit),
    eventLogEnd: () => eventLogEnd(db, s),
    listExpiringInvoices: (mode, now, limit) => all(db.query(s.listExpiringInvoices, [mode, now, Math.max(0, limit)]), invoiceColumns.read),
    listPayoutsByStatus: (mode, status, limit, after) =>
      after
        ? all(db.query(s.listPayoutsByStatusAfter, [mode, status, Math.max(0, limit), after]), payoutColumns.read)
        : all(db.query(s.listPayoutsByStatus, [mode, status, Math.max(0, limit)]), payoutColumns.read),
    webhookBacklog: async (now, limit) => {
      const row = (await db.query(s.webhookBacklog, [now, Math.max(0, limit)])).rows[0]!;
      return {
        due: Number(row.due),
        oldestDueAt: row.oldest_due_at === null ? null : Number(row.oldest_due_at),
        retrying: Number(row.retrying),
        failingEndpoints: Number(row.failing_endpoints),
      };
    },
    getCursor: async (key) => {
      const row = (await db.query(s.getCursor, [key])).rows[0];
      return row === undefined ? null : (row.value as string);
    },
    listInvoices: (scope, filter, page) => {
      const conditions: Condition[] = [];
      if (filter.status !== undefined) conditions.push({ sql: "status = ?", value: filter.status });
      if (filter.createdFrom !== undefined) conditions.push({ sql: "created_at >= ?", value: filter.createdFrom });
      if (filter.createdTo !== undefined) conditions.push({ sql: "created_at < ?", value: filter.createdTo });
      if (filter.network !== undefined) conditions.push({ sql: "network = ?", value: filter.network });
      // json, not jsonb: ->> is the text of a string value; a number or object orderId never matches.
      // Both conditions are those of the partial index invoices_by_order_id, word for word (the
      // planner uses a partial index only when the query repeats its predicate); the transaction
      // hash is found through deposits_by_tx_hash.
      if (filter.orderId !== undefined)
        conditions.push({ sql: "json_typeof(metadata -> 'orderId') = 'string' AND metadata ->> 'orderId' = ?", value: filter.orderId });
      if (filter.txHash !== undefined) {
        conditions.push({
          sql: `EXISTS (SELECT 1 FROM ${s.tables.deposits} AS d WHERE d.invoice_id = ${s.tables.invoices}.id AND d.tx_hash = ?)`,
          value: filter.txHash,
        });
      }
      const { text, params } = pagedQuery(invoiceColumns.list, s.tables.invoices, scope, conditions, page);
      return all(db.query(text, params), invoiceColumns.read);
    },
    listPayouts: (scope, filter, page) => {
      const conditions: Condition[] = [{ sql: filter.kind === "refund" ? "refund_of IS NOT NULL" : "refund_of IS NULL" }];
      if (filter.refundOf !== undefined) conditions.push({ sql: "refund_of = ?", value: filter.refundOf });
      if (filter.status !== undefined) conditions.push({ sql: "status = ?", value: filter.status });
      const { text, params } = pagedQuery(payoutColumns.list, s.tables.payouts, scope, conditions, page);
      return all(db.query(text, params), payoutColumns.read);
    },
    listExchanges: (scope, page) => {
      const { text, params } = pagedQuery(exchangeColumns.list, s.tables.exchanges, scope, [], page);
      return all(db.query(text, params), exchangeColumns.read);
    },
    listRefunds: (invoiceId) => all(db.query(s.listRefunds, [invoiceId]), payoutColumns.read),
    sumPendingDeposits: async (scope) =>
      (await db.query(s.sumPendingDeposits, [scope.merchantId, scope.mode])).rows.map((row) => ({
        asset: row.asset as string,
        amount: numeric.read(row.amount),
      })),
    getPaymentLink: (scope, id) => scoped(db.query(s.getPaymentLink, [id]), scope, paymentLinkColumns.read),
    findPaymentLink: (id) => one(db.query(s.findPaymentLink, [id]), paymentLinkColumns.read),
    listPaymentLinks: (scope, page) => {
      const { text, params } = pagedQuery(paymentLinkColumns.list, s.tables.paymentLinks, scope, [], page);
      return all(db.query(text, params), paymentLinkColumns.read);
    },
    getWebhookEndpoint: (scope, id) => scoped(db.query(s.getWebhookEndpoint, [id]), scope, endpointColumns.read),
    listWebhookEndpoints: (scope) => all(db.query(s.listWebhookEndpoints, [scope.merchantId, scope.mode]), endpointColumns.read),
    getWebhookDelivery: (scope, id) => scoped(db.query(s.getWebhookDelivery, [id]), scope, deliveryColumns.read),
    listWebhookDeliveries: (scope, filter, page) =>
      all(
        db.query(s.listWebhookDeliveries, [
          scope.merchantId,
          scope.mode,
          filter.endpointId ?? null,
          filter.eventType ?? null,
          filter.status ?? null,
          page.after ?? null,
          Math.max(0, page.limit),
          filter.eventId ?? null,
        ]),
        deliveryColumns.read,
      ),
    listWebhookAttempts: (deliveryId) => all(db.query(s.listWebhookAttempts, [deliveryId]), attemptColumns.read),
    listUnlistedTransfers: (mode) => all(db.query(s.listUnlistedTransfers, [mode]), unlistedTransferColumns.read),
    ...operatorListReads(db, s),
    ...sqlReconcileReads(db, s),
    ...sqlExportReads(db, s),
    ...sqlAllowlistReads(db, s),
    ...sqlSubscriptionReads(db, s),
  };
}
