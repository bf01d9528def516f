import { copyFile, mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { defineConfig } from "tsup";
import { REFERENCE_ASSET_DIR, REFERENCE_ASSETS, REFERENCE_LICENSES } from "./src/http/routes/reference-assets";

// Loaded from the user's node_modules: the drivers are peers (pg optional), and the testing
// entry must use the vitest the user's tests run in.
const external = ["pg", "@electric-sql/pglite", "vitest"];
// `@internal` takes effect: a declaration so marked is left out of the published .d.ts (the
// runtime export stays). TypeScript's own stripInternal, on both builds and both formats' .d.ts;
// API Extractor (npm run check:api) reads the result, so a public type that still uses a
// stripped one fails there instead of shipping a dangling name.
const dts = { compilerOptions: { stripInternal: true } };
// No `clean` here: the two builds run at once and one would delete the other's output. The
// build script empties dist/ first.

/**
 * Copies the API reference's Swagger UI files from the swagger-ui-dist dev dependency into
 * dist/swagger-ui/, so the published package serves them without depending on swagger-ui-dist
 * (and its install-time telemetry): src/http/routes/reference-assets.ts.
 */
async function copyReferenceAssets(): Promise<void> {
  const from = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  const to = join("dist", REFERENCE_ASSET_DIR);
  await mkdir(to, { recursive: true });
  for (const file of [...REFERENCE_ASSETS, ...REFERENCE_LICENSES]) await copyFile(join(from, file), join(to, file));
}

export default defineConfig([
  {
    entry: {
      index: "src/index.ts",
      client: "src/client/index.ts",
      webhooks: "src/webhooks/index.ts",
      operator: "src/operator.ts",
      storage: "src/storage.ts",
      chains: "src/chains.ts",
      postgres: "src/postgres.ts",
      evm: "src/evm.ts",
      rates: "src/rates.ts",
      bitcoin: "src/bitcoin.ts",
      monero: "src/monero.ts",
    },
    format: ["esm", "cjs"],
    dts,
    sourcemap: true,
    target: "node20",
    external,
    // p-retry (and its is-network-error) are ESM only: left external, the CommonJS build's
    // require() of them gave a namespace, not the function, and createPaymentClient failed on
    // its first call. Bundled, both formats carry their own copy.
    noExternal: ["p-retry", "is-network-error"],
    // The reference page finds its files beside the module (import.meta.url, shimmed in CJS).
    shims: true,
    onSuccess: copyReferenceAssets,
  },
  {
    // ESM only: it imports vitest, which cannot be require()d, so a CJS build could never load.
    entry: { testing: "src/testing/index.ts" },
    format: ["esm"],
    dts,
    sourcemap: true,
    target: "node20",
    external,
  },
  {
    // The `express-crypto-pay` command (package.json "bin"): ESM, no types; its source starts
    // with the #!/usr/bin/env node line, which esbuild keeps.
    entry: { cli: "src/cli/main.ts" },
    format: ["esm"],
    sourcemap: true,
    target: "node20",
    external,
  },
]);
