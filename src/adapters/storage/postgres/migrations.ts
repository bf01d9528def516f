import type { SqlClient } from "./sql-client";
import { MONEY_CONTROLS_MIGRATIONS } from "./migrations-money-controls";
import { SEARCH_MIGRATIONS } from "./migrations-search";
import { REFUND_CLAIM_MIGRATIONS } from "./migrations-refund-claims";
import { SUBSCRIPTION_MIGRATIONS } from "./migrations-subscriptions";
import { FEED_MIGRATIONS } from "./migrations-feed";
import { PAYOUT_PENDING_MIGRATIONS } from "./migrations-payout-pending";

/** One step of the schema: applied once, in order, recorded in `schema_migrations`. */
export interface Migration {
  version: number;
  name: string;
  /** Statements run with the adapter's schema first on the search_path (names unqualified). */
  sql: string;
}

/**
 * The schema, as an ordered list of steps. Never edit a released step: add the next one.
 *
 * Choices that hold the money invariants in the database itself, whatever the code above does:
 * - amounts are `numeric(78,0)` (whole smallest units, up to 2^256), never floating point;
 * - times are epoch milliseconds in `bigint`;
 * - a deposit's chain identity (mode, network, tx_hash, output_index) is unique, so is a
 *   ledger entry's `cause_key` (a cause is credited or debited once), an API key's hash, and
 *   an idempotency key per (merchant, mode);
 * - a balance row could not go below zero (a CHECK, until step 7: a credit taken back after a
 *   deep reorg may overdraw it; ordinary debits still test the balance in the statement);
 * - `seq` (bigserial) keeps insertion order where the contract lists "in the order stored";
 * - ids and symbols compare bytewise (COLLATE "C"), like JavaScript string comparison, so
 *   (createdAt, id) cursors page the same way on every engine.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial schema",
    sql: `
CREATE TABLE merchants (
  id text COLLATE "C" PRIMARY KEY,
  name text NOT NULL,
  created_at bigint NOT NULL
);

CREATE TABLE api_keys (
  seq bigserial NOT NULL,
  id text COLLATE "C" PRIMARY KEY,
  merchant_id text COLLATE "C" NOT NULL,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  hash text COLLATE "C" NOT NULL UNIQUE,
  prefix text NOT NULL,
  created_at bigint NOT NULL,
  revoked_at bigint
);
CREATE INDEX api_keys_by_merchant ON api_keys (merchant_id, created_at, seq);

CREATE TABLE invoices (
  id text COLLATE "C" PRIMARY KEY,
  merchant_id text COLLATE "C" NOT NULL,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  status text NOT NULL,
  amount numeric(78,0) NOT NULL,
  amount_currency text NOT NULL,
  accepted_coins json,
  coin text,
  network text,
  address text,
  rate numeric(78,0),
  pay_amount numeric(78,0),
  fee_paid_by_payer boolean NOT NULL,
  under_paid_cover_tenths integer NOT NULL,
  is_white_label boolean NOT NULL,
  return_url text,
  payment_url text NOT NULL,
  metadata json,
  received_amount numeric(78,0) NOT NULL,
  tx_hash text,
  late boolean NOT NULL,
  failure_reason text,
  expires_at bigint NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX invoices_by_scope ON invoices (merchant_id, mode, created_at DESC, id DESC);
CREATE INDEX invoices_expiring ON invoices (mode, expires_at) WHERE status IN ('PENDING', 'UNDER_PAID');

CREATE TABLE addresses (
  mode text NOT NULL,
  network text COLLATE "C" NOT NULL,
  address text COLLATE "C" NOT NULL,
  coin text NOT NULL,
  merchant_id text COLLATE "C" NOT NULL,
  invoice_id text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (mode, network, address)
);

CREATE TABLE deposits (
  seq bigserial NOT NULL,
  id text COLLATE "C" PRIMARY KEY,
  merchant_id text COLLATE "C" NOT NULL,
  mode text NOT NULL,
  invoice_id text COLLATE "C" NOT NULL,
  coin text NOT NULL,
  network text COLLATE "C" NOT NULL,
  address text NOT NULL,
  tx_hash text COLLATE "C" NOT NULL,
  output_index integer NOT NULL,
  amount numeric(78,0) NOT NULL,
  confirmations integer NOT NULL,
  status text NOT NULL,
  counts_toward_invoice boolean NOT NULL,
  fee numeric(78,0) NOT NULL,
  credited_at bigint,
  seen_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT deposits_chain_identity UNIQUE (mode, network, tx_hash, output_index)
);
CREATE INDEX deposits_by_invoice ON deposits (invoice_id, seq);

CREATE TABLE ledger_entries (
  seq bigserial PRIMARY KEY,
  id text COLLATE "C" NOT NULL UNIQUE,
  merchant_id text COLLATE "C" NOT NULL,
  mode text NOT NULL,
  asset text COLLATE "C" NOT NULL,
  amount numeric(78,0) NOT NULL,
  kind text NOT NULL,
  cause_key text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  CONSTRAINT ledger_entries_cause_once UNIQUE (cause_key)
);
CREATE INDEX ledger_entries_by_scope ON ledger_entries (merchant_id, mode, seq);

CREATE TABLE balances (
  merchant_id text COLLATE "C" NOT NULL,
  mode text NOT NULL,
  asset text COLLATE "C" NOT NULL,
  amount numeric(78,0) NOT NULL CONSTRAINT balances_never_negative CHECK (amount >= 0),
  updated_at bigint NOT NULL,
  PRIMARY KEY (merchant_id, mode, asset)
);

CREATE TABLE payouts (
  id text COLLATE "C" PRIMARY KEY,
  merchant_id text COLLATE "C" NOT NULL,
  mode text NOT NULL,
  status text NOT NULL,
  coin text NOT NULL,
  network text NOT NULL,
  address text NOT NULL,
  amount numeric(78,0) NOT NULL,
  fee numeric(78,0) NOT NULL,
  tx_hash text,
  failure_reason text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX payouts_by_status ON payouts (mode, status, created_at, id);
CREATE INDEX payouts_by_scope ON payouts (merchant_id, mode, created_at DESC, id DESC);

CREATE TABLE exchanges (
  id text COLLATE "C" PRIMARY KEY,
  merchant_id text COLLATE "C" NOT NULL,
  mode text NOT NULL,
  status text NOT NULL,
  from_coin text NOT NULL,
  to_coin text NOT NULL,
  amount numeric(78,0) NOT NULL,
  rate numeric(78,0) NOT NULL,
  to_amount numeric(78,0) NOT NULL,
  created_at bigint NOT NULL
);
CREATE INDEX exchanges_by_scope ON exchanges (merchant_id, mode, created_at DESC, id DESC);

CREATE TABLE events (
  seq bigserial PRIMARY KEY,
  id text COLLATE "C" NOT NULL,
  merchant_id text COLLATE "C" NOT NULL,
  mode text NOT NULL,
  type text NOT NULL,
  invoice_id text COLLATE "C" NOT NULL,
  data json NOT NULL,
  created_at bigint NOT NULL
);
CREATE INDEX events_by_scope ON events (merchant_id, mode, seq);
CREATE INDEX events_by_invoice ON events (invoice_id, seq);

CREATE TABLE cursors (
  key text COLLATE "C" PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE webhook_endpoints (
  id text COLLATE "C" PRIMARY KEY,
  merchant_id text COLLATE "C" NOT NULL,
  mode text NOT NULL,
  url text NOT NULL,
  events json,
  secrets json NOT NULL,
  status text NOT NULL,
  disabled_reason text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX webhook_endpoints_by_scope ON webhook_endpoints (merchant_id, mode, created_at, id);

CREATE TABLE webhook_deliveries (
  seq bigserial NOT NULL UNIQUE,
  id text COLLATE "C" PRIMARY KEY,
  merchant_id text COLLATE "C" NOT NULL,
  mode text NOT NULL,
  endpoint_id text COLLATE "C" NOT NULL,
  event_id text COLLATE "C" NOT NULL,
  event_type text NOT NULL,
  payload text NOT NULL,
  status text NOT NULL,
  attempts integer NOT NULL,
  next_attempt_at bigint,
  lease_until bigint,
  last_status_code integer,
  last_error text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (merchant_id, mode, seq DESC);
CREATE INDEX webhook_deliveries_queue ON webhook_deliveries (endpoint_id, seq) WHERE status = 'pending';

CREATE TABLE webhook_attempts (
  seq bigserial PRIMARY KEY,
  id text COLLATE "C" NOT NULL,
  delivery_id text COLLATE "C" NOT NULL,
  at bigint NOT NULL,
  status_code integer,
  duration_ms integer NOT NULL,
  error text
);
CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts (delivery_id, seq);
`,
  },
  {
    version: 2,
    name: "v1 API: settlement currency, refunds, auto-conversions, payment links, idempotency keys",
    sql: `
ALTER TABLE merchants ADD COLUMN settle_currency text;
ALTER TABLE invoices ADD COLUMN settle_currency text, ADD COLUMN payment_link_id text COLLATE "C";
ALTER TABLE payouts ADD COLUMN refund_of text COLLATE "C";
ALTER TABLE exchanges ADD COLUMN invoice_id text COLLATE "C";
CREATE INDEX payouts_refunds ON payouts (refund_of, created_at, id) WHERE refund_of IS NOT NULL;
CREATE INDEX deposits_pending ON deposits (merchant_id, mode) WHERE status = 'PENDING';

CREATE TABLE payment_links (
  id text COLLATE "C" PRIMARY KEY,
  merchant_id text COLLATE "C" NOT NULL,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  amount numeric(78,0) NOT NULL,
  amount_currency text NOT NULL,
  accepted_coins json,
  fee_paid_by_payer boolean NOT NULL,
  under_paid_cover_tenths integer NOT NULL,
  life_time_minutes integer NOT NULL,
  return_url text,
  metadata json,
  settle_currency text,
  active boolean NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX payment_links_by_scope ON payment_links (merchant_id, mode, created_at DESC, id DESC);

CREATE TABLE idempotency_keys (
  merchant_id text COLLATE "C" NOT NULL,
  mode text NOT NULL,
  key text COLLATE "C" NOT NULL,
  request_hash text NOT NULL,
  state text NOT NULL,
  response_status integer,
  response_body text,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  CONSTRAINT idempotency_key_once PRIMARY KEY (merchant_id, mode, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
`,
  },
  {
    version: 3,
    name: "invoices: observation time and sources of the locked rate",
    sql: `
ALTER TABLE invoices ADD COLUMN rate_at bigint, ADD COLUMN rate_sources json;
`,
  },
  {
    version: 4,
    name: "idempotency keys: a lease on the database clock, held by one request at a time",
    sql: `
ALTER TABLE idempotency_keys ADD COLUMN lease_token text, ADD COLUMN lease_until timestamptz;
`,
  },
  {
    version: 5,
    name: "webhook deliveries: each on its own schedule, several in flight per endpoint",
    // The claim walks the endpoints with pending deliveries and, for each, counts its leases and
    // takes its earliest due: two index probes per endpoint, however long its backlog.
    sql: `
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (endpoint_id, next_attempt_at, seq) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (endpoint_id, lease_until) WHERE status = 'pending' AND lease_until IS NOT NULL;
DROP INDEX webhook_deliveries_queue;
`,
  },
  {
    version: 6,
    name: "unlisted-token transfers to issued addresses, kept for the operator",
    sql: `
CREATE TABLE unlisted_transfers (
  seq bigserial PRIMARY KEY,
  id text COLLATE "C" NOT NULL UNIQUE,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  network text COLLATE "C" NOT NULL,
  token text NOT NULL,
  address text NOT NULL,
  tx_hash text COLLATE "C" NOT NULL,
  log_index integer NOT NULL,
  amount numeric(78,0) NOT NULL,
  block_number bigint NOT NULL,
  merchant_id text COLLATE "C" NOT NULL,
  invoice_id text COLLATE "C" NOT NULL,
  coin text NOT NULL,
  seen_at bigint NOT NULL,
  CONSTRAINT unlisted_transfers_chain_identity UNIQUE (mode, network, tx_hash, log_index)
);
CREATE INDEX unlisted_transfers_by_mode ON unlisted_transfers (mode, seq);
`,
  },
  {
    version: 7,
    name: "deposits: reversals after deep reorgs, what each credit put on the balance; balances may go below zero",
    // A deposit credited before this step credited its net amount in its own coin, unless the
    // credit was auto-converted in the same transaction: then the conversion of its invoice with
    // the same amount and time holds what the balance received.
    sql: `
ALTER TABLE balances DROP CONSTRAINT balances_never_negative;
ALTER TABLE invoices ADD COLUMN reversed_amount numeric(78,0) NOT NULL DEFAULT 0;
ALTER TABLE deposits ADD COLUMN credited_asset text, ADD COLUMN credited_amount numeric(78,0) NOT NULL DEFAULT 0,
  ADD COLUMN reversals integer NOT NULL DEFAULT 0;
UPDATE deposits SET credited_asset = coin, credited_amount = amount - fee WHERE credited_at IS NOT NULL;
UPDATE deposits d SET credited_asset = e.to_coin, credited_amount = e.to_amount FROM exchanges e
  WHERE d.credited_at IS NOT NULL AND e.invoice_id = d.invoice_id AND e.from_coin = d.coin AND e.amount = d.amount - d.fee AND e.created_at = d.credited_at;
CREATE INDEX deposits_notable ON deposits (mode, seq) WHERE reversals > 0 OR NOT counts_toward_invoice;
ALTER TABLE payouts ADD COLUMN refund_deposit_id text COLLATE "C";
`,
  },
  {
    version: 8,
    name: "webhook deliveries: the backlog across merchants (due, oldest due, failing endpoints) from indexes",
    // Both index pending deliveries only; the second only those that failed an attempt, so it
    // stays small while receivers answer.
    sql: `
CREATE INDEX webhook_deliveries_pending_due ON webhook_deliveries (next_attempt_at, lease_until) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_retrying ON webhook_deliveries (endpoint_id) WHERE status = 'pending' AND attempts > 0;
`,
  },
  {
    version: 9,
    name: "exports: each exported table by its time across merchants, for keyset-paged date ranges",
    // An export walks a date range of every merchant (or of one, or of one mode) in (time, id)
    // order, a page at a time: each page continues this index from the last (time, id), so the
    // whole walk reads the range once. Merchant and mode are filters on it (the scope indexes
    // serve one merchant in one mode too).
    sql: `
CREATE INDEX invoices_by_created ON invoices (created_at, id);
CREATE INDEX deposits_by_seen ON deposits (seen_at, id);
CREATE INDEX payouts_by_created ON payouts (created_at, id);
CREATE INDEX exchanges_by_created ON exchanges (created_at, id);
CREATE INDEX ledger_entries_by_created ON ledger_entries (created_at, id);
`,
  },
  ...MONEY_CONTROLS_MIGRATIONS,
  ...SEARCH_MIGRATIONS,
  ...REFUND_CLAIM_MIGRATIONS,
  ...SUBSCRIPTION_MIGRATIONS,
  ...FEED_MIGRATIONS,
  ...PAYOUT_PENDING_MIGRATIONS,
];

/** Quotes an identifier for SQL ("my schema" -> "\"my schema\""). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Arbitrary constant for the first half of the advisory lock key: "ecp" in ASCII. */
const LOCK_CLASS = 0x656370;

