import type * as PromClient from "prom-client";
import type { InvoiceStatus } from "../core/invoices/records";
import type { Mode } from "../core/merchants/records";
import type { PayoutOutcome, WebhookAttemptOutcome } from "../core/ports/telemetry";
import type { ChainAdapter } from "../core/ports/chain";
import type { CurrencyCatalog } from "../currencies";
import type { HotWalletReading } from "../core/chains/hot-wallets";
import { chainGauges } from "./chain-gauges";
import { priceSourceGauges } from "./price-gauges";
import type { PriceRead, PriceSourceStatus } from "../core/ports/pricing";
import { type BacklogSource, webhookGauges } from "./webhook-gauges";

/** The metric name prefix when the host gives none. */
export const DEFAULT_METRICS_PREFIX = "express_crypto_pay_";

/**
 * A prom-client `Registry`, as the router uses it (typed here so the package's types do not
 * need prom-client installed).
 */
export interface MetricsRegistry {
  /** The Content-Type of the exposition it writes. */
  readonly contentType: string;
  /** The exposition of every metric registered on it. */
  metrics(): Promise<string>;
  /** The metric of this name, if one is registered (a second router with the same prefix is refused). */
  getSingleMetric(name: string): unknown;
}

/** `createPaymentRouter({ metrics })`: where metrics go and what they are called. */
export interface MetricsOptions {
  /** The host's prom-client registry. Default: one private to the router, so two routers never clash. */
  registry?: MetricsRegistry;
  /** Prefix of every metric name. Default `express_crypto_pay_`. */
  prefix?: string;
}

/** What the gauges read at scrape time. */
export interface GaugeSources {
  /** The live chains (node status and scanner lag). */
  chains: readonly ChainAdapter[];
  currencies: CurrencyCatalog;
  /** The background work's latest hot-wallet readings. */
  hotWallets: () => readonly HotWalletReading[];
  /** The webhook backlog across every instance. */
  webhookBacklog: BacklogSource;
  /** The pricing adapter's sources, from its memory (none when it lists none). */
  priceSources: () => PriceSourceStatus[];
  /** The router's clock, epoch ms: ages are counted on it. */
  now: () => number;
}

/** Latency buckets of API requests, in seconds: most answer in milliseconds, a slow storage in seconds. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Latency buckets of webhook attempts, in seconds: up to the default 15 s attempt limit. */
const WEBHOOK_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

/** Latency buckets of price source reads, in seconds: up to the default 5 s source timeout and a little past it. */
const PRICE_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What the router's gauges read at scrape time. */
export interface WatchedParts {
  /** The live chains (sync status, hot-wallet balances). */
  chains: readonly ChainAdapter[];
  currencies: CurrencyCatalog;
  /** The pricing adapter's sources, from its memory. */
  priceSources: () => PriceSourceStatus[];
  /** The router's clock, epoch ms. */
  now: () => number;
}

/** The metrics of one router, registered on one registry. */
export class PaymentMetrics {
  readonly registry: MetricsRegistry;
  private readonly invoicesCreated: PromClient.Counter<"mode">;
  private readonly invoicesSettled: PromClient.Counter<"mode" | "status">;
  private readonly depositsCredited: PromClient.Counter<"mode" | "coin">;
  private readonly depositAmount: PromClient.Counter<"mode" | "coin">;
  private readonly payouts: PromClient.Counter<"mode" | "kind" | "outcome">;
  private readonly webhookAttempts: PromClient.Counter<"outcome">;
  private readonly webhookSeconds: PromClient.Histogram<"outcome">;
  private readonly httpRequests: PromClient.Counter<"method" | "route" | "status">;
  private readonly httpSeconds: PromClient.Histogram<"method" | "route">;
  private readonly priceReads: PromClient.Counter<"source" | "outcome">;
  private readonly priceSeconds: PromClient.Histogram<"source">;

