/**
 * Property-based fuzzing of every route the payment router serves, through HTTP.
 *
 * The routes come from the served OpenAPI document (GET /api/openapi), which is generated from
 * the route tables: a new route is fuzzed without editing this file. The hosted pages (/pay)
 * and the reference (/api) are added by hand in fuzz/routes.ts. Each route gets hostile
 * requests (test, live, another merchant's, no and malformed keys; NUL and control characters
 * in ids, fields and query parameters; bad percent-encodings; over-precise and huge numbers;
 * `__proto__` keys; 2,000 levels of nesting; corrupt Content-Encoding; wrong types; unknown
 * fields) and schema-shaped ones, and each property of fuzz/oracle.ts is checked on its own.
 *
 * Runs on the memory adapter, on PGlite, and on a PostgreSQL server, one test file each
 * (test/http/fuzz-memory, fuzz-pglite, fuzz-postgres.test.ts), so that they run side by side.
 * Fixed seed, few runs per route and property, so each file stays under a minute:
 *   FUZZ_RUNS=<n>   runs per route and property on every storage (nightly: FUZZ_RUNS=200)
 *   FUZZ_SEED=<n>   another seed (a failure prints the seed and path to replay it)
 */
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiReferenceOf } from "../../../src/http/routes/docs";
import { storageBackends, type StorageBackend } from "../../adapters/storage/sql-fixtures";
import { check, PROPERTIES, storageSnapshot, type Property } from "./oracle";
import { describeRequest, requestArbitrary, send } from "./requests";
import { apiRoutes, PAGE_ROUTES, type FuzzRoute } from "./routes";
import { fuzzWorld, type FuzzApp } from "./world";
import { describeIf, NO_DATABASE_URL } from "../../support/skips";

const SEED = Number(process.env.FUZZ_SEED ?? 20260301);
const RUNS_OVERRIDE = Number(process.env.FUZZ_RUNS ?? "") || undefined;

/** Runs per route and property on each storage unless FUZZ_RUNS says otherwise: SQL round trips cost more. */
const RUNS: Record<StorageBackend["name"], number> = { "memory storage": 12, PGlite: 4, "PostgreSQL server": 4 };

const BACKENDS = storageBackends("fuzz").map((backend) => ({ ...backend, runs: RUNS[backend.name] }));

/** One failing route of one property: what fast-check shrank it to. */
interface Failure {
  route: string;
  counterexample: string;
  error: string;
  replay: string;
}

/**
 * Checks `property` on every route, each with its own fast-check run (so one failing route
 * does not hide another), and fails once at the end with each route's shrunk counterexample.
 */
async function walkRoutes(app: FuzzApp, routes: FuzzRoute[], property: Property, runs: number): Promise<Failure[]> {
  const failures: Failure[] = [];
  const { h, world, scopes, logger } = app;
  for (const route of routes) {
    let snapshot = property === "no-write" ? await storageSnapshot(h.router.storage, scopes) : "";
    const details = await fc.check(
      fc.asyncProperty(requestArbitrary(route, world), async (fuzz) => {
        const lines = logger.lines.length;
        const res = await send(h.app, world, fuzz);
        const logged = logger.lines.slice(lines);
        const before = snapshot;
        if (property === "no-write") snapshot = await storageSnapshot(h.router.storage, scopes);
        check(property, { fuzz, res, logged, before, after: snapshot });
      }),
      { seed: SEED, numRuns: runs },
    );
    if (details.failed) {
      const [fuzz] = details.counterexample ?? [];
      failures.push({
        route: `${route.method} ${route.path}`,
        counterexample: fuzz ? describeRequest(fuzz) : "(none)",
        error: details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance),
        replay: `seed ${details.seed}, path "${details.counterexamplePath}", ${details.numShrinks} shrinks`,
      });
    }
  }
  return failures;
}

function report(failures: Failure[]): string {
  return failures.map((f) => `\n● ${f.route}\n  request: ${f.counterexample}\n  failure: ${f.error}\n  replay:  ${f.replay}`).join("\n");
}

/**
 * Registers the fuzzing of every route on one storage. Each storage's run has a test file of its
 * own (test/http/fuzz-*.test.ts), so that the three, the slowest HTTP tests, run side by side in
 * the test workers rather than one after the other.
 */
export function fuzzEveryRoute(name: StorageBackend["name"]): void {
  const backend = BACKENDS.find((entry) => entry.name === name);
  if (backend === undefined) throw new Error(`no storage backend named ${name}`);
  describeIf(backend.enabled, NO_DATABASE_URL)(`fuzzing every route on ${backend.name}`, () => {
    let app: FuzzApp;
    let routes: FuzzRoute[];
    let dispose: () => Promise<void>;
    const runs = RUNS_OVERRIDE ?? backend.runs;

    beforeAll(async () => {
      const opened = await backend.open();
      dispose = opened.dispose;
      app = await fuzzWorld(opened.storage);
      routes = [...apiRoutes(app.document), ...PAGE_ROUTES];
    }, 60_000);

    afterAll(async () => {
      await app?.h.router.close();
      await dispose?.();
    });

    it("fuzzes exactly the routes the route tables serve, and has records to address", () => {
      const reference = apiReferenceOf(app.h.router)!;
      const served = reference.apis.flatMap(({ prefix, table }) => table.operations().map((op) => `${op.method} ${prefix}${op.path}`));
      expect(
        routes
          .filter((route) => route.kind === "api")
          .map((route) => `${route.method} ${route.path}`)
          .sort(),
      ).toEqual(served.sort());
      for (const collection of ["payments", "webhook-endpoints", "webhook-deliveries", "payment-links", "withdrawals", "conversions", "refunds"]) {
        expect(app.world.ids[collection]?.length ?? 0, `fixture ids for ${collection}`).toBeGreaterThan(0);
      }
    });

    for (const [title, property] of Object.entries(PROPERTIES)) {
      it(title, { timeout: 600_000 }, async () => {
        const failures = await walkRoutes(app, routes, property, runs);
        if (failures.length > 0) throw new Error(`${failures.length} of ${routes.length} routes fail:${report(failures)}`);
      });
    }
  });
}
