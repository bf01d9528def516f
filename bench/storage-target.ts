/**
 * A target of bench/storage.ts, in its own process:
 * `tsx bench/storage-target.ts <bare|router> <pg|pglite> <where> [seedFrom seedTo]`
 * where <where> is `connectionString#schema` for pg or a data directory for PGlite.
 *
 * - bare: Express + express.json() with two routes that each do one statement on the same
 *   database: INSERT an invoice-shaped row (all the columns the adapter stores), or SELECT one
 *   by primary key, and answer it as JSON. The baseline any app pays for a stored record.
 * - router: the payment router on postgresStorage over the same engine, with a bench merchant
 *   and key that survive restarts (so a second start can measure the same data, seeded further).
 *
 * Prints one JSON line (port, and the key for the router) once it listens.
 */
import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import express from "express";
import { createPaymentRouter } from "../dist/index.js";
import { postgresStorage } from "../dist/postgres.js";
import { seedInvoices, type Queryable } from "./seed-invoices";

const [kind, engine, where, seedFrom, seedTo] = process.argv.slice(2);
if ((kind !== "bare" && kind !== "router") || (engine !== "pg" && engine !== "pglite") || !where) {
  throw new Error("usage: storage-target.ts <bare|router> <pg|pglite> <connectionString#schema | dataDir> [seedFrom seedTo]");
}
const MERCHANT = "mch_bench";
const KEY = "sk_test_BenchStorageKey0000000000000001";

// The database handle: a pg Pool or a PGlite on the data directory.
let db: Queryable & { end?: () => Promise<void> };
let schema: string | undefined;
let storageOptions: Parameters<typeof postgresStorage>[0];
if (engine === "pg") {
  const [url, name] = where.split("#");
  schema = name;
  const { default: pg } = await import("pg");
  // pipeline: the router's BEGIN and appends travel with the next statement (see postgresStorage).
  const pool = new pg.Pool({ connectionString: url, max: 10, pipeline: true } as ConstructorParameters<typeof pg.Pool>[0]);
  db = pool;
  storageOptions = { pool, schema };
} else {
  const { PGlite } = await import("@electric-sql/pglite");
  await mkdir(where, { recursive: true });
  const pglite = await PGlite.create(join(where, "pgdata"));
  db = pglite;
  // As createPaymentRouter's default (dataDir) runs it: the only writer, with its cache.
  storageOptions = { pglite, cache: true };
}
const table = (name: string) => (schema ? `"${schema}".${name}` : name);

const app = express();
let ready: Record<string, unknown> = {};

