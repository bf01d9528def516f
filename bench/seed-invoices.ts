/**
 * Bulk-seeds invoices straight into the adapter's `invoices` table with one
 * `INSERT ... SELECT generate_series` per batch: a million rows in seconds, where a million API
 * calls would take most of an hour. The rows belong to one merchant in test mode (the worst case
 * for its per-merchant indexes), are mostly settled, and are spread over the past month.
 *
 * As a script: `tsx bench/seed-invoices.ts <rows> <merchantId>` against DATABASE_URL (PG_SCHEMA
 * for the schema), e.g. to try the list endpoints on a big table.
 */

/** Anything that runs a parameterised query: a pg Pool or a PGlite instance. */
export interface Queryable {
  query(text: string, params?: unknown[]): Promise<unknown>;
}

const COLUMNS =
  "id, merchant_id, mode, status, amount, amount_currency, accepted_coins, coin, network, address, rate, pay_amount, fee_paid_by_payer, " +
  "under_paid_cover_tenths, is_white_label, return_url, payment_url, metadata, received_amount, tx_hash, late, failure_reason, expires_at, " +
  "created_at, updated_at, settle_currency, payment_link_id";

/** Adds invoices numbered `from`..`to` (inclusive) for `merchantId`, in batches of `batch`. */
export async function seedInvoices(
  db: Queryable,
  options: { table: string; merchantId: string; from: number; to: number; batch?: number; now?: number },
): Promise<void> {
  const batch = options.batch ?? 100_000;
  const now = options.now ?? Date.now();
  for (let start = options.from; start <= options.to; start += batch) {
    const end = Math.min(options.to, start + batch - 1);
    await db.query(
      `INSERT INTO ${options.table} (${COLUMNS}) ` +
        "SELECT 'inv_seed' || lpad(g::text, 10, '0'), $1, 'test', CASE WHEN g % 10 = 0 THEN 'PENDING' WHEN g % 10 = 1 THEN 'EXPIRED' ELSE 'PAID' END, " +
        "1000 + g % 100000, 'USD', '[\"USDT\",\"BTC\"]'::json, 'USDT', 'TRX', 'sbx_trx_seed' || g, 1000000000000, 1000000 + g % 100000, false, " +
        "0, true, NULL, 'http://127.0.0.1/pay/inv_seed' || g, NULL, 0, NULL, false, NULL, $2::bigint + 86400000, $2::bigint - g * 2000, $2::bigint - g * 2000, NULL, NULL " +
        "FROM generate_series($3::int, $4::int) AS g",
      [options.merchantId, now, start, end],
    );
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
  await seedInvoices(pool, { table, merchantId, from: 1, to: rows });
  await pool.query(`ANALYZE ${table}`);
  console.log(`seeded ${rows} invoices for ${merchantId} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await pool.end();
}
