/**
 * A target of bench/dashboard.ts, in its own process:
 * `tsx bench/dashboard-target.ts <connectionString#schema> <seedFrom> <seedTo>`
 *
 * The payment router on postgresStorage (a PostgreSQL server) with the dashboard mounted at
 * /admin for an admin of every merchant, as a host mounts it behind its login. Before listening
 * it seeds invoices seedFrom..seedTo of the bench merchant (order ids, and a deposit for one in
 * ten; see seed-invoices.ts), so a second start measures the same data, seeded further.
 *
 * Prints one JSON line (port and merchant id) once it listens.
 */
import express from "express";
import pg from "pg";
import { createPaymentRouter } from "../dist/index.js";
import { postgresStorage } from "../dist/postgres.js";
import { seedInvoices } from "./seed-invoices";

const [where, seedFrom, seedTo] = process.argv.slice(2);
const [url, schema] = (where ?? "").split("#");
if (!url || !schema || !seedFrom || !seedTo) throw new Error("usage: dashboard-target.ts <connectionString#schema> <seedFrom> <seedTo>");
const MERCHANT = "mch_bench";
/** One invoice in this many has a deposit: those numbered n with n % 10 === 2 (dashboard.ts searches them). */
const DEPOSIT_EVERY = 10;

const pool = new pg.Pool({ connectionString: url, max: 10 });
const storage = postgresStorage({ pool, schema });
await storage.ready;
if (Number(seedTo) >= Number(seedFrom)) {
  await seedInvoices(pool, {
    table: `"${schema}".invoices`,
    merchantId: MERCHANT,
    from: Number(seedFrom),
    to: Number(seedTo),
    orderIds: true,
    depositEvery: DEPOSIT_EVERY,
  });
  // What the server would do some time after a bulk load (autovacuum: statistics, the
  // visibility map, hint bits; the checkpointer: writing the load out), done now rather than
  // while the bench measures.
  await pool.query(`VACUUM ANALYZE "${schema}".invoices`);
  await pool.query(`VACUUM ANALYZE "${schema}".deposits`);
  await pool.query("CHECKPOINT");
}

const payments = createPaymentRouter({ storage, backgroundIntervalMs: false, webhooks: { intervalMs: false } });
if (!(await payments.admin.getMerchant(MERCHANT))) await payments.admin.createMerchant({ name: "Bench", id: MERCHANT });

const app = express();
app.use(payments);
app.use("/admin", payments.dashboard({ authorize: () => ({ user: "bench@example.com", role: "admin", merchants: "all" }) }));

const server = app.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  console.log(JSON.stringify({ port: address.port, merchant: MERCHANT }));
});

process.on("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  void payments.close().then(async () => {
    await pool.end();
    process.exit(0);
  });
});
