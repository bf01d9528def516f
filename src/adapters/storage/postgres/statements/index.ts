import { allowlistStatements } from "./allowlist";
import { auditLogStatements } from "./audit-log";
import { cursorStatements } from "./cursors";
import { depositStatements } from "./deposits";
import { eventStatements } from "./events";
import { idempotencyStatements } from "./idempotency";
import { invoiceStatements } from "./invoices";
import { ledgerStatements } from "./ledger";
import { merchantStatements } from "./merchants";
import { operatorListStatements } from "./operator-lists";
import { paymentLinkStatements } from "./payment-links";
import { payoutStatements } from "./payouts";
import { reconcileStatements } from "./reconcile";
import { subscriptionStatements } from "./subscriptions";
import { tableNames } from "./tables";
import { webhookBacklog } from "./webhook-backlog";
import { claimWebhookDeliveries } from "./webhook-claim";
import { webhookDeliveryStatements } from "./webhook-deliveries";
import { webhookEndpointStatements } from "./webhook-endpoints";

/**
 * Every statement the adapter sends, built once per adapter with its schema's table names, each
 * in the file of its aggregate, with the column table of its records.
 *
 * - Explicit column lists everywhere (never `*`): a prepared statement's result shape then never
 *   changes under it when a later migration adds a column.
 * - A record of a scope is read by its id alone and its scope checked by the caller: the primary
 *   key is then the only index the query can use, so the plan is right even before the planner
 *   has statistics (PGlite runs no autovacuum to gather them).
 * - Inserts use ON CONFLICT DO NOTHING and report a conflict by returning no row: a unique
 *   violation would abort the whole transaction, while the contract only has the one call throw
 *   (the work may catch that and go on, as it can on every other adapter).
 * - Statements that take a record take its parameters in its column table's order (`params`).
 */
export function buildStatements(schema: string | undefined) {
  const t = tableNames(schema);
  return {
    tables: t,
    ...merchantStatements(t),
    ...invoiceStatements(t),
    ...paymentLinkStatements(t),
    ...depositStatements(t),
    ...ledgerStatements(t),
    ...payoutStatements(t),
    ...eventStatements(t),
    ...webhookEndpointStatements(t),
    ...webhookDeliveryStatements(t),
    claimWebhookDeliveries: claimWebhookDeliveries(t),
    webhookBacklog: webhookBacklog(t),
    ...idempotencyStatements(t),
    ...cursorStatements(t, schema),
    ...operatorListStatements(t),
    ...reconcileStatements(t),
    ...auditLogStatements(t),
    ...allowlistStatements(t),
    ...subscriptionStatements(t),
  };
}

/** The statements of one adapter. */
export type Statements = ReturnType<typeof buildStatements>;
