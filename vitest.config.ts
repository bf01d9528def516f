import { defineConfig } from "vitest/config";
import { reportersFor } from "./test/support/fail-on-skip.ts";

// EXPRESS_MAJOR=4 runs the tests against Express 4 (the `express4` dev dependency) instead of
// Express 5: the alias reaches the library's own `import express` too, as a host app on
// Express 4 would.
//
// `npm test` then runs `npm run test:express4` (package.json): not every HTTP test again, but the
// files that reach each place where the library meets Express and the two majors differ, since
// the rest runs the same domain code through the same few Express calls:
// - async handlers (Express 4 ignores a handler's promise), the host's query parser (qs) and
//   error middleware: test/http/express-major.test.ts;
// - body parsing: the router's own (errors, hardening-body: limits, media types, charsets,
//   streams) and a host's body-parser of Express 4 mounted before it (host-body-parser);
//   urlencoded forms: the hosted page (pay-page), the dashboard (dashboard);
// - the router's mounting and path matching: every route of the route table answering under
//   Express 4's path syntax (openapi: each documented route answers 401, not 404/405), mount
//   paths and undecodable or control-character paths (hardening-ids-paths, hardening-body-headers,
//   host-body-parser), the health router (health), the dashboard's router (dashboard);
// - what responses use of Express: res.sendFile of the API reference's assets
//   (hardening-body-headers), res.attachment and streamed exports (exports-download),
//   res.cookie, req.acceptsLanguages and 303 redirects of the hosted pages (pay-page,
//   pay-page/subscription-page, v1/payment-links), req.ip under `trust proxy`
//   (v1/payment-link-abuse), and a real browser on them (pay-page/pay-page.browser);
// - webhookHandler on an Express 4 app (webhooks/webhook-handler) and both apps end to end
//   (e2e/webhooks.e2e).
// `npm run test:express4:all` runs every HTTP, webhook, end-to-end and dashboard test on Express 4.
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
    // Setup hooks start nodes, browsers and PGlite (WASM, compiled on open), which on a loaded
    // machine can take longer than vitest's 10 s default; no test checks a timing.
    hookTimeout: 60_000,
    ...(reporters ? { reporters } : {}),
  },
});