  constructor(prom: typeof PromClient, options: MetricsOptions, sources: GaugeSources) {
    const registry = (options.registry as PromClient.Registry | undefined) ?? new prom.Registry();
    this.registry = registry;
    const prefix = options.prefix ?? DEFAULT_METRICS_PREFIX;
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(prefix))
      throw new TypeError(`createPaymentRouter: metrics.prefix ${JSON.stringify(prefix)} is not a valid Prometheus name start`);
    const taken = `${prefix}invoices_created_total`;
    if (registry.getSingleMetric(taken)) {
      throw new TypeError(
        `createPaymentRouter: the metrics registry already has ${taken} (another router on the same registry?): give each router its own metrics.prefix or registry`,
      );
    }
    const registers = [registry];
    const counter = <L extends string>(name: string, help: string, labelNames: L[]) =>
      new prom.Counter<L>({ name: prefix + name, help, labelNames, registers });
    const histogram = <L extends string>(name: string, help: string, labelNames: L[], buckets: number[]) =>
      new prom.Histogram<L>({ name: prefix + name, help, labelNames, buckets, registers });
    this.invoicesCreated = counter("invoices_created_total", "Invoices created.", ["mode"]);
    this.invoicesSettled = counter("invoices_settled_total", "Invoices that reached a final status (PAID, FAILED, EXPIRED).", ["mode", "status"]);
    this.depositsCredited = counter("deposits_credited_total", "Deposits credited.", ["mode", "coin"]);
    this.depositAmount = counter("deposits_credited_amount_total", "Amount of the deposits credited, in decimal coin units.", ["mode", "coin"]);
    this.payouts = counter("payouts_total", "Payouts (withdrawals and refunds) that ended, by outcome.", ["mode", "kind", "outcome"]);
    this.webhookAttempts = counter("webhook_attempts_total", "Webhook delivery attempts, by outcome (delivered, retry, failed).", ["outcome"]);
    this.webhookSeconds = histogram("webhook_attempt_duration_seconds", "Duration of webhook delivery attempts.", ["outcome"], WEBHOOK_BUCKETS);
    this.httpRequests = counter("http_requests_total", "API requests, by route template and status.", ["method", "route", "status"]);
    this.httpSeconds = histogram("http_request_duration_seconds", "Duration of API requests, by route template.", ["method", "route"], HTTP_BUCKETS);
    this.priceReads = counter("price_reads_total", "Reads of each price source, by outcome (ok, stale, error).", ["source", "outcome"]);
    this.priceSeconds = histogram("price_read_duration_seconds", "Duration of price source reads.", ["source"], PRICE_BUCKETS);
    chainGauges(prom, { prefix, registers }, sources.chains, sources.currencies, sources.hotWallets);
    webhookGauges(prom, { prefix, registers }, sources.webhookBacklog);
    priceSourceGauges(prom, { prefix, registers }, sources.priceSources, sources.now);
  }

  invoiceCreated(mode: Mode): void {
    this.invoicesCreated.inc({ mode });
  }

  invoiceSettled(mode: Mode, status: InvoiceStatus): void {
    this.invoicesSettled.inc({ mode, status });
  }

  depositCredited(mode: Mode, coin: string, amount: string): void {
    this.depositsCredited.inc({ mode, coin });
    // A float for the metric only: the credited amount itself stays exact in the ledger.
    this.depositAmount.inc({ mode, coin }, Number(amount));
  }

  payoutFinished(mode: Mode, kind: "withdrawal" | "refund", outcome: PayoutOutcome): void {
    this.payouts.inc({ mode, kind, outcome });
  }

  webhookAttempt(outcome: WebhookAttemptOutcome, seconds: number): void {
    this.webhookAttempts.inc({ outcome });
    this.webhookSeconds.observe({ outcome }, seconds);
  }

  /** One read of a price source ended. */
  priceRead(read: PriceRead): void {
    this.priceReads.inc({ source: read.source, outcome: read.outcome });
    this.priceSeconds.observe({ source: read.source }, read.seconds);
  }

  /** One API request ended: `route` is its template, "unmatched" for a path no route has. */
  request(method: string, route: string, status: number, seconds: number): void {
    this.httpRequests.inc({ method, route, status: String(status) });
    this.httpSeconds.observe({ method, route }, seconds);
  }
}
