import { afterEach, describe, expect, it } from "vitest";
import request from "supertest";
import express from "express";
import parsePrometheusTextFormat, { type ParsedFamily } from "parse-prometheus-text-format";
import { Registry } from "prom-client";
import { setup, type Harness } from "../helpers";
import { closeReceivers, createEndpoint, startReceiver } from "../delivery/receiver";
import { openObservability } from "../../src/ops/index";
import { metricsHandler } from "../../src/http/metrics";
import { CurrencyCatalog, DEFAULT_CURRENCIES, DEFAULT_FIAT } from "../../src/currencies";
import { memoryStorage } from "../../src/index";

const PREFIX = "express_crypto_pay_";
const ADDRESS = "TCUmA2JEPuSiBFmNGRiVktBZKbLB89JnSq";
const routers: Harness[] = [];

afterEach(async () => {
  await closeReceivers();
  for (const h of routers.splice(0)) await h.router.close();
});

async function harness(options: Parameters<typeof setup>[0] = {}): Promise<Harness> {
  const h = await setup(options);
  routers.push(h);
  return h;
}

/** Scrapes the router's metrics through a mounted handler and parses them with a real parser. */
async function scrape(h: Harness): Promise<ParsedFamily[]> {
  return parsePrometheusTextFormat(await scrapeText(h));
}

async function scrapeText(h: Harness): Promise<string> {
  const app = express();
  app.get("/metrics", h.router.metricsHandler);
  const res = await request(app).get("/metrics");
  expect(res.status, res.text).toBe(200);
  expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
}

/**
 * The observation count of one labelled histogram series, read from its `_count` line: the
 * parser keeps the buckets of a histogram's last series only, without their labels.
 */
