import type * as PromClient from "prom-client";
import type { Telemetry } from "../core/ports/telemetry";
import type { RequestObserver } from "./request-observer";
import { type GaugeSources, PaymentMetrics, type MetricsOptions } from "./metrics";
import { loadOptional } from "./optional";
import { openTracing, type Tracing } from "./tracing";

/** What a router watches itself with: telemetry for core, an observer for its API, the scrape handler. */
export interface Observability {
  /** Absent when there are neither metrics nor tracing: core then skips every report. */
  telemetry: Telemetry | undefined;
  /** Absent likewise: the API's requests then cost nothing more. */
  observer: RequestObserver | undefined;
  /** Reads the Prometheus metrics for a scrape, or says why there are none (off, or prom-client missing). */
  scrape(): Promise<MetricsScrape>;
}

/** One scrape: the metrics in the exposition format, or why there are none (an HTTP handler answers it 501). */
export type MetricsScrape = { contentType: string; body: string } | { unavailable: string };

/** The router's settings for metrics and tracing, and what the gauges read at scrape time. */
export interface ObservabilitySettings extends GaugeSources {
  metrics?: MetricsOptions | false;
  tracing?: boolean;
}

/**
 * Sets up metrics (prom-client) and tracing (@opentelemetry/api), each only when its package is
 * installed and not turned off. `load` finds the optional packages (tests swap it).
 */
export function openObservability(settings: ObservabilitySettings, load: (name: string) => unknown = loadOptional): Observability {
  const prom = settings.metrics === false ? null : (load("prom-client") as typeof PromClient | null);
  const metrics = prom ? new PaymentMetrics(prom, settings.metrics || {}, settings) : null;
  const tracing = settings.tracing === false ? null : openTracing(load);
  return {
    telemetry: metrics || tracing ? telemetryOf(metrics, tracing) : undefined,
    observer: metrics || tracing ? requestObserver(metrics, tracing) : undefined,
    scrape: scraper(metrics, settings.metrics === false),
  };
}

function telemetryOf(metrics: PaymentMetrics | null, tracing: Tracing | null): Telemetry {
  return {
    invoiceCreated: (mode) => metrics?.invoiceCreated(mode),
    invoiceSettled: (mode, status) => metrics?.invoiceSettled(mode, status),
    depositCredited: (mode, coin, amount) => metrics?.depositCredited(mode, coin, amount),
    payoutFinished: (mode, kind, outcome) => metrics?.payoutFinished(mode, kind, outcome),
    webhookAttempt: (outcome, seconds) => metrics?.webhookAttempt(outcome, seconds),
    priceRead: (read) => metrics?.priceRead(read),
    span: tracing ? (name, attributes, work) => tracing.span(name, attributes, work) : (_name, _attributes, work) => work(),
  };
}

function requestObserver(metrics: PaymentMetrics | null, tracing: Tracing | null): RequestObserver {
  return {
    begin: (method) => {
      const started = performance.now();
      const span = tracing?.request(method);
      let template = "unmatched";
      return {
        route: (route) => {
          template = route;
          span?.route(route);
        },
        end: (status) => {
          metrics?.request(method, template, status, (performance.now() - started) / 1000);
          span?.end(status);
        },
      };
    },
  };
}

function scraper(metrics: PaymentMetrics | null, off: boolean): () => Promise<MetricsScrape> {
  if (!metrics) {
    const unavailable = off
      ? "Metrics are turned off for this router (createPaymentRouter({ metrics: false }))."
      : "Metrics need the prom-client package: npm install prom-client";
    return async () => ({ unavailable });
  }
  return async () => ({ contentType: metrics.registry.contentType, body: await metrics.registry.metrics() });
}
