import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", postgres: "src/postgres.ts", testing: "src/testing/index.ts" },
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  // Loaded from the user's node_modules: the drivers are peers (pg optional), and the testing
  // entry must use the vitest the user's tests run in.
  external: ["pg", "@electric-sql/pglite", "vitest"],
});
