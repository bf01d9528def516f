import { Mutex } from "../mutex";

/**
 * One small interface over the two engines the SQL adapter runs on: a `pg` Pool (a PostgreSQL
 * server, many connections) and PGlite (PostgreSQL compiled to WASM, one connection in process).
 * The adapter's SQL is the same for both; only how a statement reaches the engine differs.
 *
 * Both drivers are described here by the few methods we call, not imported, so that neither
 * package (nor its types) is needed by users of the other.
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

type PgAnswer = { rows: Array<Record<string, unknown>>; rowCount: number | null; command?: string };

/** The part of a `pg` PoolClient we use. */
export interface PgPoolClientLike {
  query(config: { text: string; values?: unknown[]; name?: string }): Promise<PgAnswer>;
  query(text: string): Promise<unknown>;
  release(destroy?: boolean | Error): void;
  on?(event: "error", listener: (error: Error) => void): unknown;
  off?(event: "error", listener: (error: Error) => void): unknown;
  /** pg >= 8.16 with `pipeline: true` in the pool's config: statements are sent without waiting for the previous answer. */
  readonly pipeline?: boolean;
}

/** The part of a `pg` Pool we use (a `pg.Pool` fits). */
export interface PgPoolLike {
  query(config: { text: string; values?: unknown[]; name?: string }): Promise<PgAnswer>;
  connect(): Promise<PgPoolClientLike>;
  end(): Promise<void>;
}

/** The part of a PGlite instance we use (a `PGlite` fits). */
export interface PGliteLike {
  exec(text: string): Promise<Array<{ rows: unknown[]; affectedRows?: number; rowCount?: number }>>;
  close(): Promise<void>;
  readonly closed?: boolean;
}

/**
 * Process-wide state, one instance however many copies of this module are loaded (the ESM and
 * CJS builds, or two entry points of a CJS bundle): they may share a pool or a PGlite instance.
 */
export function shared<T>(name: string, create: () => T): T {
  const registry = globalThis as unknown as Record<symbol, unknown>;
  const key = Symbol.for(`express-crypto-pay:${name}`);
  return (registry[key] ??= create()) as T;
}

function ended(): never {
  throw new Error("postgresStorage: a transaction's connection was used after its transaction ended");
}

