import request from "supertest";
import express from "express";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Storage } from "../../src/index";
import { postgresStorage } from "../../src/postgres";
import { DATABASE_URL, dropSchema, uniqueSchema } from "../adapters/storage/sql-fixtures";
import { closeDeliveryTests, createEndpoint, createInvoice, harness, PERSISTED, startReceiver } from "../delivery/receiver";
import { describeIf, NO_DATABASE_URL } from "../support/skips";

/**
 * A webhook endpoint is failing while its latest answer is a failure, and healthy again from its
 * first success after one, as GET /health shows it: not only once the deliveries that failed
 * before have had their retries.
 */

const schema = uniqueSchema("endpoint_health");
afterEach(closeDeliveryTests);
afterAll(() => dropSchema(schema));

/** Runs the story on a router over `storage` (the embedded default when undefined). */
async function recoveredEndpoint(storage: Storage | undefined): Promise<void> {
  const h = await harness({ ...(storage ? { storage } : {}), webhooks: PERSISTED });
  const receiver = await startReceiver({ fallback: 500 });
  await createEndpoint(h, receiver.url);
  const app = express().get("/health", h.router.healthHandler);

  // Two events, both refused: each waits a minute for its retry, the endpoint is failing.
  await createInvoice(h);
  await createInvoice(h);
  await h.router.tick({ mode: "test" });
  let health = await request(app).get("/health");
  expect(health.body.reasons).toEqual(["webhooks: 1 endpoint(s) failing"]);
  expect(health.body.webhooks).toMatchObject({ retrying: 2, failingEndpoints: 1 });

  // The receiver is fixed; the next event is accepted. The two older ones still wait.
  receiver.reply(200);
  h.clock.ms += 1000;
  await createInvoice(h);
  await h.router.tick({ mode: "test" });
  expect(receiver.requests).toHaveLength(3);
  health = await request(app).get("/health");
  expect(health.body.status).toBe("ok");
  expect(health.body.webhooks).toMatchObject({ retrying: 2, failingEndpoints: 0 });

  // Its next failure counts it failing again.
  h.clock.ms += 1000;
  await createInvoice(h);
  await h.router.tick({ mode: "test" });
  health = await request(app).get("/health");
  expect(health.body.webhooks).toMatchObject({ retrying: 3, failingEndpoints: 1 });
}

describe("webhook endpoint health", () => {
  it("counts an endpoint healthy from its first success after a failure, while its older deliveries wait for their retries", async () => {
    await recoveredEndpoint(undefined);
  });
});

describeIf(DATABASE_URL, NO_DATABASE_URL)("webhook endpoint health on a PostgreSQL server", () => {
  it("counts an endpoint healthy from its first success after a failure, while its older deliveries wait for their retries", async () => {
    await recoveredEndpoint(postgresStorage({ connectionString: DATABASE_URL!, schema }));
  });
});
