import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pgClient, type PgPoolLike } from "./pg-client";
import { pgliteClient, type PGliteLike } from "./pglite-client";
import { shared } from "./shared";
import type { SqlClient } from "./sql-client";

/** Loads an optional peer dependency, or explains how to install it. */
async function load<T>(name: string, purpose: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      throw new Error(`postgresStorage: ${purpose} needs the "${name}" package: npm install ${name}`, { cause: error });
    }
    throw error;
  }
}

/** Opens a pg Pool on a connection string; the client ends it on close. */
export async function openPgPool(connectionString: string, max: number | undefined, prepare: boolean | undefined): Promise<SqlClient> {
  const pg = await load<{ default?: { Pool: new (config: object) => PgPoolLike }; Pool?: new (config: object) => PgPoolLike }>("pg", "connectionString");
  const Pool = pg.default?.Pool ?? pg.Pool;
  if (!Pool) throw new Error('postgresStorage: the "pg" package has no Pool export');
  // pipeline: BEGIN and deferred writes travel with the next statement (pg >= 8.16; older ignore it).
  const pool = new Pool({ connectionString, pipeline: true, ...(max === undefined ? {} : { max }) });
  // An idle connection that the server drops (restart, failover) must not crash the process:
  // the pool discards it and the next query opens a fresh one.
  (pool as unknown as { on?: (event: string, listener: (error: Error) => void) => void }).on?.("error", () => undefined);
  return pgClient(pool, { ownsPool: true, ...(prepare === undefined ? {} : { prepare }) });
}

/** Data directories opened by this process: a second opener in the same process is refused too. */
const heldDirectories = shared("pglite-directories", () => new Set<string>());

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM"; // exists, owned by someone else
  }
}

/**
 * Takes the data directory for this process. PGlite is a single-process database and takes no
 * lock of its own: two processes writing one directory would corrupt it. A `lock` file with our
 * pid guards it; one left by a process that died (kill -9, power loss) is taken over.
 */
async function lockDirectory(directory: string): Promise<() => Promise<void>> {
  if (heldDirectories.has(directory)) {
    throw new Error(`postgresStorage: the data directory ${directory} is already open in this process; share one storage instead`);
  }
  await mkdir(directory, { recursive: true });
  const lockFile = join(directory, "lock");
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(lockFile, `${process.pid}\n`, { flag: "wx" });
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST" || attempt > 0) throw error;
      const owner = Number((await readFile(lockFile, "utf8").catch(() => "")).trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new Error(
          `postgresStorage: the data directory ${directory} is in use by process ${owner}. PGlite serves one process; ` +
            "to run several instances, use a PostgreSQL server (connectionString / DATABASE_URL).",
        );
      }
      await rm(lockFile, { force: true }); // stale: its process is gone
    }
  }
  heldDirectories.add(directory);
  return async () => {
    heldDirectories.delete(directory);
    await rm(lockFile, { force: true });
  };
}

/**
 * Opens PGlite on a data directory: the database lives in `<dataDir>/pgdata`, next to the
 * directory's lock file. `memory://` keeps the database in memory (nothing on disk).
 */
export async function openPGlite(dataDir: string): Promise<SqlClient> {
  const module = await load<{ PGlite: { create(dataDir?: string): Promise<PGliteLike> } }>("@electric-sql/pglite", "the embedded database (dataDir)");
  if (dataDir === "memory://") return pgliteClient(await module.PGlite.create(), { ownsDatabase: true });
  const directory = resolve(dataDir);
  const unlock = await lockDirectory(directory);
  let db: PGliteLike;
  try {
    db = await module.PGlite.create(join(directory, "pgdata"));
  } catch (error) {
    await unlock();
    throw error;
  }
  return pgliteClient(db, { ownsDatabase: true, onClose: unlock });
}
