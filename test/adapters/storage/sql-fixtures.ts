import { randomBytes } from "node:crypto";
import pg from "pg";
import { memoryStorage } from "../../../src/adapters/storage/memory/index";
import type { Storage } from "../../../src/core/ports/storage/index";
import { postgresStorage } from "../../../src/postgres";

/** Anything that runs a parameterised query: a pg Pool or a PGlite instance. */
export interface Queryable {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A schema name no other test run uses: tests of parallel runs share one server. */
export function uniqueSchema(label: string): string {
  return `ecp_${label}_${process.pid}_${randomBytes(4).toString("hex")}`;
}

/**
 * Empties every table of `schema` but the migration log, so the next test starts from nothing.
 * One round trip of plain DELETEs: on tables this small it is far quicker than TRUNCATE, and
 * the order tests rely on comes from `seq` growing, not from where it starts.
 */
export async function truncateAll(db: Queryable, schema: string): Promise<void> {
  if (!/^[a-z0-9_]+$/.test(schema)) throw new Error(`unexpected schema name ${schema}`);
  await db.query(`DO $$ DECLARE t record; BEGIN
    FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = '${schema}' AND tablename <> 'schema_migrations' LOOP
      EXECUTE format('DELETE FROM %I.%I', '${schema}', t.tablename);
    END LOOP;
  END $$`);
}

/** The PostgreSQL server the tests may use, from DATABASE_URL; undefined runs the PGlite tests only. */
export const DATABASE_URL = process.env.DATABASE_URL || undefined;

/**
 * Drops `schema` and everything in it from the DATABASE_URL server, once its storages are
 * closed; nothing to do without a server.
 */
export async function dropSchema(schema: string): Promise<void> {
  if (!/^[a-z0-9_]+$/.test(schema)) throw new Error(`unexpected schema name ${schema}`);
  if (DATABASE_URL === undefined) return;
  const pool = new pg.Pool({ connectionString: DATABASE_URL });
  try {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await pool.end();
  }
}

/** A storage to run a test file's service on, opened fresh by each `open()`. */
export interface StorageBackend {
  name: "memory storage" | "PGlite" | "PostgreSQL server";
  /** False for the server when DATABASE_URL is not set. */
  enabled: boolean;
  /**
   * The storage of a first instance; `second()` the storage another instance of the service
   * would open on the same data; `dispose()` closes them and removes the data.
   */
  open(): Promise<{ storage: Storage; second(): Storage; dispose(): Promise<void> }>;
}

/**
 * The memory adapter, PGlite (in memory, schema `label`, cached) and, when DATABASE_URL is set,
 * the PostgreSQL server (a schema of its own, dropped on dispose). On the server each instance
 * has a pool of its own, as separate processes would; the others share their one storage.
 */
export function storageBackends(label: string): StorageBackend[] {
  return [
    {
      name: "memory storage",
      enabled: true,
      open: async () => {
        const storage = memoryStorage();
        return { storage, second: () => storage, dispose: async () => {} };
      },
    },
    {
      name: "PGlite",
      enabled: true,
      open: async () => {
        const { PGlite } = await import("@electric-sql/pglite");
        const pglite = await PGlite.create();
        const storage = postgresStorage({ pglite: pglite as never, schema: label, cache: true });
        return { storage, second: () => storage, dispose: () => pglite.close() };
      },
    },
    {
      name: "PostgreSQL server",
      enabled: DATABASE_URL !== undefined,
      open: async () => {
        const schema = uniqueSchema(label);
        const opened: Storage[] = [];
        const open = () => {
          const storage = postgresStorage({ connectionString: DATABASE_URL!, schema });
          opened.push(storage);
          return storage;
        };
        return {
          storage: open(),
          second: open,
          dispose: async () => {
            for (const each of opened) await each.close();
            await dropSchema(schema);
          },
        };
      },
    },
  ];
}
