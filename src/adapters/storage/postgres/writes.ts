import { webhookPayload } from "../../../core/ports/fan-out";
import type { EventRecord } from "../../../core/webhooks/records";
import type { CompleteStorageTransaction, StorageReads } from "../../../core/ports/storage/index";
import { sqlAllowlistWrites } from "./allowlist";
import { postLedgerEntries } from "./ledger";
import type { SqlQueryable } from "./sql-client";
import { sqlSubscriptionWrites } from "./subscriptions";
import { auditColumns } from "./statements/audit-log";
import { bigintNumber } from "./statements/columns";
import { depositColumns, unlistedTransferColumns } from "./statements/deposits";
import { eventColumns, eventDataJson } from "./statements/events";
import { idempotencyColumns } from "./statements/idempotency";
import type { Statements } from "./statements/index";
import { addressColumns, invoiceColumns } from "./statements/invoices";
import { apiKeyColumns, merchantColumns } from "./statements/merchants";
import { paymentLinkColumns } from "./statements/payment-links";
import { exchangeColumns, payoutColumns } from "./statements/payouts";
import { attemptColumns, deliveryColumns, recordAttemptParams } from "./statements/webhook-deliveries";
import { endpointColumns } from "./statements/webhook-endpoints";

function conflict(what: string): never {
  throw new Error(`postgresStorage: ${what} exists already (unique constraint)`);
}

function missing(what: string): never {
  throw new Error(`postgresStorage: cannot update ${what}: no such record`);
}

/** Runs an `INSERT ... ON CONFLICT DO NOTHING RETURNING 1` and throws when it inserted nothing. */
async function insert(db: SqlQueryable, text: string, params: unknown[], what: () => string): Promise<void> {
  if ((await db.query(text, params)).rowCount === 0) conflict(what());
}

/** Runs an `UPDATE ... WHERE id = $1` and throws when no row had that id. */
async function update(db: SqlQueryable, text: string, params: unknown[], what: () => string): Promise<void> {
  if ((await db.query(text, params)).rowCount === 0) missing(what());
}

/** An event's webhook payload, its data serialized once for both the event row and the payload. */
const payloadOf = (event: EventRecord): string => webhookPayload(event, eventDataJson(event.data));

/**
 * Defers an insert of `rows`: one row as plain values (`single`), several as one array per column
 * (`multiple`, an unnest); `shared` values follow either. Nothing for no rows.
 */
function deferRows(db: SqlQueryable, single: string, multiple: string, rows: unknown[][], shared: unknown[] = []): void {
  if (rows.length === 0) return;
  if (rows.length === 1) db.defer(single, [...rows[0]!, ...shared]);
  else db.defer(multiple, [...rows[0]!.map((_, column) => rows.map((row) => row[column])), ...shared]);
}

