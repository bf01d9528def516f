/**
 * Step 14: subscriptions. A subscription is a schedule of invoices, one per billing period; the
 * periods table holds one row per (subscription, period index) that has its invoice, and its
 * primary key is what keeps that to exactly one across every instance sharing the database: the
 * period row is inserted in the transaction that stores the invoice, and an instance that finds
 * the row there rolls its invoice back. It depends on no step after 12.
 */
// Typed by shape, not by importing `Migration`: migrations.ts imports this file.
export const SUBSCRIPTION_MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 14,
    name: "subscriptions: subscriptions and their billing periods, one invoice per period",
    sql: `
CREATE TABLE subscriptions (
  id text COLLATE "C" PRIMARY KEY,
  merchant_id text COLLATE "C" NOT NULL,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  customer text COLLATE "C" NOT NULL,
  status text NOT NULL,
  amount numeric(78,0) NOT NULL,
  amount_currency text NOT NULL,
  accepted_coins json,
  interval_unit text NOT NULL,
  interval_count integer NOT NULL,
  start_at bigint NOT NULL,
  anchor_at bigint NOT NULL,
  trial_end bigint,
  grace_period_days integer NOT NULL,
  renew_before_days integer NOT NULL,
  payer_can_cancel boolean NOT NULL,
  cancel_at_period_end boolean NOT NULL,
  current_period integer NOT NULL,
  invoiced_through integer NOT NULL,
  paid_through integer NOT NULL,
  open_invoice_id text COLLATE "C",
  cancelled_at bigint,
  cancellation_reason text,
  metadata json,
  payment_url_prefix text NOT NULL,
  payer_token_hash text COLLATE "C" NOT NULL UNIQUE,
  next_run_at bigint NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX subscriptions_by_scope ON subscriptions (merchant_id, mode, created_at DESC, id DESC);
CREATE INDEX subscriptions_due ON subscriptions (mode, next_run_at, id) WHERE status <> 'cancelled';
CREATE TABLE subscription_periods (
  subscription_id text COLLATE "C" NOT NULL,
  period_index integer NOT NULL,
  merchant_id text COLLATE "C" NOT NULL,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  period_start bigint NOT NULL,
  period_end bigint NOT NULL,
  invoice_id text COLLATE "C" NOT NULL,
  amount numeric(78,0) NOT NULL,
  amount_currency text NOT NULL,
  paid_at bigint,
  created_at bigint NOT NULL,
  PRIMARY KEY (subscription_id, period_index)
);
`,
  },
];
