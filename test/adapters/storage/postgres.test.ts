import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { pgClient } from "../../../src/adapters/storage/postgres/pg-client";
import { migrate } from "../../../src/adapters/storage/postgres/migrations";
import { postgresStorage } from "../../../src/postgres";
import { runStorageAdapterTests } from "../../../src/testing/index";
import { DATABASE_URL, truncateAll, uniqueSchema } from "./sql-fixtures";
import { describeIf, NO_DATABASE_URL } from "../../support/skips";

// Against a PostgreSQL server when DATABASE_URL is set (.ci/run sets it). Each run works in a
// schema of its own, dropped at the end, so parallel runs on one server never meet. Twice: with
// a plain pool (one statement at a time) and a pipelining one (statements sent back to back).
for (const pipeline of [false, true]) {
  describeIf(DATABASE_URL, NO_DATABASE_URL)(`PostgreSQL server, ${pipeline ? "pipelined" : "plain"} pool`, () => {
    const schema = uniqueSchema(pipeline ? "pipe" : "conf");
    let pool: pg.Pool;

    beforeAll(async () => {
      pool = new pg.Pool({ connectionString: DATABASE_URL, max: 12, ...(pipeline ? { pipeline: true } : {}) } as pg.PoolConfig);
      await migrate(pgClient(pool), schema);
    });

    afterAll(async () => {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    });

    runStorageAdapterTests({
      name: `postgresStorage on a PostgreSQL server (${pipeline ? "pipelined" : "plain"} pool)`,
      createAdapter: async () => {
        await truncateAll(pool, schema);
        return postgresStorage({ pool, schema, migrate: false });
      },
    });
  });
}
