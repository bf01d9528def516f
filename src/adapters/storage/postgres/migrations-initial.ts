// Step 1 of the PostgreSQL schema: the tables and indexes the first release created.
/** Step 1: the initial schema (merchants, keys, invoices, addresses, deposits, the ledger, payouts, webhooks); the invariants it holds are listed on `MIGRATIONS`. */
// Typed by shape, not by importing `Migration`: migrations.ts imports this file.
export const INITIAL_MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
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
];
