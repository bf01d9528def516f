import express from "express";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import request from "supertest";
import { afterAll, afterEach, expect, it } from "vitest";
import { postgresStorage } from "../../src/postgres";
import { DATABASE_URL, dropSchema, uniqueSchema } from "../adapters/storage/sql-fixtures";
import { closeDeliveryTests, createEndpoint, createInvoice, harness, PERSISTED, startReceiver } from "../delivery/receiver";
import { describeIf, NO_DATABASE_URL } from "../support/skips";

/**
 * The webhook backlog is the storage's, not one sender's: a second instance on the same
 * PostgreSQL database, which sent nothing itself, reports what the first one's failing
 * receiver left waiting, in health and in metrics.
 */

const schema = uniqueSchema("backlog");
afterEach(closeDeliveryTests);
afterAll(() => dropSchema(schema));

const gauge = (text: string, name: string) => {
  const family = parsePrometheusTextFormat(text).find((entry) => entry.name === `express_crypto_pay_${name}`);
  return family?.metrics.map((metric) => Number(metric.value));
};

describeIf(DATABASE_URL, NO_DATABASE_URL)("webhook backlog across instances (PostgreSQL server)", () => {
  it("shows a failing receiver's backlog in health and metrics of an instance that sent nothing", async () => {
    const sender = await harness({ storage: postgresStorage({ connectionString: DATABASE_URL!, schema }), webhooks: PERSISTED });
    const observer = await harness({ storage: postgresStorage({ connectionString: DATABASE_URL!, schema }), webhooks: PERSISTED });
    const receiver = await startReceiver({ fallback: 500 });
    await createEndpoint(sender, receiver.url);
    for (let i = 0; i < 3; i++) await createInvoice(sender);
    const observed = express().get("/health", observer.router.healthHandler).get("/metrics", observer.router.metricsHandler);

    // Queued, not attempted yet: due now, nothing failing.
    let health = await request(observed).get("/health");
    expect(health.body.webhooks).toEqual({ retrying: 0, due: 3, oldestDueSeconds: 0, failingEndpoints: 0 });

    // The first instance attempts them: each fails and waits a minute for its retry.
    expect((await sender.router.tick({ mode: "test" })).webhooksSent).toBe(3);
    expect(receiver.requests).toHaveLength(3);
    health = await request(observed).get("/health");
    expect(health.status).toBe(200);
    expect(health.body.status).toBe("degraded");
    expect(health.body.reasons).toEqual(["webhooks: 1 endpoint(s) failing"]);
    expect(health.body.webhooks).toEqual({ retrying: 3, due: 0, oldestDueSeconds: 0, failingEndpoints: 1 });

    // Two minutes on (on the observer's clock), the retries are due and nobody has sent them.
    observer.clock.advanceMinutes(2);
    health = await request(observed).get("/health");
    expect(health.body.webhooks).toMatchObject({ retrying: 3, due: 3, failingEndpoints: 1 });
    expect(health.body.webhooks.oldestDueSeconds).toBeGreaterThanOrEqual(50);
    expect(health.body.webhooks.oldestDueSeconds).toBeLessThanOrEqual(70);
    expect(health.text).not.toContain(receiver.url);
    const metrics = await request(observed).get("/metrics");
    expect(metrics.status).toBe(200);
    expect(gauge(metrics.text, "webhook_backlog")).toEqual([3]);
    const [oldest] = gauge(metrics.text, "webhook_backlog_oldest_seconds")!;
    expect(oldest).toBeGreaterThanOrEqual(50);
    expect(oldest).toBeLessThanOrEqual(70);
    // The observer never attempted anything: the backlog came from the database.
    expect(gauge(metrics.text, "webhook_attempts_total") ?? []).toEqual([]);
  });
});