// Every statement the adapter sends is one of a fixed set of texts per schema, so naming each
// text once gives a bounded set of prepared statements per connection. The names are shared by
// every client in the process: two adapters on one pool must never give one name two texts.
const statementNames = shared("statement-names", () => new Map<string, string>());
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `ecp_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name;
}

/** Most writes merged into one statement; a longer run is sent as several (keeps the set of texts small). */
const MERGE_MAX = 8;

/** The table a write statement writes, or null when the text is not a plain INSERT, UPDATE or DELETE. */
function targetOf(text: string): string | null {
  const match = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+((?:"[^"]+"\.)?[A-Za-z_][A-Za-z0-9_]*)\s/i.exec(text);
  return match ? match[1]! : null;
}

/** The highest `$n` of a statement: how many values it takes. */
function valueCount(text: string): number {
  let most = 0;
  for (const match of text.matchAll(/\$(\d+)/g)) most = Math.max(most, Number(match[1]));
  return most;
}

/** One statement of a merge plan: writes [from, to) of the run, as `text`. */
interface PlannedStatement {
  text: string;
  from: number;
  to: number;
}

/**
 * How a run of deferred writes is sent: which of them share a statement, and its text. The parts
 * of one statement run in no promised order, so two writes to one table (whose rows keep
 * insertion order in a sequence) never share one, nor does a write whose table is unknown.
 */
function plan(texts: readonly string[]): PlannedStatement[] {
  const statements: PlannedStatement[] = [];
  let from = 0;
  let tables = new Set<string>();
  const close = (to: number) => {
    const parts = texts.slice(from, to);
    let offset = 0;
    const shifted = parts.map((text) => {
      const shift = offset;
      offset += valueCount(text);
      return shift === 0 ? text : text.replace(/\$(\d+)/g, (_match, n: string) => `$${Number(n) + shift}`);
    });
    const text =
      shifted.length === 1
        ? shifted[0]!
        : `WITH ${shifted
            .slice(0, -1)
            .map((part, i) => `w${i + 1} AS (${part})`)
            .join(", ")} ${shifted.at(-1)}`;
    statements.push({ text, from, to });
    from = to;
    tables = new Set();
  };
  texts.forEach((text, i) => {
    const table = targetOf(text);
    if (i > from && (table === null || tables.has(table) || tables.has("") || i - from === MERGE_MAX)) close(i);
    tables.add(table ?? "");
  });
  if (from < texts.length) close(texts.length);
  return statements;
}

/** Plans by the sequence of texts, found by identity (statement texts are constants): no long key is built per call. */
interface PlanNode {
  next: Map<string, PlanNode>;
  statements: PlannedStatement[] | null;
}
const plans = shared("merge-plans", (): PlanNode => ({ next: new Map(), statements: null }));

/**
 * Consecutive deferred writes as few statements: `WITH w1 AS (<write 1>), ... <last write>`,
 * the placeholders of each renumbered after those before it. One statement instead of several
 * is less work on both ends, and alone (outside BEGIN) it is atomic by itself. Sound for
 * deferred writes because none depends on another's effect (the contract of `defer`).
 */
export function mergeWrites(writes: ReadonlyArray<readonly [string, readonly unknown[]]>): Array<[string, unknown[]]> {
  let node = plans;
  for (const [text] of writes) {
    let child = node.next.get(text);
    if (!child) {
      child = { next: new Map(), statements: null };
      node.next.set(text, child);
    }
    node = child;
  }
  node.statements ??= plan(writes.map(([text]) => text));
  return node.statements.map(({ text, from, to }) => {
    const values: unknown[] = [];
    for (let i = from; i < to; i++) values.push(...writes[i]![1]);
    return [text, values];
  });
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

/**
 * A SqlClient over a `pg` Pool: reads outside transactions go to the pool, each transaction
 * takes one connection. BEGIN and deferred writes wait to go out with the next statement; on a
 * pipelining pool (`pipeline: true`, pg >= 8.16) they leave in the same packet and cost no round
 * trip of their own. A unit of work that only wrote (deferred) is one statement, sent at commit,
 * without BEGIN and COMMIT.
 */
export function pgClient(pool: PgPoolLike, options: PgClientOptions = {}): SqlClient {
  const prepare = options.prepare ?? true;
  const config = (text: string, params?: readonly unknown[]) => {
    const values = params ? [...params] : [];
    return prepare ? { text, values, name: statementName(text) } : { text, values };
  };
  const answer = (result: PgAnswer): SqlResult => ({ rows: result.rows, rowCount: result.rowCount ?? 0 });

  return {
    engine: "pg",
    handle: pool,
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
      const pipelined = connection.pipeline === true;
      // Written to together, so that a batch leaves in one packet rather than one per statement.
      const stream = (connection as { connection?: { stream?: { cork?(): void; uncork?(): void } } }).connection?.stream;
      let active = true;
      let begun = false;
      let broken = false;
      // Deferred writes not sent yet: they go out, as one statement, just ahead of the next one.
      let deferred: Array<[string, readonly unknown[]]> = [];
      // The first failure of a statement nobody awaited: what the caller must see, rather than
      // the "transaction is aborted" errors of the statements after it.
      let failure: unknown = null;
      // A connection the server drops mid-transaction (restart, failover, terminated backend)
      // fails this transaction, not the process: pg emits "error" on a checked-out client.
      const dropped = (error: Error) => {
        failure ??= error;
        broken = true;
      };
      connection.on?.("error", dropped);
      const statement = (text: string, params?: readonly unknown[]) => (params === undefined ? connection.query(text) : connection.query(config(text, params)));

      /** Sends `batch` in order (in one packet when pipelining) and answers the last one's result. */
      const sendAll = async (batch: Array<[string, readonly unknown[] | undefined]>): Promise<PgAnswer> => {
        let answer: Promise<unknown>;
        try {
          if (pipelined) {
            stream?.cork?.();
            try {
              for (const [queued, values] of batch.slice(0, -1)) statement(queued, values).catch((error: unknown) => void (failure ??= error));
              answer = statement(...batch.at(-1)!);
            } finally {
              stream?.uncork?.();
            }
          } else {
            for (const [queued, values] of batch.slice(0, -1)) await statement(queued, values);
            answer = statement(...batch.at(-1)!);
          }
          const result = (await answer) as PgAnswer;
          if (failure) throw failure;
          return result;
        } catch (error) {
          throw failure ?? error;
        }
      };
      /** Sends BEGIN if not yet, the deferred writes, then `text`, and answers `text`'s result. */
      const send = (text: string, params?: readonly unknown[]): Promise<PgAnswer> => {
        const batch: Array<[string, readonly unknown[] | undefined]> = begun ? [] : [["BEGIN", undefined]];
        begun = true;
        if (deferred.length > 0) batch.push(...mergeWrites(deferred));
        deferred = [];
        batch.push([text, params]);
        return sendAll(batch);
      };
      const scoped: SqlQueryable = {
        query: async (text, params) => {
          if (!active) ended();
          const result = await send(text, params ?? []);
          return { rows: result.rows, rowCount: result.rowCount ?? 0 };
        },
        exec: async (text) => {
          if (!active) ended();
          await send(text);
        },
        defer: (text, params) => {
          if (!active) ended();
          deferred.push([text, params ?? []]);
        },
      };
      try {
        const result = await work(scoped);
        // Nothing was read, so the unit of work is its deferred writes alone: as one statement
        // they are atomic by themselves, and BEGIN and COMMIT would be two statements more.
        const writes = begun ? null : mergeWrites(deferred);
        if (writes && writes.length <= 1) {
          if (writes.length === 1) await sendAll(writes);
          return result;
        }
        // A transaction the server aborted answers COMMIT with ROLLBACK: never take that as done.
        const committed = await send("COMMIT");
        if (committed.command !== undefined && committed.command !== "COMMIT")
          throw new Error("postgresStorage: the transaction was rolled back by the server");
        return result;
      } catch (error) {
        active = false;
        if (begun && !broken) {
          try {
            await connection.query("ROLLBACK");
          } catch {
            broken = true; // the connection is in an unknown state: the pool must not hand it out again
          }
        }
        throw error;
      } finally {
        active = false;
        connection.off?.("error", dropped);
        connection.release(broken);
      }
    },
    close: async () => {
      if (options.ownsPool) await pool.end();
    },
  };
}

/** A value as a SQL literal: PGlite statements are sent with their values inlined (see pgliteClient). */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`postgresStorage: cannot store the number ${value}`);
    return value < 0 ? `(${value})` : String(value);
  }
  if (typeof value === "bigint") return value < 0n ? `(${value})` : String(value);
  if (typeof value === "string") {
    if (value.includes("\u0000")) throw new TypeError("postgresStorage: text cannot contain NUL characters");
    // standard_conforming_strings is on (checked when the database opens): only ' needs escaping.
    return `'${value.replace(/'/g, "''")}'`;
  }
  if (Array.isArray(value)) return `ARRAY[${value.map(sqlLiteral).join(", ")}]`;
  throw new TypeError(`postgresStorage: cannot send a ${typeof value} as a SQL value`);
}