if (kind === "bare") {
  if (schema) await db.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  await db.query(`CREATE TABLE IF NOT EXISTS ${table("bare_invoices")} (
    id text COLLATE "C" PRIMARY KEY, merchant_id text NOT NULL, mode text NOT NULL, status text NOT NULL, amount numeric(78,0) NOT NULL,
    amount_currency text NOT NULL, accepted_coins json, coin text, network text, address text, rate numeric(78,0), pay_amount numeric(78,0),
    fee_paid_by_payer boolean NOT NULL, under_paid_cover_tenths integer NOT NULL, is_white_label boolean NOT NULL, return_url text,
    payment_url text NOT NULL, metadata json, received_amount numeric(78,0) NOT NULL, tx_hash text, late boolean NOT NULL, failure_reason text,
    expires_at bigint NOT NULL, created_at bigint NOT NULL, updated_at bigint NOT NULL, settle_currency text, payment_link_id text)`);
  const insert =
    `INSERT INTO ${table("bare_invoices")} (id, merchant_id, mode, status, amount, amount_currency, accepted_coins, coin, network, address, rate, ` +
    "pay_amount, fee_paid_by_payer, under_paid_cover_tenths, is_white_label, return_url, payment_url, metadata, received_amount, tx_hash, late, " +
    "failure_reason, expires_at, created_at, updated_at, settle_currency, payment_link_id) VALUES ($1, $2, $3, $4, $5::numeric, $6, $7::json, $8, $9, " +
    "$10, $11::numeric, $12::numeric, $13, $14, $15, $16, $17, $18::json, $19::numeric, $20, $21, $22, $23, $24, $25, $26, $27)";
  const select =
    "SELECT id, merchant_id, status, amount, amount_currency, accepted_coins, coin, network, address, rate, pay_amount, fee_paid_by_payer, " +
    "under_paid_cover_tenths, is_white_label, return_url, payment_url, metadata, received_amount, tx_hash, expires_at, created_at " +
    `FROM ${table("bare_invoices")} WHERE id = $1`;
  const view = (row: Record<string, unknown>) => ({
    id: row.id,
    merchantId: row.merchant_id,
    paymentUrl: row.payment_url,
    status: row.status,
    address: row.address ?? null,
    txHash: row.tx_hash ?? null,
    amount: Number(row.amount) / 100,
    amountCurrency: row.amount_currency,
    rate: null,
    payAmount: null,
    receivedAmount: 0,
    cryptoCurrency: row.coin ?? null,
    network: row.network ?? null,
    acceptedCoins: row.accepted_coins ?? null,
    feePaidByPayer: row.fee_paid_by_payer,
    underPaidCover: row.under_paid_cover_tenths,
    isWhiteLabel: row.is_white_label,
    returnUrl: row.return_url ?? null,
    metadata: row.metadata ?? null,
    expiresAt: new Date(Number(row.expires_at)).toISOString(),
    createdAt: new Date(Number(row.created_at)).toISOString(),
  });
  app.post("/bare/create", express.json(), async (req, res) => {
    const id = `inv_${randomBytes(18).toString("base64url")}`;
    const now = Date.now();
    const row = {
      id,
      merchant_id: "mch_0123456789abcdefghijklmn",
      status: "PENDING",
      amount: Math.round(Number(req.body.amount) * 100),
      amount_currency: req.body.amountCurrency ?? "USD",
      accepted_coins: req.body.acceptedCoins ?? null,
      fee_paid_by_payer: false,
      under_paid_cover_tenths: 0,
      is_white_label: false,
      payment_url: `http://127.0.0.1/pay/${id}`,
      expires_at: now + (req.body.lifeTime ?? 1440) * 60_000,
      created_at: now,
    };
    await db.query(insert, [
      row.id,
      row.merchant_id,
      "test",
      row.status,
      String(row.amount),
      row.amount_currency,
      JSON.stringify(row.accepted_coins),
      null,
      null,
      null,
      null,
      null,
      false,
      0,
      false,
      null,
      row.payment_url,
      null,
      "0",
      null,
      false,
      null,
      row.expires_at,
      now,
      now,
      null,
      null,
    ]);
    res.json(view(row));
  });
  app.post("/bare/fetch", express.json(), async (req, res) => {
    const { rows } = (await db.query(select, [req.body.invoiceId])) as { rows: Array<Record<string, unknown>> };
    if (!rows[0]) return void res.status(404).json({ error: 40401, message: "not found" });
    res.json(view(rows[0]));
  });
} else {
  const storage = postgresStorage(storageOptions);
  await storage.ready;
  if (seedFrom && seedTo && Number(seedTo) >= Number(seedFrom)) {
    await seedInvoices(db, { table: table("invoices"), merchantId: MERCHANT, from: Number(seedFrom), to: Number(seedTo) });
    await db.query(`ANALYZE ${table("invoices")}`);
  }
  const payments = createPaymentRouter({ storage, backgroundIntervalMs: false, webhooks: { intervalMs: false } });
  if (!(await payments.admin.getMerchant(MERCHANT))) {
    await payments.admin.createMerchant({ name: "Bench", id: MERCHANT });
    await payments.admin.issueApiKey(MERCHANT, { key: KEY });
  }
  app.use(payments);
  ready = { key: KEY };
}

const server = app.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  console.log(JSON.stringify({ port: address.port, ...ready }));
});

// Exit cleanly on a signal: PGlite must close to leave its data directory consistent. Requests
// still in flight (the load generator stops mid-request) finish first, so none of them meets a
// closed database; connections that stay open are cut after a second.
process.on("SIGTERM", () => {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  setTimeout(() => server.closeAllConnections(), 1000).unref();
  void (async () => {
    await closed;
    await db.end?.();
    await (db as { close?: () => Promise<void> }).close?.();
    process.exit(0);
  })();
});
