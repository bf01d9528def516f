import { quoteIdent } from "../migrations";

/** The adapter's tables, by what they hold: their names as statements write them. */
export type Tables = ReturnType<typeof tableNames>;

/** The table names of a schema (qualified by it when one is given, else resolved by the connection's search_path). */
export function tableNames(schema: string | undefined) {
  const q = (table: string) => (schema === undefined ? table : `${quoteIdent(schema)}.${table}`);
  return {
    merchants: q("merchants"),
    apiKeys: q("api_keys"),
    invoices: q("invoices"),
    addresses: q("addresses"),
    deposits: q("deposits"),
    ledger: q("ledger_entries"),
    balances: q("balances"),
    payouts: q("payouts"),
    exchanges: q("exchanges"),
    events: q("events"),
    cursors: q("cursors"),
    endpoints: q("webhook_endpoints"),
    deliveries: q("webhook_deliveries"),
    attempts: q("webhook_attempts"),
    endpointOutcomes: q("webhook_endpoint_outcomes"),
    paymentLinks: q("payment_links"),
    idempotency: q("idempotency_keys"),
    unlisted: q("unlisted_transfers"),
    auditLog: q("audit_log"),
    payoutAddresses: q("payout_addresses"),
    subscriptions: q("subscriptions"),
    subscriptionPeriods: q("subscription_periods"),
  };
}