/** The writes of the contract over one transaction's connection. */
export function sqlWrites(db: SqlQueryable, s: Statements): Omit<CompleteStorageTransaction, keyof StorageReads> {
  return {
    insertMerchant: (m) => insert(db, s.insertMerchant, merchantColumns.params(m), () => `merchant ${m.id}`),
    updateMerchant: (m) => update(db, s.updateMerchant, merchantColumns.params(m), () => `merchant ${m.id}`),
    insertApiKey: (k) => insert(db, s.insertApiKey, apiKeyColumns.params(k), () => `API key ${k.id} (or one with this hash)`),
    revokeApiKey: async (id, at) => (await db.query(s.revokeApiKey, [id, at])).rowCount > 0,
    insertAuditEntry: (e) => insert(db, s.insertAuditEntry, auditColumns.params(e), () => `audit entry ${e.id}`),
    // Deferred: a new invoice's id is random, so a clash is a failed transaction, not a case to handle.
    insertInvoice: async (invoice) => db.defer(s.insertInvoice, invoiceColumns.params(invoice)),
    lockInvoice: async (id) => {
      const row = (await db.query(s.lockInvoice, [id])).rows[0];
      return row === undefined ? null : invoiceColumns.read(row);
    },
    updateInvoice: (invoice) => update(db, s.updateInvoice, invoiceColumns.params(invoice), () => `invoice ${invoice.id}`),
    insertAddress: (a) => insert(db, s.insertAddress, addressColumns.params(a), () => `address ${a.address} on ${a.network} (${a.mode})`),
    updateAddress: (a) => update(db, s.updateAddress, addressColumns.params(a), () => `address ${a.address} on ${a.network} (${a.mode})`),
    lockDeposit: async (mode, network, txHash, outputIndex) => {
      const row = (await db.query(s.lockDeposit, [mode, network, txHash, outputIndex])).rows[0];
      return row === undefined ? null : depositColumns.read(row);
    },
    insertDeposit: (d) =>
      insert(db, s.insertDeposit, depositColumns.params(d), () => `deposit ${d.id} or ${d.txHash}:${d.outputIndex} on ${d.network} (${d.mode})`),
    updateDeposit: async (deposit) => {
      if ((await db.query(s.updateDeposit, depositColumns.params(deposit))).rowCount > 0) return;
      // Nothing updated: either no such deposit, or its new chain identity belongs to another.
      if ((await db.query(s.depositExists, [deposit.id])).rowCount === 0) missing(`deposit ${deposit.id}`);
      conflict(`deposit ${deposit.txHash}:${deposit.outputIndex}`);
    },
    postLedgerEntries: (entries, options) => postLedgerEntries(db, s, entries, options),
    insertPayout: (payout) => insert(db, s.insertPayout, payoutColumns.params(payout), () => `payout ${payout.id}`),
    lockPayout: async (id) => {
      const row = (await db.query(s.lockPayout, [id])).rows[0];
      return row === undefined ? null : payoutColumns.read(row);
    },
    updatePayout: (payout) => update(db, s.updatePayout, payoutColumns.params(payout), () => `payout ${payout.id}`),
    insertExchange: (exchange) => insert(db, s.insertExchange, exchangeColumns.params(exchange), () => `exchange ${exchange.id}`),
    insertUnlistedTransfer: async (transfer) => (await db.query(s.insertUnlistedTransfer, unlistedTransferColumns.params(transfer))).rowCount > 0,
    // Appends (no key to collide on) are deferred: they travel with the next statement.
    appendEvents: async (events) => deferRows(db, s.insertEvent, s.insertEvents, events.map(eventColumns.params)),
    insertPaymentLink: (link) => insert(db, s.insertPaymentLink, paymentLinkColumns.params(link), () => `payment link ${link.id}`),
    lockPaymentLink: async (id) => {
      const row = (await db.query(s.lockPaymentLink, [id])).rows[0];
      return row === undefined ? null : paymentLinkColumns.read(row);
    },
    updatePaymentLink: (link) => update(db, s.updatePaymentLink, paymentLinkColumns.params(link), () => `payment link ${link.id}`),
    claimIdempotencyKey: async (record, leaseMs) => {
      const key = [record.merchantId, record.mode, record.key];
      // A live record that is deleted between the two statements (its request failed and was
      // forgotten) leaves the key free again: claim once more.
      for (;;) {
        if ((await db.query(s.claimIdempotencyKey, [...idempotencyColumns.params(record), leaseMs])).rowCount > 0) return null;
        const row = (await db.query(s.getIdempotencyKey, key)).rows[0];
        if (row !== undefined) return idempotencyColumns.read(row);
      }
    },
    completeIdempotencyKey: async (scope, key, leaseToken, responseStatus, responseBody) =>
      (await db.query(s.completeIdempotencyKey, [scope.merchantId, scope.mode, key, leaseToken, responseStatus, responseBody])).rowCount > 0,
    deleteIdempotencyKey: async (scope, key, leaseToken) => void (await db.query(s.deleteIdempotencyKey, [scope.merchantId, scope.mode, key, leaseToken])),
    deleteExpiredIdempotencyKeys: async (now, limit) => (limit <= 0 ? 0 : (await db.query(s.deleteExpiredIdempotencyKeys, [now, limit])).rowCount),
    setCursor: async (key, value) => void (await db.query(s.setCursor, [key, value])),
    // Two statements, both awaited (never deferred, never merged): a statement reads the snapshot
    // taken when it started, so a read in the statement that waited for the lock would miss what
    // the previous holder committed meanwhile. Under READ COMMITTED the second one sees it.
    lockCursor: async (key) => {
      await db.query(s.lockCursorName, [key]);
      const row = (await db.query(s.getCursor, [key])).rows[0];
      return row === undefined ? null : (row.value as string);
    },
    insertWebhookEndpoint: (endpoint) => insert(db, s.insertWebhookEndpoint, endpointColumns.params(endpoint), () => `webhook endpoint ${endpoint.id}`),
    lockWebhookEndpoint: async (id) => {
      const row = (await db.query(s.lockWebhookEndpoint, [id])).rows[0];
      return row === undefined ? null : endpointColumns.read(row);
    },
    updateWebhookEndpoint: (endpoint) => update(db, s.updateWebhookEndpoint, endpointColumns.params(endpoint), () => `webhook endpoint ${endpoint.id}`),
    deleteWebhookEndpoint: async (id) => (await db.query(s.deleteWebhookEndpoint, [id])).rowCount > 0,
    insertWebhookDeliveries: async (deliveries) => {
      if (deliveries.length === 0) return;
      if (deliveries.length === 1) {
        const d = deliveries[0]!;
        return insert(db, s.insertWebhookDelivery, deliveryColumns.params(d), () => `webhook delivery ${d.id}`);
      }
      const inserted = (await db.query(s.insertWebhookDeliveries, deliveryColumns.paramArrays(deliveries))).rowCount;
      if (inserted < deliveries.length) conflict(`one of the webhook deliveries ${deliveries.map((d) => d.id).join(", ")}`);
    },
    // Deferred like the appends: the endpoints are matched in the statement, nothing is read back.
    queueWebhookDeliveries: async (events, now) =>
      deferRows(
        db,
        s.queueWebhookDelivery,
        s.queueWebhookDeliveries,
        events.map((e) => [e.id, e.merchantId, e.mode, e.type, payloadOf(e)]),
        [now],
      ),
    lockWebhookDelivery: async (id) => {
      const row = (await db.query(s.lockWebhookDelivery, [id])).rows[0];
      return row === undefined ? null : deliveryColumns.read(row);
    },
    updateWebhookDelivery: (delivery) => update(db, s.updateWebhookDelivery, deliveryColumns.params(delivery), () => `webhook delivery ${delivery.id}`),
    insertWebhookAttempt: async (a) => db.defer(s.insertWebhookAttempt, attemptColumns.params(a)),
    // Deferred: alone in its unit of work, it is one statement sent without BEGIN and COMMIT.
    recordWebhookAttempt: async (attempt, heldUntil, outcome) => db.defer(s.recordWebhookAttempt, recordAttemptParams(attempt, heldUntil, outcome)),
    claimWebhookDeliveries: async (now, limit, leaseMs, perEndpoint) => {
      if (limit <= 0 || perEndpoint <= 0) return [];
      const { rows } = await db.query(s.claimWebhookDeliveries, [now, limit, now + leaseMs, perEndpoint]);
      // RETURNING has no order: by turn, then earliest due, then insertion order, as the contract says.
      const n = bigintNumber.read;
      return rows.sort((a, b) => n(a.turn) - n(b.turn) || n(a.next_attempt_at) - n(b.next_attempt_at) || n(a.seq) - n(b.seq)).map(deliveryColumns.read);
    },
    failPendingWebhookDeliveries: async (endpointId, error, now) => (await db.query(s.failPendingWebhookDeliveries, [endpointId, error, now])).rowCount,
    ...sqlAllowlistWrites(db, s),
    ...sqlSubscriptionWrites(db, s),
  };
}
