/**
 * Step 10: money controls. Payouts held for approval (statuses AWAITING_APPROVAL and REJECTED
 * need no change: `status` is free text) record who asked and who decided; a merchant may have
 * its own approval threshold; the audit log records approvals, rejections and API keys issued
 * or revoked, appended in the transaction of the change.
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
];
