// Steps 2 to 9 of the PostgreSQL schema: the v1 API and the follow-ups before money controls.
/** Steps 2 to 9: the v1 API's tables and columns, then rate sources, idempotency leases, delivery schedules, unlisted transfers, reorg reversals and the backlog and export indexes. */
// Typed by shape, not by importing `Migration`: migrations.ts imports this file.
export const V1_API_MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
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
];
