import type { Storage, StorageTransaction } from "../types";
import { pgClient, pgliteClient, type PgPoolLike, type PGliteLike, type SqlClient, type SqlQueryable } from "./client";
import { migrate } from "./migrations";
import { openPGlite, openPgPool } from "./open";
import { sqlReads } from "./reads";
import { buildStatements } from "./statements";
import { sqlWrites } from "./writes";

/**
 * Where `postgresStorage` keeps its data: exactly one of `pool`, `pglite`, `connectionString`
 * or `dataDir`.
 */
export interface PostgresStorageOptions {
  /** A PostgreSQL server URL (`postgres://user@host:5432/db`): the adapter opens a `pg` Pool and ends it on close. */
  connectionString?: string;
  /** A `pg` Pool of yours. The adapter never ends it: you do, after `close()`. */
  pool?: PgPoolLike;
  /** A directory for the embedded database (PGlite), created if missing; `"memory://"` for an in-memory one. Closed on close. */
  dataDir?: string;
  /** A PGlite instance of yours. The adapter never closes it. */
  pglite?: PGliteLike;
  /**
   * The schema of the tables, created when missing. Default: the connection's current schema
   * (the first of its search_path, usually `public`). Several services or test runs can share
   * one database with one schema each.
   */
  schema?: string;
  /** Run the migrations on start (default true). Off: run `migrate` yourself before. */
  migrate?: boolean;
  /** Most connections the pool opened for `connectionString` holds (pg's default: 10). */
  maxConnections?: number;
  /** Server-side prepared statements on `pg` (default true); off behind an old PgBouncer in transaction mode. */
  prepareStatements?: boolean;
}

/** The storage `postgresStorage` returns. */
export interface PostgresStorage extends Storage {
  /**
   * Settles once the database is open and migrated; rejects with the reason it could not be.
   * Every method waits for it, so awaiting it is optional: do it at boot to fail fast.
   */
  readonly ready: Promise<void>;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

function checkOptions(options: PostgresStorageOptions): void {
  const given = (["connectionString", "pool", "dataDir", "pglite"] as const).filter((key) => options[key] !== undefined);
  if (given.length !== 1) {
    throw new TypeError(
      `postgresStorage: pass exactly one of connectionString, pool, dataDir or pglite${given.length > 1 ? ` (got ${given.join(", ")})` : ""}`,
    );
  }
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new TypeError(`postgresStorage: schema "${options.schema}" must be a plain identifier (letters, digits, _ and $; at most 63)`);
  }
  if (options.connectionString !== undefined && !/^postgres(ql)?:\/\//.test(options.connectionString)) {
    throw new TypeError("postgresStorage: connectionString must be a postgres:// or postgresql:// URL");
  }
}

async function open(options: PostgresStorageOptions): Promise<SqlClient> {
  if (options.pool) return pgClient(options.pool, options.prepareStatements === undefined ? {} : { prepare: options.prepareStatements });
  if (options.pglite) return pgliteClient(options.pglite);
  if (options.connectionString) return openPgPool(options.connectionString, options.maxConnections, options.prepareStatements);
  return openPGlite(options.dataDir!);
}

/**
 * Storage on PostgreSQL: a server through `pg`, or the embedded PGlite, with the same SQL.
 *
 * Every state change runs in a database transaction; `lock*` are `SELECT ... FOR UPDATE`;
 * ledger postings check and move balances in one conditional statement per balance; webhook
 * deliveries are claimed with `FOR UPDATE SKIP LOCKED` and leases. So any number of app
 * instances can share one server database, with every background loop running on each of them.
 * PGlite has one connection: its transactions run one at a time, in process.
 *
 * The adapter opens lazily: this function returns at once (so `createPaymentRouter` stays
 * synchronous), and every method waits for the database to be open and migrated (`ready`).
 */
export function postgresStorage(options: PostgresStorageOptions): PostgresStorage {
  checkOptions(options);
  const statements = buildStatements(options.schema);
  let client: SqlClient | null = null;
  let closing: Promise<void> | null = null;

  const ready = (async () => {
    const opened = await open(options);
    try {
      if (options.migrate ?? true) await migrate(opened, options.schema);
    } catch (error) {
      await opened.close().catch(() => undefined);
      throw error;
    }
    client = opened;
  })();
  // Callers see the failure through `ready` and every method; an app that never calls one must
  // not crash on an unhandled rejection.
  ready.catch(() => undefined);

  const connection = async (): Promise<SqlClient> => {
    if (closing) throw new Error("postgresStorage: the storage was closed");
    if (client) return client;
    await ready;
    return client!;
  };

  // Reads outside a transaction go straight to the pool (autocommit: committed data only).
  const pooled: SqlQueryable = {
    query: async (text, params) => (await connection()).query(text, params),
    exec: async (text) => (await connection()).exec(text),
  };

  return {
    ...sqlReads(pooled, statements),
    ready,

    async transaction<T>(work: (tx: StorageTransaction) => Promise<T>): Promise<T> {
      const db = await connection();
      return db.transaction((sql) => work(Object.assign(sqlReads(sql, statements), sqlWrites(sql, statements))));
    },

    close(): Promise<void> {
      closing ??= ready.then(
        () => client!.close(),
        () => undefined, // never opened: nothing to release
      );
      return closing;
    },
  };
}
