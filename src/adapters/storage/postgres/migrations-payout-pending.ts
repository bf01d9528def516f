/**
 * Step 18: why a payout waits. A PROCESSING payout the chain could not send yet (its node down,
 * the hot wallet's coins still locked) keeps the chain's last refusal in `pending_reason`, shown
 * on its withdrawal or refund and in health; null once it is sent. It depends on no step after 13.
 */
// Typed by shape, not by importing `Migration`: migrations.ts imports this file.
export const PAYOUT_PENDING_MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 18,
    name: "payouts: pending_reason, why a payout has no transaction yet",
    sql: `
ALTER TABLE payouts ADD COLUMN pending_reason text;
`,
  },
];