function histogramCount(text: string, name: string, labels: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${name}_count{${labels}} `));
  return line === undefined ? undefined : Number(line.split(" ")[1]);
}

/** The value of the sample of `name` with exactly these labels (a subset match), or undefined. */
function value(families: ParsedFamily[], name: string, labels: Record<string, string> = {}): number | undefined {
  const family = families.find((candidate) => candidate.name === name);
  const sample = family?.metrics.find((metric) => Object.entries(labels).every(([key, wanted]) => metric.labels?.[key] === wanted));
  if (!sample) return undefined;
  return Number(sample.value ?? sample.count);
}

/** Creates a whitelabel USDT/TRX invoice of `usd` and pays it in full through the sandbox. */
async function payInvoice(h: Harness, usd: number): Promise<void> {
  const invoice = await h.post("/api/v1/merchants/whitelabel/create", { amount: usd, payCurrency: "USDT", network: "TRX" });
  expect(invoice.status).toBe(200);
  const deposit = await h.post("/api/v1/sandbox/deposit/create", { address: invoice.body.address, amount: invoice.body.payAmount, confirmations: 19 });
  expect(deposit.status).toBe(200);
}

describe("metricsHandler", () => {
  it("counts invoices, deposits, payouts, webhook attempts and API requests, in a scrape a Prometheus parser reads", async () => {
    const h = await harness({ webhooks: { retrySchedule: [] } });
    const good = await startReceiver();
    const bad = await startReceiver({ fallback: 500 });
    await createEndpoint(h, good.url, { events: ["payment.completed"] });
    await createEndpoint(h, bad.url, { events: ["payment.completed"] });
    await payInvoice(h, 100);
    await payInvoice(h, 50);
    expect((await h.post("/api/v1/merchants/whitelabel/create", { amount: 10, payCurrency: "USDT", network: "TRX" })).status).toBe(200);
    const payout = await h.post("/api/v1/merchants/payout/create", { currency: "USDT", network: "TRX", amount: 10, address: ADDRESS });
    expect(payout.status).toBe(200);
    await h.router.tick();
    expect(good.requests).toHaveLength(2);
    expect(bad.requests).toHaveLength(2);

    const text = await scrapeText(h);
    const families = parsePrometheusTextFormat(text);
    expect(value(families, `${PREFIX}invoices_created_total`, { mode: "test" })).toBe(3);
    expect(value(families, `${PREFIX}invoices_settled_total`, { mode: "test", status: "PAID" })).toBe(2);
    expect(value(families, `${PREFIX}deposits_credited_total`, { mode: "test", coin: "USDT" })).toBe(2);
    expect(value(families, `${PREFIX}deposits_credited_amount_total`, { mode: "test", coin: "USDT" })).toBe(150);
    expect(value(families, `${PREFIX}payouts_total`, { mode: "test", kind: "withdrawal", outcome: "completed" })).toBe(1);
    expect(value(families, `${PREFIX}webhook_attempts_total`, { outcome: "delivered" })).toBe(2);
    expect(value(families, `${PREFIX}webhook_attempts_total`, { outcome: "failed" })).toBe(2);
    expect(histogramCount(text, `${PREFIX}webhook_attempt_duration_seconds`, 'outcome="delivered"')).toBe(2);
    expect(histogramCount(text, `${PREFIX}webhook_attempt_duration_seconds`, 'outcome="failed"')).toBe(2);
    expect(value(families, `${PREFIX}http_requests_total`, { method: "POST", route: "/api/v1/merchants/whitelabel/create", status: "200" })).toBe(3);
    expect(value(families, `${PREFIX}http_requests_total`, { method: "POST", route: "/api/v1/merchants/payout/create", status: "200" })).toBe(1);
    expect(histogramCount(text, `${PREFIX}http_request_duration_seconds`, 'method="POST",route="/api/v1/merchants/whitelabel/create"')).toBe(3);

    // Prometheus conventions: one prefix, counters end in _total, durations are histograms in seconds.
    for (const family of families) {
      expect(family.name.startsWith(PREFIX)).toBe(true);
      if (family.type === "COUNTER") expect(family.name).toMatch(/_total$/);
      if (family.type === "HISTOGRAM") expect(family.name).toMatch(/_seconds$/);
    }
  });

  it("labels a request by its route template, never by the ids in its path", async () => {
    const h = await harness();
    const created = await h.post("/v1/payments", { amount: "10", currency: "USD", payCurrency: "USDT", network: "TRX" });
    const id = (created.body as { id?: string }).id ?? "pay_unknown";
    await h.post("/api/v1/merchants/nothing-here", {});
    const app = express().use(h.router);
    await request(app).get(`/v1/payments/${id}`).set("Authorization", `Bearer ${h.testKey}`);
    const families = await scrape(h);
    const routes = families.find((family) => family.name === `${PREFIX}http_requests_total`)!.metrics.map((metric) => metric.labels?.route);
    expect(routes).toContain("/v1/payments/:id");
    expect(routes).toContain("unmatched");
    expect(routes.some((route) => route?.includes(id))).toBe(false);
  });

  it("keeps two routers in one process apart, each on its own registry", async () => {
    const first = await harness();
    const second = await harness();
    await payInvoice(first, 100);
    await payInvoice(first, 100);
    await payInvoice(second, 100);
    expect(value(await scrape(first), `${PREFIX}invoices_created_total`, { mode: "test" })).toBe(2);
    expect(value(await scrape(second), `${PREFIX}invoices_created_total`, { mode: "test" })).toBe(1);
  });

  it("puts its metrics on the host's registry with the host's prefix", async () => {
    const registry = new Registry();
    const h = await harness({ metrics: { registry, prefix: "shop_pay_" } });
    await payInvoice(h, 100);
    const families = parsePrometheusTextFormat(await registry.metrics());
    expect(value(families, "shop_pay_invoices_created_total", { mode: "test" })).toBe(1);
    expect(value(families, "shop_pay_deposits_credited_amount_total", { coin: "USDT" })).toBe(100);
    // A second router on the same registry and prefix would merge its counts: refused.
    await expect(setup({ metrics: { registry, prefix: "shop_pay_" } })).rejects.toThrow(/another router on the same registry/);
  });

  it("answers 501 when metrics are turned off", async () => {
    const h = await harness({ metrics: false });
    const app = express().get("/metrics", h.router.metricsHandler);
    const res = await request(app).get("/metrics");
    expect(res.status).toBe(501);
    expect(res.text).toMatch(/turned off/);
  });

  it("answers 501 saying to install prom-client when it is missing, and watches nothing", async () => {
    const currencies = new CurrencyCatalog(DEFAULT_CURRENCIES, DEFAULT_FIAT);
    const storage = memoryStorage();
    const sources = {
      chains: [],
      currencies,
      hotWallets: () => [],
      webhookBacklog: { read: () => storage.webhookBacklog(Date.now(), 10), now: Date.now },
      priceSources: () => [],
      now: Date.now,
    };
    const missing = openObservability(sources, () => null);
    expect(missing.telemetry).toBeUndefined();
    expect(missing.observer).toBeUndefined();
    const res = await request(
      express().get(
        "/metrics",
        metricsHandler(() => missing.scrape()),
      ),
    ).get("/metrics");
    expect(res.status).toBe(501);
    expect(res.text).toContain("npm install prom-client");
  });
});
