import type { ErrorRequestHandler, RequestHandler, Router } from "express";
import type { DashboardOptions } from "./dashboard/options";
import { dashboardRouter } from "./dashboard/router";
import { behindDoors, mountPaymentService } from "./http/router";
import { openPaymentService } from "./service/create-service";
import type { PaymentRouterOptions } from "./service/options";
import { isPaymentService, partsOf } from "./service/parts";
import type { PaymentService } from "./service/payment-service";

// Where the HTTP shell and the dashboard meet, above both: the router's dashboard() is wired
// here, so neither imports the other's factory.

/**
 * The router `createPaymentRouter` returns: mount it with `app.use(router)`. It is the service
 * (`admin`, `storage`, `sandbox`, `forMerchant`, `tick`, `ready`, `health`, as `PaymentService`
 * documents them) with HTTP on it: the handlers, the dashboard, and a `close` that stops both.
 */
export interface PaymentRouter extends Router, Omit<PaymentService, "metrics" | "close"> {
  /**
   * For a host that runs its own body parser (express.json) before the router: mount it after
   * the router, at the same path (`app.use(payments); app.use(payments.errorHandler)`). That
   * parser's failures on the router's API paths (malformed JSON, over its limit, an unsupported
   * charset or encoding) never reach a router, only error handlers; this one answers them with
   * the error object (40004, 41301, 41501) and passes every other error on.
   */
  readonly errorHandler: ErrorRequestHandler;
  /**
   * Readiness: answers `health()` as JSON, 200 when "ok" or "degraded", 503 when "unhealthy".
   * Needs no API key. Mount it where your load balancer looks: `app.get("/health", payments.healthHandler)`.
   */
  readonly healthHandler: RequestHandler;
  /**
   * Liveness: 200 while the router is open and its background loops run, 503 when they are
   * stuck or the router is closed. No probe of nodes or prices (a restart would not mend them):
   * `app.get("/livez", payments.livenessHandler)`.
   */
  readonly livenessHandler: RequestHandler;
  /**
   * The Prometheus scrape endpoint: mount it where your scraper looks, e.g.
   * `app.get("/metrics", payments.metricsHandler)` (behind your own access control if the
   * network is not private). Answers 501 when prom-client is not installed or metrics are off.
   */
  readonly metricsHandler: RequestHandler;
  /**
   * The merchant dashboard: server-rendered pages (overview, payments, API keys) to mount behind
   * the host's own login, e.g. `app.use("/admin/payments", requireLogin, payments.dashboard({
   * authorize: (req) => ({ user: req.user.email, role: "admin", merchants: "all" }) }))`.
   * `authorize` answering null is a 403; a `viewer` cannot act; `merchants` limits what is seen
   * (docs/dashboard.md). Each call makes a new router; options are checked here and throw.
   */
  dashboard(options: DashboardOptions): Router;
  /**
   * Stops cleanly: from the call on, new requests to the router (its API, pages, dashboard and
   * `forMerchant` calls) are answered 503 (50321) with nothing done; requests in flight finish
   * and background rounds end, then the webhook sender, the chains, the prices and the storage
   * close. A live chain whose node hangs is not waited for past a few seconds (its round is
   * left to end on its own): it resolves within 10 s. Answers sent before it resolved are
   * stored as they say. It closes the service the router is mounted on (so every other router
   * on that service too); calling it again returns the same promise.
   */
  close(): Promise<void>;
}

/**
 * Creates the payment service as an Express router. It answers under `/api/v1` (merchant,
 * reference and sandbox endpoints), `/v1` (payments, refunds, withdrawals, conversions,
 * balances, payment links, webhook management), `/api` (the API reference page) and
 * `/api/openapi` (its OpenAPI document), and `/pay` (hosted payment pages, payment links);
 * every other path passes through to the host app.
 * Given options, it creates the service (`createPaymentService`) and checks them here, once: a
 * bad one throws before the app starts. Given a service, it mounts HTTP on it; several routers
 * may be mounted on one service (another path, another app), and the `close()` of any of them
 * closes the service, and so every router on it (docs/mounting.md).
 */
export function createPaymentRouter(source: PaymentRouterOptions | PaymentService = {}): PaymentRouter {
  const service = isPaymentService(source) ? source : openPaymentService(source, "createPaymentRouter");
  const { dashboard, settings } = partsOf(service);
  return Object.assign(mountPaymentService(service), {
    dashboard: (options: DashboardOptions) => behindDoors(service, dashboardRouter(dashboard, options, settings.bodyTimeoutMs!)),
  });
}
