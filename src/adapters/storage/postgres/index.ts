import { refuseUnknownOptions } from "../../../options-error";
import type { EventRecord, WebhookEndpointRecord } from "../../../core/webhooks/records";
import { fanOut } from "../../../core/ports/fan-out";
import type { CompleteStorage, CompleteStorageTransaction, Scope, StorageMigrationReport } from "../../../core/ports/storage/index";
import { cacheFor, type CachedTable, type CommittedCache } from "./cache";
import { pgClient, type PgPoolLike } from "./pg-client";
import { pgliteClient, type PGliteLike } from "./pglite-client";
import type { SqlClient, SqlQueryable } from "./sql-client";
import { migrate } from "./migrations";
import { migrateAndReport } from "./migrate-report";
import { openPGlite, openPgPool } from "./open";
import { sqlReads } from "./reads";
import { buildStatements } from "./statements/index";
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
  /**
   * PGlite only: keep merchants, API keys and webhook endpoints in process memory, dropped by
   * every write to them. Correct only while this adapter is the only writer of its tables: on by default
   * with `dataDir` (the directory is locked to this process), off for a `pglite` instance of
   * yours unless you say so.
   */
  cache?: boolean;
}

/** The storage `postgresStorage` returns: every optional part included. */
export interface PostgresStorage extends CompleteStorage {
  /**
   * Settles once the database is open and migrated; rejects with the reason it could not be.
   * Every method waits for it, so awaiting it is optional: do it at boot to fail fast.
   */
  readonly ready: Promise<void>;
  /**
   * Runs the migrations not applied yet (all of them with `migrate: false`) and reports every
   * step this storage applied, at open and now, with the schema version reached.
   */
  migrate(): Promise<StorageMigrationReport>;
}

/** Transactions between two refreshes of PGlite's planner statistics. */
const ANALYZE_EVERY = 10_000;

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

const OPTION_NAMES = ["connectionString", "pool", "dataDir", "pglite", "schema", "migrate", "maxConnections", "prepareStatements", "cache"] as const;