/** `text` with each `$n` replaced by the literal of `params[n - 1]` (one pass: values are never rescanned). */
export function inlineParams(text: string, params?: readonly unknown[]): string {
  if (!params || params.length === 0) return text;
  return text.replace(/\$(\d+)/g, (_match, index: string) => {
    const position = Number(index) - 1;
    if (position >= params.length) throw new RangeError(`postgresStorage: statement uses $${index} but got ${params.length} value(s)`);
    return sqlLiteral(params[position]);
  });
}

/** Options of {@link pgliteClient}. */
export interface PGliteClientOptions {
  /** Close the PGlite instance on close (true when the adapter opened it). */
  ownsDatabase?: boolean;
  /** Runs after the database closed (releases the data directory's lock). */
  onClose?: () => Promise<void> | void;
}

/** One mutex per PGlite instance, shared by every client (adapter) on it: it has one connection. */
const pgliteMutexes = shared("pglite-mutexes", () => new WeakMap<PGliteLike, Mutex>());

/**
 * A SqlClient over PGlite. PGlite has a single connection, so a transaction holds it from BEGIN
 * to COMMIT: a mutex (one per PGlite instance) queues everything else, reads included, behind
 * it, which also keeps uncommitted writes from reads outside the transaction.
 *
 * Statements go through PGlite's simple protocol with their values inlined as literals: in
 * process, a statement's cost is mostly the protocol messages around it (the extended protocol
 * takes six calls into the WASM engine per statement, the simple one one call for several),
 * so BEGIN and deferred writes travel in the same call as the next statement.
 */
