import { sql } from "./sql";
import type { Tables } from "./tables";

/**
 * Aggregate reads for reconciliation, each one statement summing a whole mode's records into a
 * few rows (no row lock: plain reads see the last committed state). Param: mode.
 */
export function reconcileStatements(t: Tables) {
  return {
    // Stray: a coin other than the invoice's (an invoice that has none counts as other).
    depositTotals: sql`
      SELECT d.network, d.coin, d.status, (i.coin IS DISTINCT FROM d.coin) AS stray, count(*)::int AS count, sum(d.amount) AS amount, sum(d.fee) AS fee
      FROM ${t.deposits} d
      LEFT JOIN ${t.invoices} i ON i.id = d.invoice_id
      WHERE d.mode = $1
      GROUP BY 1, 2, 3, 4
      ORDER BY d.network COLLATE "C", d.coin COLLATE "C", d.status COLLATE "C", 4
    `,
    payoutTotals: sql`
      SELECT network, coin, status, (tx_hash IS NOT NULL) AS sent, count(*)::int AS count, sum(amount) AS amount, sum(fee) AS fee
      FROM ${t.payouts}
      WHERE mode = $1
      GROUP BY 1, 2, 3, 4
      ORDER BY network COLLATE "C", coin COLLATE "C", status COLLATE "C", 4
    `,
    balanceTotals: sql`
      SELECT asset, sum(amount) AS amount, (count(*) FILTER (WHERE amount < 0))::int AS deficits, coalesce(sum(amount) FILTER (WHERE amount < 0), 0) AS deficit
      FROM ${t.balances}
      WHERE mode = $1
      GROUP BY asset
      ORDER BY asset COLLATE "C"
    `,
    unlistedTotals: sql`
      SELECT network, token, count(*)::int AS count, sum(amount) AS amount
      FROM ${t.unlisted}
      WHERE mode = $1
      GROUP BY 1, 2
      ORDER BY network COLLATE "C", token COLLATE "C"
    `,
  };
}