function checkOptions(options: PostgresStorageOptions): void {
  if (typeof options !== "object" || options === null)
    throw new TypeError("postgresStorage: pass an options object: { connectionString }, { pool }, { dataDir } or { pglite }");
  refuseUnknownOptions("postgresStorage", options, OPTION_NAMES);
  const given = (["connectionString", "pool", "dataDir", "pglite"] as const).filter((key) => options[key] !== undefined);
  if (given.length !== 1) {
    throw new TypeError(
      `postgresStorage: pass exactly one of connectionString, pool, dataDir or pglite${given.length > 1 ? ` (got ${given.join(", ")})` : ""}`,
    );
  }
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new TypeError(`postgresStorage: schema "${options.schema}" must be a plain identifier (letters, digits, _ and $; at most 63)`);
  }
  if (options.cache && (options.pool || options.connectionString)) {
    throw new TypeError("postgresStorage: cache is for PGlite (one process writes the database); a server's other clients would leave it stale");
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
 * Every state change runs in a database transaction; `lock*` are `SELECT ... FOR UPDATE` (and
 * `lockCursor`, which may name a row not stored yet, a transaction-scoped advisory lock);
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
  const caching = options.cache ?? options.dataDir !== undefined;
  // PGlite runs no autovacuum, so nothing gathers the planner's statistics: a table that grew
  // would keep the plans of an empty one. The adapter refreshes them at start and every
  // ANALYZE_EVERY transactions (a server's autovacuum does it there).
  const analyze = `ANALYZE ${Object.values(statements.tables).join(", ")}`;
  let transactions = 0;
  let client: SqlClient | null = null;
  let cache: CommittedCache | null = null;
  let closing: Promise<void> | null = null;
  // The steps the open applied, for `migrate()`'s report.
  let appliedAtOpen: number[] = [];

  const ready = (async () => {
    const opened = await open(options);
    try {
      if (options.migrate ?? true) appliedAtOpen = await migrate(opened, options.schema);
      // Without migrations the tables may not exist yet (`migrate()` creates them, then analyzes).
      if (opened.engine === "pglite")
        await opened.exec(analyze).catch((error: unknown) => {
          if (options.migrate ?? true) throw error;
        });
    } catch (error) {
      await opened.close().catch(() => undefined);
      throw error;
    }
    if (caching) cache = cacheFor(opened.handle, options.schema);
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
    defer: () => {
      throw new Error("postgresStorage: writes go through transaction()");
    },
  };
  const reads = sqlReads(pooled, statements);

  return {
    ...reads,
    getMerchant: async (id) => {
      await connection();
      return cache ? cache.merchant(id, () => reads.getMerchant(id)) : reads.getMerchant(id);
    },
    findApiKeyByHash: async (hash) => {
      await connection();
      return cache ? cache.apiKey(hash, () => reads.findApiKeyByHash(hash)) : reads.findApiKeyByHash(hash);
    },
    listWebhookEndpoints: async (scope) => {
      await connection();
      return cache ? cache.webhookEndpoints(scope, () => reads.listWebhookEndpoints(scope)) : reads.listWebhookEndpoints(scope);
    },
    ready,

    async migrate() {
      const db = await connection();
      const report = await migrateAndReport(db, options.schema, appliedAtOpen);
      if (db.engine === "pglite" && report.applied.length > 0) await db.exec(analyze);
      return report;
    },

    async transaction<T>(work: (tx: CompleteStorageTransaction) => Promise<T>): Promise<T> {
      const db = await connection();
      const result = await db.transaction((sql) => {
        const tx: CompleteStorageTransaction = Object.assign(sqlReads(sql, statements), sqlWrites(sql, statements));
        return work(cache ? cachedTransaction(tx, cache) : tx);
      });
      if (db.engine === "pglite" && ++transactions % ANALYZE_EVERY === 0) {
        // Queued behind whatever waits for the database; nobody waits for it.
        db.exec(analyze).catch((error: unknown) => void error);
      }
      return result;
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

/**
 * A transaction whose reads of the cached tables come from the cache until it writes one of
 * them; each such write empties that table's cache first, so nobody reads the old rows from it
 * meanwhile (and a rollback only costs a reload).
 */
function cachedTransaction(tx: CompleteStorageTransaction, cache: CommittedCache): CompleteStorageTransaction {
  const dirty = new Set<CachedTable>();
  const writing =
    <A extends unknown[], R>(table: CachedTable, write: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      dirty.add(table);
      cache.invalidate(new Set([table]));
      return write(...args);
    };
  return Object.assign(tx, {
    getMerchant: (
      (read) => (id: string) =>
        dirty.has("merchants") ? read(id) : cache.merchant(id, () => read(id))
    )(tx.getMerchant),
    findApiKeyByHash: (
      (read) => (hash: string) =>
        dirty.has("apiKeys") || dirty.has("merchants") ? read(hash) : cache.apiKey(hash, () => read(hash))
    )(tx.findApiKeyByHash),
    listWebhookEndpoints: (
      (read) => (scope: Scope) =>
        dirty.has("endpoints") ? read(scope) : cache.webhookEndpoints(scope, () => read(scope))
    )(tx.listWebhookEndpoints),
    // Endpoints the cache holds need no statement to match: an event no endpoint wants costs nothing.
    queueWebhookDeliveries: ((queue, read, insert) => async (events: EventRecord[], now: number) => {
      if (dirty.has("endpoints")) return queue(events, now);
      const byScope = new Map<string, WebhookEndpointRecord[]>();
      for (const { merchantId, mode } of events) {
        const key = `${merchantId}\u0000${mode}`;
        if (!byScope.has(key)) byScope.set(key, await cache.webhookEndpoints({ merchantId, mode }, () => read({ merchantId, mode })));
      }
      const deliveries = fanOut(events, ({ merchantId, mode }) => byScope.get(`${merchantId}\u0000${mode}`)!, now);
      if (deliveries.length > 0) await insert(deliveries);
    })(tx.queueWebhookDeliveries, tx.listWebhookEndpoints, tx.insertWebhookDeliveries),
    insertMerchant: writing("merchants", tx.insertMerchant),
    updateMerchant: writing("merchants", tx.updateMerchant),
    insertApiKey: writing("apiKeys", tx.insertApiKey),
    revokeApiKey: writing("apiKeys", tx.revokeApiKey),
    insertWebhookEndpoint: writing("endpoints", tx.insertWebhookEndpoint),
    updateWebhookEndpoint: writing("endpoints", tx.updateWebhookEndpoint),
    deleteWebhookEndpoint: writing("endpoints", tx.deleteWebhookEndpoint),
  });
}
