/**
 * Bulk-seeds invoices straight into the adapter's `invoices` table with one
 * `INSERT ... SELECT generate_series` per batch: a million rows in seconds, where a million API
 * calls would take most of an hour. The rows belong to one merchant in test mode (the worst case
 * for its per-merchant indexes), are mostly settled, and are spread over the past month.
 * Optionally each has an order id in its metadata (`ord_<n>`), and one in `depositEvery` is paid
 * by a deposit (transaction hash {@link seedTxHash}), as the dashboard's search finds them.
 *
 * As a script: `tsx bench/seed-invoices.ts <rows> <merchantId>` against DATABASE_URL (PG_SCHEMA
 * for the schema), e.g. to try the list endpoints or the dashboard's search on a big table (with
 * order ids, and a deposit for one invoice in ten).
 */

import { createHash } from "node:crypto";

/** Anything that runs a parameterised query: a pg Pool or a PGlite instance. */
export interface Queryable {
  query(text: string, params?: unknown[]): Promise<unknown>;
}

const COLUMNS =
  "id, merchant_id, mode, status, amount, amount_currency, accepted_coins, coin, network, address, rate, pay_amount, fee_paid_by_payer, " +
  "under_paid_cover_tenths, is_white_label, return_url, payment_url, metadata, received_amount, tx_hash, late, failure_reason, expires_at, " +
  "created_at, updated_at, settle_currency, payment_link_id";

const DEPOSIT_COLUMNS =
  "id, merchant_id, mode, invoice_id, coin, network, address, tx_hash, output_index, amount, confirmations, status, counts_toward_invoice, fee, " +
  "credited_at, seen_at, updated_at, credited_asset, credited_amount, reversals";

/** The transaction hash of seeded invoice `n`'s deposit: 64 hex digits, like a TRON transaction id. */
export function seedTxHash(n: number): string {
  return createHash("sha256").update(`seed${n}`).digest("hex");
}

/** Seeding options: where, whose, which numbers, and what the rows carry. */
export interface SeedOptions {
  /** The invoices table, schema-qualified when needed; deposits go to the `deposits` table beside it. */
  table: string;
  merchantId: string;
  from: number;
  to: number;
  batch?: number;
  now?: number;
  /** Gives invoice n `metadata: { orderId: "ord_<n>" }` (default: no metadata). */
  orderIds?: boolean;
  /** Invoice n with n % depositEvery === 2 (a PAID one) gets its confirmed deposit (default: none). */
  depositEvery?: number;
}

/** Adds invoices numbered `from`..`to` (inclusive) for `merchantId`, in batches of `batch`. */
export async function seedInvoices(db: Queryable, options: SeedOptions): Promise<void> {
  const batch = options.batch ?? 100_000;
  const now = options.now ?? Date.now();
  const metadata = options.orderIds ? "json_build_object('orderId', 'ord_' || g)" : "NULL";
  // An invoice with a deposit received its amount in that transaction.
  const paid = options.depositEvery ? `g % ${Math.trunc(options.depositEvery)} = 2` : "false";
  const received = `CASE WHEN ${paid} THEN 1000000 + g % 100000 ELSE 0 END`;
  const txHash = `CASE WHEN ${paid} THEN encode(sha256(convert_to('seed' || g, 'UTF8')), 'hex') END`;
  for (let start = options.from; start <= options.to; start += batch) {
    const end = Math.min(options.to, start + batch - 1);
    await db.query(
      `INSERT INTO ${options.table} (${COLUMNS}) ` +
        "SELECT 'inv_seed' || lpad(g::text, 10, '0'), $1, 'test', CASE WHEN g % 10 = 0 THEN 'PENDING' WHEN g % 10 = 1 THEN 'EXPIRED' ELSE 'PAID' END, " +
        "1000 + g % 100000, 'USD', '[\"USDT\",\"BTC\"]'::json, 'USDT', 'TRX', 'sbx_trx_seed' || g, 1000000000000, 1000000 + g % 100000, false, " +
        `0, true, NULL, 'http://127.0.0.1/pay/inv_seed' || g, ${metadata}, ${received}, ${txHash}, false, NULL, $2::bigint + 86400000, $2::bigint - g * 2000, $2::bigint - g * 2000, NULL, NULL ` +
        "FROM generate_series($3::int, $4::int) AS g",
      [options.merchantId, now, start, end],
    );
    if (options.depositEvery) {
      // The deposit that paid the invoice: its address and amount, credited net of the 0.5% fee.
      await db.query(
        `INSERT INTO ${options.table.replace(/invoices$/, "deposits")} (${DEPOSIT_COLUMNS}) ` +
          "SELECT 'dep_seed' || lpad(g::text, 10, '0'), $1, 'test', 'inv_seed' || lpad(g::text, 10, '0'), 'USDT', 'TRX', 'sbx_trx_seed' || g, " +
          "encode(sha256(convert_to('seed' || g, 'UTF8')), 'hex'), 0, 1000000 + g % 100000, 19, 'CONFIRMED', true, (1000000 + g % 100000) / 200, " +
          "$2::bigint - g * 2000 + 60000, $2::bigint - g * 2000 + 30000, $2::bigint - g * 2000 + 60000, 'USDT', (1000000 + g % 100000) - (1000000 + g % 100000) / 200, 0 " +
          "FROM generate_series($3::int, $4::int) AS g WHERE g % $5::int = 2",
        [options.merchantId, now, start, end, options.depositEvery],
      );
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [rows, merchantId] = [Number(process.argv[2] ?? 1_000_000), process.argv[3]];
  if (!merchantId || !process.env.DATABASE_URL) {
    console.error("usage: DATABASE_URL=postgres://... [PG_SCHEMA=name] tsx bench/seed-invoices.ts <rows> <merchantId>");
    process.exit(1);
  }
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
  const table = process.env.PG_SCHEMA ? `"${process.env.PG_SCHEMA}".invoices` : "invoices";
  const started = Date.now();
  await seedInvoices(pool, { table, merchantId, from: 1, to: rows, orderIds: true, depositEvery: 10 });
  await pool.query(`ANALYZE ${table}`);
  await pool.query(`ANALYZE ${table.replace(/invoices$/, "deposits")}`);
  console.log(`seeded ${rows} invoices for ${merchantId} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await pool.end();
}