export function pgliteClient(db: PGliteLike, options: PGliteClientOptions = {}): SqlClient {
  let mutex = pgliteMutexes.get(db);
  if (!mutex) {
    mutex = new Mutex();
    pgliteMutexes.set(db, mutex);
  }
  const lock = mutex;
  const answer = (results: Array<{ rows: unknown[]; affectedRows?: number; rowCount?: number }>): SqlResult => {
    const last = results.at(-1);
    return { rows: (last?.rows ?? []) as Array<Record<string, unknown>>, rowCount: last?.rowCount ?? last?.affectedRows ?? last?.rows.length ?? 0 };
  };
  // Inlined literals rely on standard strings (a backslash is an ordinary character): make sure
  // once, before the first statement, whatever the instance was configured with.
  let checked: Promise<unknown> | null = null;
  const ensureStandardStrings = () => (checked ??= db.exec("SET standard_conforming_strings = on"));
  let closed = false;

  return {
    engine: "pglite",
    handle: db,
    query: (text, params) =>
      lock.run(async () => {
        await ensureStandardStrings();
        return answer(await db.exec(inlineParams(text, params)));
      }),
    exec: (text) =>
      lock.run(async () => {
        await ensureStandardStrings();
        await db.exec(text);
      }),
    async transaction<T>(work: (connection: SqlQueryable) => Promise<T>): Promise<T> {
      await lock.acquire();
      let active = true;
      let begun = false;
      // Statements not sent yet: BEGIN, then deferred writes; they go ahead of the next one.
      let pending: string[] = ["BEGIN"];
      const send = async (statement: string) => {
        const batch = [...pending, statement];
        pending = [];
        begun = true;
        return db.exec(batch.join(";\n"));
      };
      const scoped: SqlQueryable = {
        query: async (text, params) => (active ? answer(await send(inlineParams(text, params))) : ended()),
        exec: async (text) => void (active ? await send(text) : ended()),
        defer: (text, params) => void (active ? pending.push(inlineParams(text, params)) : ended()),
      };
      try {
        await ensureStandardStrings();
        const result = await work(scoped);
        await send("COMMIT");
        return result;
      } catch (error) {
        if (begun) {
          try {
            await db.exec("ROLLBACK");
          } catch {
            // Nothing more to undo: PGlite rolled back itself, or it is closing.
          }
        }
        throw error;
      } finally {
        active = false;
        lock.release();
      }
    },
    close: () =>
      lock.run(async () => {
        if (closed) return;
        closed = true;
        if (options.ownsDatabase && !db.closed) await db.close();
        await options.onClose?.();
      }),
  };
}
