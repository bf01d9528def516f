import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll } from "vitest";
import { pgliteClient } from "../../../src/adapters/storage/postgres/pglite-client";
import { migrate } from "../../../src/adapters/storage/postgres/migrations";
import { postgresStorage } from "../../../src/postgres";
import { runStorageAdapterTests } from "../../../src/testing/index";
import { truncateAll } from "./sql-fixtures";

// One in-memory PGlite for the file (starting one takes seconds).
let db: PGlite;

beforeAll(async () => {
  db = await PGlite.create();
  await migrate(pgliteClient(db), "conformance");
}, 60_000);

afterAll(async () => {
  await db?.close();
});

// As an instance of yours: each test gets emptied tables.
runStorageAdapterTests({
  name: "postgresStorage on PGlite",
  createAdapter: async () => {
    await truncateAll(db, "conformance");
    return postgresStorage({ pglite: db, schema: "conformance", migrate: false });
  },
});

// As on a data directory, with API keys and webhook endpoints cached in process: each test gets
// a schema of its own (the cache belongs to a database and schema, and emptying tables behind
// the adapter's back is exactly what the cache may not see).
let next = 0;
runStorageAdapterTests({
  name: "postgresStorage on PGlite with its cache",
  createAdapter: async () => {
    const storage = postgresStorage({ pglite: db, schema: `cached_${++next}`, cache: true });
    await storage.ready;
    return storage;
  },
});
