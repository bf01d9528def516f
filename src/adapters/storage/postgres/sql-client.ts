/**
 * One small interface over the two engines the SQL adapter runs on: a `pg` Pool (a PostgreSQL
 * server, many connections) and PGlite (PostgreSQL compiled to WASM, one connection in process).
 * The adapter's SQL is the same for both; only how a statement reaches the engine differs.
 *
 * Both drivers are described by the few methods we call (`PgPoolLike`, `PGliteLike`), not
 * imported, so that neither package (nor its types) is needed by users of the other.
 */

/** What a statement answers: rows as objects keyed by column name, and the command's row count. */
export interface SqlResult {
  rows: Array<Record<string, unknown>>;
  rowCount: number;
}

/** Something that runs SQL: the client itself (autocommit) or one transaction's connection. */
export interface SqlQueryable {
  /** One statement with `$1..$n` parameters. */
  query(text: string, params?: readonly unknown[]): Promise<SqlResult>;
  /** Several statements without parameters: migrations. */
  exec(text: string): Promise<void>;
  /**
   * A write whose answer nobody waits for (an INSERT of new rows). It runs before anything sent
   * after it, and if it fails, the next `query` or the commit fails with its error. This lets an
   * engine send it together with what follows instead of waiting a round trip for it, and run
   * consecutive deferred writes as one statement: so none may depend on the effect of another
   * deferred since the last `query` (they may all see the same snapshot).
   */
  defer(text: string, params?: readonly unknown[]): void;
}

/** A SQL engine the storage adapter can run on. */
export interface SqlClient extends Omit<SqlQueryable, "defer"> {
  /** "pg" (a server through a pool) or "pglite" (in process, one connection). */
  readonly engine: "pg" | "pglite";
  /** The pool or PGlite instance underneath: identifies the database in process. */
  readonly handle: object;
  /**
   * Runs `work` inside BEGIN ... COMMIT on one connection, rolling back (and rethrowing) when it
   * throws. The connection refuses use after the transaction ended.
   */
  transaction<T>(work: (connection: SqlQueryable) => Promise<T>): Promise<T>;
  /** Releases what this client opened (a pool or PGlite it created; never one it was given). */
  close(): Promise<void>;
}

/** Throws what a transaction's connection answers once its transaction ended. */
export function transactionEnded(): never {
  throw new Error("postgresStorage: a transaction's connection was used after its transaction ended");
}
