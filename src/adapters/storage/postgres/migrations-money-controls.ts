/**
 * Steps 10 and 11: money controls.
 *
 * Step 10: payouts held for approval (statuses AWAITING_APPROVAL and REJECTED need no change:
 * `status` is free text) record who asked and who decided; a merchant may have its own
 * approval threshold; the audit log records approvals, rejections and API keys issued
 * or revoked, appended in the transaction of the change.
 *
 * Step 11: the payout allowlist. A merchant turns it on (`payout_allowlist`); its addresses are
 * one row each, unique per merchant, mode, network and comparison form (`address_key`); the
 * audit log also records merchant settings, which have no mode.
 */
// Typed by shape, not by importing `Migration`: migrations.ts imports this file.
export const MONEY_CONTROLS_MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 10,
    name: "money controls: payout approval (requested_by, reviewed_by, merchant threshold) and the audit log",
    sql: `
ALTER TABLE payouts ADD COLUMN requested_by text COLLATE "C";
ALTER TABLE payouts ADD COLUMN reviewed_by text COLLATE "C";
ALTER TABLE merchants ADD COLUMN payout_approval json;
CREATE TABLE audit_log (
  id text COLLATE "C" PRIMARY KEY,
  actor text NOT NULL,
  action text NOT NULL,
  record_id text COLLATE "C" NOT NULL,
  merchant_id text COLLATE "C" NOT NULL,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  at bigint NOT NULL
);
CREATE INDEX audit_log_newest ON audit_log (at DESC, id DESC);
CREATE INDEX audit_log_by_merchant ON audit_log (merchant_id, at DESC, id DESC);
`,
  },
  {
    version: 11,
    name: "money controls: the payout allowlist (merchant switch, addresses) and merchant settings in the audit log",
    sql: `
ALTER TABLE merchants ADD COLUMN payout_allowlist boolean NOT NULL DEFAULT false;
ALTER TABLE audit_log ALTER COLUMN mode DROP NOT NULL;
CREATE TABLE payout_addresses (
  id text COLLATE "C" PRIMARY KEY,
  merchant_id text COLLATE "C" NOT NULL,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  network text COLLATE "C" NOT NULL,
  address text NOT NULL,
  address_key text COLLATE "C" NOT NULL,
  label text,
  proposed_by text NOT NULL,
  approved_by text,
  approved_at bigint,
  usable_at bigint,
  created_at bigint NOT NULL,
  UNIQUE (merchant_id, mode, network, address_key)
);
CREATE INDEX payout_addresses_by_merchant ON payout_addresses (merchant_id, created_at, id);
`,
  },
];