/**
 * Brings the schema up to date. Safe when several instances start at once: the whole check and
 * every step run in one transaction under a transaction-scoped advisory lock on the schema's
 * name, so one instance migrates and the others, once they get the lock, find nothing to do.
 * A database migrated further by a newer version is left alone (steps only ever add).
 */
export async function migrate(client: SqlClient, schema: string | undefined, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  return client.transaction(async (sql) => {
    const target = schema ?? ((await sql.query("SELECT current_schema() AS name")).rows[0]?.name as string | null);
    if (!target) throw new Error("postgresStorage: the connection has no current schema (empty search_path); pass the `schema` option");
    await sql.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [LOCK_CLASS, target]);
    if (schema !== undefined) {
      const exists = await sql.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
      if (exists.rowCount === 0) await sql.exec(`CREATE SCHEMA ${quoteIdent(schema)}`);
    }
    // Unqualified names below land in `target`, for this transaction only.
    await sql.exec(`SET LOCAL search_path TO ${quoteIdent(target)}`);
    await sql.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const done = new Set((await sql.query("SELECT version FROM schema_migrations")).rows.map((row) => Number(row.version)));
    const applied: number[] = [];
    for (const step of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(step.version)) continue;
      await sql.exec(step.sql);
      await sql.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [step.version, step.name]);
      applied.push(step.version);
    }
    return applied;
  });
}
