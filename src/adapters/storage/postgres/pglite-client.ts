import { Mutex } from "../mutex";
import { shared } from "./shared";
import { type SqlClient, type SqlQueryable, type SqlResult, transactionEnded } from "./sql-client";
import { inlineParams } from "./sql-literal";

/** The part of a PGlite instance we use (a `PGlite` fits). */
export interface PGliteLike {
  exec(text: string): Promise<Array<{ rows: unknown[]; affectedRows?: number; rowCount?: number }>>;
  close(): Promise<void>;
  readonly closed?: boolean;
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
        query: async (text, params) => (active ? answer(await send(inlineParams(text, params))) : transactionEnded()),
        exec: async (text) => void (active ? await send(text) : transactionEnded()),
        defer: (text, params) => void (active ? pending.push(inlineParams(text, params)) : transactionEnded()),
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
