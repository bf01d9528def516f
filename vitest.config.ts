import { defineConfig } from "vitest/config";
import { reportersFor } from "./test/support/fail-on-skip.ts";

// EXPRESS_MAJOR=4 runs the tests against Express 4 (the `express4` dev dependency) instead of
// Express 5: the alias reaches the library's own `import express` too, as a host app on
// Express 4 would. `npm test` runs the HTTP, webhook and browser tests this way as well.
const express4 = process.env.EXPRESS_MAJOR === "4";
if (process.env.EXPRESS_MAJOR !== undefined && !["4", "5"].includes(process.env.EXPRESS_MAJOR)) {
  throw new Error(`EXPRESS_MAJOR must be 4 or 5, got ${process.env.EXPRESS_MAJOR}`);
}

// FAIL_ON_SKIP=1 (.ci/run) fails the run when any test is skipped: test/support/fail-on-skip.ts.
const reporters = reportersFor(process.env);

export default defineConfig({
  resolve: express4 ? { alias: [{ find: /^express(?=\/|$)/, replacement: "express4" }] } : {},
  test: {
    // Without DATABASE_URL, a throwaway PostgreSQL server for the run: test/support/postgres-server.ts.
    globalSetup: ["test/support/postgres-server.ts"],
    include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 20_000,
    ...(reporters ? { reporters } : {}),
  },
});
