import pg from "pg";
import { pgClient } from "../src/adapters/storage/postgres/client";
import { migrate } from "../src/adapters/storage/postgres/migrations";
const pool = new pg.Pool({ connectionString: "postgres://postgres@127.0.0.1:5432/test" });
const c = pgClient(pool);
for (let i = 0; i < 3; i++) {
  let t = Date.now();
  await migrate(c, `time_${process.pid}_${i}`);
  console.log("migrate", Date.now() - t);
  t = Date.now();
  await c.exec(`TRUNCATE time_${process.pid}_${i}.merchants, time_${process.pid}_${i}.invoices, time_${process.pid}_${i}.api_keys, time_${process.pid}_${i}.deposits, time_${process.pid}_${i}.ledger_entries, time_${process.pid}_${i}.balances, time_${process.pid}_${i}.webhook_deliveries RESTART IDENTITY`);
  console.log("truncate", Date.now() - t);
  t = Date.now();
  await c.exec(`DROP SCHEMA time_${process.pid}_${i} CASCADE`);
  console.log("drop", Date.now() - t);
}
await pool.end();
