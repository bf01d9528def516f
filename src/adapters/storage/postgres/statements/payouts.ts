import type { ExchangeRecord } from "../../../../core/exchanges/records";
import type { PayoutRecord } from "../../../../core/payouts/records";
import { col, columns, epochMs, numeric, textOrNull } from "./columns";
import { refundClaimColumn } from "./refund-claim-column";
import { sql } from "./sql";
import type { Tables } from "./tables";

/** The columns of `payouts` (refunds are payouts with `refund_of` set). */
export const payoutColumns = columns<PayoutRecord>({
  id: col("id"),
  merchantId: col("merchant_id"),
  mode: col("mode"),
  status: col("status"),
  coin: col("coin"),
  network: col("network"),
  address: col("address"),
  amount: col("amount", numeric),
  fee: col("fee", numeric),
  txHash: col("tx_hash", textOrNull),
  failureReason: col("failure_reason", textOrNull),
  createdAt: col("created_at", epochMs),
  updatedAt: col("updated_at", epochMs),
  refundOf: col("refund_of", textOrNull),
  refundDepositId: col("refund_deposit_id", textOrNull),
  requestedBy: col("requested_by", textOrNull),
  reviewedBy: col("reviewed_by", textOrNull),
  claim: col("claim", refundClaimColumn),
  pendingReason: col("pending_reason", textOrNull),
});

/** The columns of `exchanges`. */
export const exchangeColumns = columns<ExchangeRecord>({
  id: col("id"),
  merchantId: col("merchant_id"),
  mode: col("mode"),
  status: col("status"),
  fromCoin: col("from_coin"),
  toCoin: col("to_coin"),
  amount: col("amount", numeric),
  rate: col("rate", numeric),
  toAmount: col("to_amount", numeric),
  createdAt: col("created_at", epochMs),
  invoiceId: col("invoice_id", textOrNull),
});

/** Payouts, refunds and exchanges (their pages: `pagedQuery`). */
export function payoutStatements(t: Tables) {
  return {
    getPayout: sql`
      SELECT ${payoutColumns.list}
      FROM ${t.payouts}
      WHERE id = $1
    `,
    // Params: mode, status, limit.
    listPayoutsByStatus: sql`
      SELECT ${payoutColumns.list}
      FROM ${t.payouts}
      WHERE mode = $1 AND status = $2
      ORDER BY created_at, id
      LIMIT $3
    `,
    // The same, after the payout $4. An `after` that names no payout pages from the start, as if none was given.
    listPayoutsByStatusAfter: sql`
      WITH last AS (
        SELECT created_at, id FROM ${t.payouts} WHERE id = $4
      )
      SELECT ${payoutColumns.list}
      FROM ${t.payouts} p
      WHERE p.mode = $1 AND p.status = $2
        AND (NOT EXISTS (SELECT 1 FROM last) OR (p.created_at, p.id) > (SELECT created_at, id FROM last))
      ORDER BY p.created_at, p.id
      LIMIT $3
    `,
    listRefunds: sql`
      SELECT ${payoutColumns.list}
      FROM ${t.payouts}
      WHERE refund_of = $1
      ORDER BY created_at, id
    `,
    insertPayout: sql`
      INSERT INTO ${t.payouts} (${payoutColumns.list})
      VALUES (${payoutColumns.values})
      ON CONFLICT DO NOTHING
      RETURNING 1
    `,
    lockPayout: sql`
      SELECT ${payoutColumns.list}
      FROM ${t.payouts}
      WHERE id = $1
      FOR UPDATE
    `,
    updatePayout: sql`
      UPDATE ${t.payouts}
      SET ${payoutColumns.assignments}
      WHERE ${payoutColumns.keyMatch}
    `,

    getExchange: sql`
      SELECT ${exchangeColumns.list}
      FROM ${t.exchanges}
      WHERE id = $1
    `,
    insertExchange: sql`
      INSERT INTO ${t.exchanges} (${exchangeColumns.list})
      VALUES (${exchangeColumns.values})
      ON CONFLICT DO NOTHING
      RETURNING 1
    `,
  };
}
