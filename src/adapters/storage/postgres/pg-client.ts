import { shared } from "./shared";
import { type SqlClient, type SqlQueryable, type SqlResult, transactionEnded } from "./sql-client";
import { mergeWrites } from "./write-merger";

/** What `pg` answers a statement. */
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
          if (!active) transactionEnded();
          const result = await send(text, params ?? []);
          return { rows: result.rows, rowCount: result.rowCount ?? 0 };
        },
        exec: async (text) => {
          if (!active) transactionEnded();
          await send(text);
        },
        defer: (text, params) => {
          if (!active) transactionEnded();
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
