import type { Scope, StorageReads } from "../../../core/ports/storage";
import type { SqlQueryable } from "./sql-client";
import {
  big,
  toAddress,
  toApiKey,
  toApiKeyMatch,
  toAttempt,
  toBalance,
  toDelivery,
  toDeposit,
  toEndpoint,
  toEvent,
  toExchange,
  toInvoice,
  toLedgerEntry,
  toMerchant,
  toPaymentLink,
  toPayout,
  toUnlistedTransfer,
  EXCHANGE_COLUMNS,
  INVOICE_COLUMNS,
  PAYMENT_LINK_COLUMNS,
  PAYOUT_COLUMNS,
} from "./rows";
import { pagedQuery, type Statements } from "./statements";

type Row = Record<string, unknown>;

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
export function sqlReads(db: SqlQueryable, s: Statements): StorageReads {
  return {
    getMerchant: (id) => one(db.query(s.getMerchant, [id]), toMerchant),
    findApiKeyByHash: (hash) => one(db.query(s.findApiKeyByHash, [hash]), toApiKeyMatch),
    listApiKeys: (merchantId) => all(db.query(s.listApiKeys, [merchantId]), toApiKey),
    getInvoice: (scope, id) => scoped(db.query(s.getInvoice, [id]), scope, toInvoice),
    findInvoice: (id) => one(db.query(s.getInvoice, [id]), toInvoice),
    getPayout: (scope, id) => scoped(db.query(s.getPayout, [id]), scope, toPayout),
    getExchange: (scope, id) => scoped(db.query(s.getExchange, [id]), scope, toExchange),
    findAddress: (mode, network, address) => one(db.query(s.findAddress, [mode, network, address]), toAddress),
    findAddresses: async (mode, network, addresses) =>
      addresses.length === 0 ? [] : all(db.query(s.findAddresses, [mode, network, [...addresses]]), toAddress),
    listDepositsForInvoice: (invoiceId) => all(db.query(s.listDepositsForInvoice, [invoiceId]), toDeposit),
    listNotableDeposits: (mode, query) => all(db.query(s.listNotableDeposits, [mode, query.limit, query.after ?? null]), toDeposit),
    getBalance: async (scope, asset) => {
      const row = (await db.query(s.getBalance, [scope.merchantId, scope.mode, asset])).rows[0];
      return row === undefined ? 0n : big(row.amount);
    },
    listBalances: (scope) => all(db.query(s.listBalances, [scope.merchantId, scope.mode]), toBalance),
    listLedgerEntries: (scope, asset) =>
      asset === undefined
        ? all(db.query(s.listLedgerEntries, [scope.merchantId, scope.mode]), toLedgerEntry)
        : all(db.query(s.listLedgerEntriesOfAsset, [scope.merchantId, scope.mode, asset]), toLedgerEntry),
    listEvents: (scope, options) =>
      options?.invoiceId === undefined
        ? all(db.query(s.listEvents, [scope.merchantId, scope.mode]), toEvent)
        : all(db.query(s.listEventsOfInvoice, [scope.merchantId, scope.mode, options.invoiceId]), toEvent),
    listExpiringInvoices: (mode, now, limit) => all(db.query(s.listExpiringInvoices, [mode, now, Math.max(0, limit)]), toInvoice),
    listPayoutsByStatus: (mode, status, limit, after) =>
      after
        ? all(db.query(s.listPayoutsByStatusAfter, [mode, status, Math.max(0, limit), after]), toPayout)
        : all(db.query(s.listPayoutsByStatus, [mode, status, Math.max(0, limit)]), toPayout),
    getCursor: async (key) => {
      const row = (await db.query(s.getCursor, [key])).rows[0];
      return row === undefined ? null : (row.value as string);
    },
    listInvoices: (scope, filter, page) => {
      const conditions = [];
      if (filter.status !== undefined) conditions.push({ sql: "status = ?", value: filter.status });
      if (filter.createdFrom !== undefined) conditions.push({ sql: "created_at >= ?", value: filter.createdFrom });
      if (filter.createdTo !== undefined) conditions.push({ sql: "created_at < ?", value: filter.createdTo });
      if (filter.network !== undefined) conditions.push({ sql: "network = ?", value: filter.network });
      const { text, params } = pagedQuery(INVOICE_COLUMNS, s.tables.invoices, scope, conditions, page);
      return all(db.query(text, params), toInvoice);
    },
    listPayouts: (scope, filter, page) => {
      const conditions: Array<{ sql: string; value?: unknown }> = [{ sql: filter.kind === "refund" ? "refund_of IS NOT NULL" : "refund_of IS NULL" }];
      if (filter.refundOf !== undefined) conditions.push({ sql: "refund_of = ?", value: filter.refundOf });
      if (filter.status !== undefined) conditions.push({ sql: "status = ?", value: filter.status });
      const { text, params } = pagedQuery(PAYOUT_COLUMNS, s.tables.payouts, scope, conditions, page);
      return all(db.query(text, params), toPayout);
    },
    listExchanges: (scope, page) => {
      const { text, params } = pagedQuery(EXCHANGE_COLUMNS, s.tables.exchanges, scope, [], page);
      return all(db.query(text, params), toExchange);
    },
    listRefunds: (invoiceId) => all(db.query(s.listRefunds, [invoiceId]), toPayout),
    sumPendingDeposits: async (scope) =>
      (await db.query(s.sumPendingDeposits, [scope.merchantId, scope.mode])).rows.map((row) => ({ asset: row.asset as string, amount: big(row.amount) })),
    getPaymentLink: (scope, id) => scoped(db.query(s.getPaymentLink, [id]), scope, toPaymentLink),
    findPaymentLink: (id) => one(db.query(s.findPaymentLink, [id]), toPaymentLink),
    listPaymentLinks: (scope, page) => {
      const { text, params } = pagedQuery(PAYMENT_LINK_COLUMNS, s.tables.paymentLinks, scope, [], page);
      return all(db.query(text, params), toPaymentLink);
    },
    getWebhookEndpoint: (scope, id) => scoped(db.query(s.getWebhookEndpoint, [id]), scope, toEndpoint),
    listWebhookEndpoints: (scope) => all(db.query(s.listWebhookEndpoints, [scope.merchantId, scope.mode]), toEndpoint),
    getWebhookDelivery: (scope, id) => scoped(db.query(s.getWebhookDelivery, [id]), scope, toDelivery),
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
        ]),
        toDelivery,
      ),
    listWebhookAttempts: (deliveryId) => all(db.query(s.listWebhookAttempts, [deliveryId]), toAttempt),
    listUnlistedTransfers: (mode) => all(db.query(s.listUnlistedTransfers, [mode]), toUnlistedTransfer),
  };
}
