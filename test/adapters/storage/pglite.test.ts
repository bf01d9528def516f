import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll } from "vitest";
import { pgliteClient } from "../../../src/adapters/storage/postgres/client";
import { migrate } from "../../../src/adapters/storage/postgres/migrations";
import { postgresStorage } from "../../../src/postgres";
import { runStorageAdapterTests } from "../../../src/testing/index";
import { truncateAll } from "./sql-fixtures";

// One in-memory PGlite for the file (starting one takes seconds); each test gets emptied tables.
const SCHEMA = "conformance";
let db: PGlite;

beforeAll(async () => {
  db = await PGlite.create();
  await migrate(pgliteClient(db), SCHEMA);
}, 60_000);

afterAll(async () => {
  await db?.close();
});

runStorageAdapterTests({
  name: "postgresStorage on PGlite",
  createAdapter: async () => {
    await truncateAll(db, SCHEMA);
    return postgresStorage({ pglite: db, schema: SCHEMA, migrate: false });
  },
});
