import { defineConfig } from "tsup";

// Loaded from the user's node_modules: the drivers are peers (pg optional), and the testing
// entry must use the vitest the user's tests run in.
const external = ["pg", "@electric-sql/pglite", "vitest"];
// No `clean` here: the two builds run at once and one would delete the other's output. The
// build script empties dist/ first.

export default defineConfig([
  {
    entry: { index: "src/index.ts", postgres: "src/postgres.ts", evm: "src/evm.ts", rates: "src/rates.ts", bitcoin: "src/bitcoin.ts" },
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    target: "node20",
    external,
  },
  {
    // ESM only: it imports vitest, which cannot be require()d, so a CJS build could never load.
    entry: { testing: "src/testing/index.ts" },
    format: ["esm"],
    dts: true,
    sourcemap: true,
    target: "node20",
    external,
  },
]);
