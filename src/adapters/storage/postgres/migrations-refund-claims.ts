/**
 * Step 13: refund claim links. A refund made without an address is a payout AWAITING_CLAIM whose
 * terms (the hash of the link's secret, its expiry, the networks the payer may choose, a fiat
 * amount, what was held) are one `json` column: they are read and written with the payout,
 * never searched (the link names its payout, whose secret is then compared), and the expiry
 * round reads AWAITING_CLAIM payouts by the existing status index. The new statuses
 * (AWAITING_CLAIM, CANCELLED, EXPIRED) need no change: `status` is free text.
 */
// Typed by shape, not by importing `Migration`: migrations.ts imports this file.
export const REFUND_CLAIM_MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 13,
    name: "refund claim links: the claim terms of a refund made without an address",
    sql: `
ALTER TABLE payouts ADD COLUMN claim json;
`,
  },
];
