import pg from "pg";
import { afterAll, beforeAll, describe } from "vitest";
import { pgClient } from "../../../src/adapters/storage/postgres/client";
import { migrate } from "../../../src/adapters/storage/postgres/migrations";
import { postgresStorage } from "../../../src/postgres";
import { runStorageAdapterTests } from "../../../src/testing/index";
import { DATABASE_URL, truncateAll, uniqueSchema } from "./sql-fixtures";

// Against a PostgreSQL server when DATABASE_URL is set (.ci/run sets it). The file works in a
// schema of its own, dropped at the end, so parallel runs on one server never meet.
describe.runIf(DATABASE_URL)("PostgreSQL server", () => {
  const schema = uniqueSchema("conf");
  let pool: pg.Pool;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 12 });
    await migrate(pgClient(pool), schema);
  });

  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  runStorageAdapterTests({
    name: "postgresStorage on a PostgreSQL server",
    createAdapter: async () => {
      await truncateAll(pool, schema);
      return postgresStorage({ pool, schema, migrate: false });
    },
  });
});
