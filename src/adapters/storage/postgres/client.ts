/**
 * One small interface over the two engines the SQL adapter runs on: a `pg` Pool (a PostgreSQL
 * server, many connections) and PGlite (PostgreSQL compiled to WASM, one connection in process).
 * The adapter's SQL is the same for both; only how a query reaches the engine differs.
 *
 * Both drivers are described here by the few methods we call, not imported, so that neither
 * package (nor its types) is needed by users of the other.
 */

/** What a query answers: rows as objects keyed by column name, and the command's row count. */
export interface SqlResult {
  rows: Array<Record<string, unknown>>;
  rowCount: number;
}

/** Something that runs SQL: the client itself (autocommit) or one transaction's connection. */
export interface SqlQueryable {
  /** One statement with `$1..$n` parameters (extended protocol). */
  query(text: string, params?: readonly unknown[]): Promise<SqlResult>;
  /** Several statements without parameters (simple protocol): migrations. */
  exec(text: string): Promise<void>;
}

/** A SQL engine the storage adapter can run on. */
export interface SqlClient extends SqlQueryable {
  /** "pg" (a server through a pool) or "pglite" (in process, one connection). */
  readonly engine: "pg" | "pglite";
  /**
   * Runs `work` inside BEGIN ... COMMIT on one connection, rolling back (and rethrowing) when it
   * throws. The connection refuses use after the transaction ended.
   */
  transaction<T>(work: (connection: SqlQueryable) => Promise<T>): Promise<T>;
  /** Releases what this client opened (a pool or PGlite it created; never one it was given). */
  close(): Promise<void>;
}

/** The part of a `pg` PoolClient we use. */
export interface PgPoolClientLike {
  query(config: { text: string; values?: unknown[]; name?: string }): Promise<{ rows: Array<Record<string, unknown>>; rowCount: number | null }>;
  query(text: string): Promise<unknown>;
  release(destroy?: boolean | Error): void;
}

/** The part of a `pg` Pool we use (a `pg.Pool` fits). */
export interface PgPoolLike {
  query(config: { text: string; values?: unknown[]; name?: string }): Promise<{ rows: Array<Record<string, unknown>>; rowCount: number | null }>;
  connect(): Promise<PgPoolClientLike>;
  end(): Promise<void>;
}

/** The part of a PGlite instance we use (a `PGlite` fits). */
export interface PGliteLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[]; affectedRows?: number; rowCount?: number }>;
  exec(text: string): Promise<unknown>;
  close(): Promise<void>;
  readonly closed?: boolean;
}

/** A FIFO mutex: whoever asked first goes next. */
export class Mutex {
  private held = false;
  private readonly waiters: Array<() => void> = [];

  acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next(); // ownership passes straight on, so nobody can cut in between
    else this.held = false;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }
}

function ended(): never {
  throw new Error("postgresStorage: a transaction's connection was used after its transaction ended");
}

// Every statement the adapter sends is one of a fixed set of texts per schema, so naming each
// text once gives a bounded set of prepared statements per connection. The names are shared by
// every client in the process: two adapters on one pool must never give one name two texts.
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `ecp_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name;
}

/** Options of {@link pgClient}. */
export interface PgClientOptions {
  /** End the pool on close (true when the adapter created it). */
  ownsPool?: boolean;
  /**
   * Use named (server-side prepared) statements, parsed and planned once per connection.
   * Default true; turn off behind a pooler that cannot keep them (PgBouncer in transaction mode
   * before 1.21).
   */
  prepare?: boolean;
}

/** A SqlClient over a `pg` Pool: reads go to the pool, each transaction takes one connection. */
export function pgClient(pool: PgPoolLike, options: PgClientOptions = {}): SqlClient {
  const prepare = options.prepare ?? true;
  const config = (text: string, params?: readonly unknown[]) => {
    const values = params ? [...params] : [];
    return prepare ? { text, values, name: statementName(text) } : { text, values };
  };
  const answer = (result: { rows: Array<Record<string, unknown>>; rowCount: number | null }): SqlResult => ({
    rows: result.rows,
    rowCount: result.rowCount ?? 0,
  });

  return {
    engine: "pg",
    query: async (text, params) => answer(await pool.query(config(text, params))),
    exec: async (text) => {
      const connection = await pool.connect();
      try {
        await connection.query(text);
      } finally {
        connection.release();
      }
    },
    async transaction<T>(work: (connection: SqlQueryable) => Promise<T>): Promise<T> {
      const connection = await pool.connect();
      let active = true;
      let broken = false;
      const scoped: SqlQueryable = {
        query: async (text, params) => (active ? answer(await connection.query(config(text, params))) : ended()),
        exec: async (text) => void (active ? await connection.query(text) : ended()),
      };
      try {
        await connection.query("BEGIN");
        const result = await work(scoped);
        await connection.query("COMMIT");
        return result;
      } catch (error) {
        try {
          await connection.query("ROLLBACK");
        } catch {
          broken = true; // the connection is in an unknown state: the pool must not hand it out again
        }
        throw error;
      } finally {
        active = false;
        connection.release(broken);
      }
    },
    close: async () => {
      if (options.ownsPool) await pool.end();
    },
  };
}

/** Options of {@link pgliteClient}. */
export interface PGliteClientOptions {
  /** Close the PGlite instance on close (true when the adapter opened it). */
  ownsDatabase?: boolean;
  /** Runs after the database closed (releases the data directory's lock). */
  onClose?: () => Promise<void> | void;
}

/**
 * A SqlClient over PGlite. PGlite has a single connection, so a transaction holds it from BEGIN
 * to COMMIT: a mutex queues everything else (reads included) behind it, which also keeps
 * uncommitted writes from reads outside the transaction.
 */
export function pgliteClient(db: PGliteLike, options: PGliteClientOptions = {}): SqlClient {
  const mutex = new Mutex();
  const answer = (result: { rows: unknown[]; affectedRows?: number; rowCount?: number }): SqlResult => ({
    rows: result.rows as Array<Record<string, unknown>>,
    rowCount: result.rowCount ?? result.affectedRows ?? 0,
  });
  const run = async (text: string, params?: readonly unknown[]) => answer(await db.query(text, params ? [...params] : []));
  let closed = false;

  return {
    engine: "pglite",
    query: (text, params) => mutex.run(() => run(text, params)),
    exec: (text) => mutex.run(async () => void (await db.exec(text))),
    async transaction<T>(work: (connection: SqlQueryable) => Promise<T>): Promise<T> {
      await mutex.acquire();
      let active = true;
      const scoped: SqlQueryable = {
        query: (text, params) => (active ? run(text, params) : Promise.reject(new Error("postgresStorage: a transaction's connection was used after its transaction ended"))),
        exec: async (text) => void (active ? await db.exec(text) : ended()),
      };
      try {
        await db.exec("BEGIN");
        const result = await work(scoped);
        await db.exec("COMMIT");
        return result;
      } catch (error) {
        try {
          await db.exec("ROLLBACK");
        } catch {
          // Nothing more to undo: PGlite rolled back itself, or it is closing.
        }
        throw error;
      } finally {
        active = false;
        mutex.release();
      }
    },
    close: () =>
      mutex.run(async () => {
        if (closed) return;
        closed = true;
        if (options.ownsDatabase && !db.closed) await db.close();
        await options.onClose?.();
      }),
  };
}
