import { operatorReport } from "../core/operator-report";
import { operatorAdmin } from "../core/operator-tools";
import { reconcile } from "../core/reconcile";
import { createCsvExport } from "../core/exports/csv-export";
import express, { type Router } from "express";
import { sandboxChain, type SandboxChain } from "../adapters/chain/sandbox";
import { STATIC_PRICING, staticPricing } from "../adapters/pricing/static";
import type { PriceRead, PricingAdapter } from "../core/ports/pricing";
import { embeddedStorage } from "../adapters/storage/embedded";
import { requireStoragePart, type Storage } from "../core/ports/storage/index";
import { chainHost, ChainSet } from "../core/chains";
import type { CoreContext } from "../core/context";
import { CurrencyCatalog, DEFAULT_CURRENCIES, DEFAULT_FIAT } from "../currencies";
import * as merchants from "../core/merchants";
import { BackgroundWork, type TickReport } from "../core/service";
import type { Mode } from "../core/ports/records";
import { approvePayout, checkApprovalRule, rejectPayout } from "../core/payout-approval";
import { listAuditLog } from "../core/audit-log";
import { apiKeyAuthenticator } from "./auth";
import { errorHandler, hostBodyErrorHandler } from "./error-handler";
import { responseHeaders } from "./response-headers";
import { jsonBodyReader } from "./json-body";
import { DEFAULT_BODY_TIMEOUT_MS } from "../body-deadline";
import { checkOptions, type PaymentRouterOptions } from "./options";
import { MerchantApiViews } from "../core/views/merchant-api";
import { RouteTable, type RouteSteps } from "./route-table";
import { DEFAULT_KEY_LEASE_MS, runIdempotent } from "../core/idempotency";
import { mountApiReference } from "./routes/docs";
import { merchantRoutes, type PaymentUrlBuilder } from "./routes/merchant";
import { payPageRoutes } from "./routes/pay-page";
import { sandboxRoutes } from "./routes/sandbox";
import { eventRoutes } from "./routes/events";
import { webhookRoutes } from "./routes/webhooks";
import { fundsRoutes } from "./routes/funds";
import { payLinkRoutes } from "./routes/pay-link";
import { paymentLinkRoutes } from "./routes/payment-links";
import { subscriptionRoutes } from "./routes/subscriptions";
import { subscriptionSandboxRoutes } from "./routes/subscription-sandbox";
import { subscriptionPageRoutes } from "./routes/subscription-page";
import { paymentRoutes } from "./routes/payments";
import { refundClaimPath, refundClaimRoutes } from "./routes/refund-claims";
import { refundClaimPageRoutes } from "./routes/refund-claim-page";
import { V1Views } from "../core/views/v1";
import { WebhookSender } from "../delivery/sender";
import { screenWebhookUrl } from "../delivery/url-guard";
import { paymentResources, type PaymentResources } from "../client/resources";
import { AuthenticationError } from "../api-errors";
import { HealthCheck, type HealthReport, type HealthReportOptions, WEBHOOK_BACKLOG_LIMIT } from "../core/health";
import { healthHandler, livenessHandler } from "./health";
import { openObservability } from "../ops/index";
import { dashboardRouter } from "../dashboard/router";
import type { DashboardOptions } from "../dashboard/options";
import { allowlistAdmin, type PaymentAdmin } from "./admin";
import { RequestGate } from "./request-gate";
import { Deadline, ROUND_WAIT_MS } from "../core/deadline";

export type { PaymentAdmin } from "./admin";

/** The router `createPaymentRouter` returns: mount it with `app.use(router)`. */
export interface PaymentRouter extends Router {
  /** Merchant and key management. */
  readonly admin: PaymentAdmin;
  /** The storage in use. */
  readonly storage: Storage;
  /** The simulated chain behind test mode. */
  readonly sandbox: SandboxChain;
  /**
   * For a host that runs its own body parser (express.json) before the router: mount it after
   * the router, at the same path (`app.use(payments); app.use(payments.errorHandler)`). That
   * parser's failures on the router's API paths (malformed JSON, over its limit, an unsupported
   * charset or encoding) never reach a router, only error handlers; this one answers them with
   * the error object (40004, 41301, 41501) and passes every other error on.
   */
  readonly errorHandler: express.ErrorRequestHandler;
  /**
   * Runs one round of background work now: every chain's deposit sync, payouts and
   * housekeeping, expiry, then the webhook deliveries that are due (waiting for them to finish),
   * so every effect is visible when it resolves. Reports what it did; rejects with every failure
   * together after the rest ran. With `{ mode: "test" }`, live chains are left out, so a hung
   * live node never makes it wait. A live chain's round not ended within a few seconds (its node
   * does not answer) is not waited for: the rejection names it as still running, and it goes on
   * in the background. So it settles within 10 s whatever a node does (webhook deliveries aside).
   */
  tick(options?: { mode?: Mode }): Promise<TickReport & { webhooksSent: number }>;
  /**
   * Resolves once every live chain's node was reached and checked: the network it is on, its
   * chain id, and that the keys given belong to that network (a mainnet xpub on a regtest node
   * is refused). While a node cannot be reached it is asked again (every background interval, or
   * every second). Rejects naming the mismatch of a chain that fails the check: that chain is
   * never scanned and its coins answer 503 (50301). Await it before `app.listen` to refuse a
   * misconfiguration at start.
   */
  ready(): Promise<void>;
  /**
   * The state of every part: storage (reachable, round trip), each live chain (node head,
   * scanner height and lag, last scan, pending payouts), prices of the coins served, webhook
   * backlog and background loops; "unhealthy" with its reasons when payments cannot be taken or
   * credited (docs/operations.md). Holds no key, secret, node URL or merchant data. With
   * `{ oneShot: true }`, for a process that runs no background work (the command line): nodes
   * are checked and read now, scans and the webhook backlog come from storage.
   */
  health(options?: HealthReportOptions): Promise<HealthReport>;
  /**
   * Readiness: answers `health()` as JSON, 200 when "ok" or "degraded", 503 when "unhealthy".
   * Needs no API key. Mount it where your load balancer looks: `app.get("/health", payments.healthHandler)`.
   */
  readonly healthHandler: express.RequestHandler;
  /**
   * Liveness: 200 while the router is open and its background loops run, 503 when they are
   * stuck or the router is closed. No probe of nodes or prices (a restart would not mend them):
   * `app.get("/livez", payments.livenessHandler)`.
   */
  readonly livenessHandler: express.RequestHandler;
  /**
   * The /v1 API in process, for one merchant in one mode, without HTTP or an API key:
   * `payments.create(body)`, `payments.retrieve(id)`, `withdrawals.create`, `refunds.create`,
   * `balances.retrieve()` and the rest, each taking the /v1 request and resolving with the /v1
   * object. The same routes run as for HTTP (validation, idempotency with the `idempotencyKey`
   * option, results); errors reject as the `PaymentError` the HTTP API would have answered.
   * Links it builds start at `publicUrl` and `mountPath`, so `publicUrl` is required.
   * `actor` names who asks (your user's id): recorded as the `requestedBy` of the payouts it
   * creates, so that user cannot approve them (docs/money-controls.md); without it, nobody.
   */
  forMerchant(merchantId: string, mode: Mode, options?: { actor?: string }): PaymentResources;
  /**
   * The Prometheus scrape endpoint: mount it where your scraper looks, e.g.
   * `app.get("/metrics", payments.metricsHandler)` (behind your own access control if the
   * network is not private). Answers 501 when prom-client is not installed or metrics are off.
   */
  readonly metricsHandler: express.RequestHandler;
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
   * stored as they say.
   */
  close(): Promise<void>;
}

/**
 * Creates the payment service as an Express router. It answers under `/api/v1` (merchant,
 * reference and sandbox endpoints), `/v1` (payments, refunds, withdrawals, conversions,
 * balances, payment links, webhook management), `/api` (the API reference page) and
 * `/api/openapi` (its OpenAPI document), and `/pay` (hosted payment pages, payment links);
 * every other path passes through to the host app.
 * Options are checked here, once: a bad one throws before the app starts.
 */
export function createPaymentRouter(options: PaymentRouterOptions = {}): PaymentRouter {
  const settings = checkOptions(options);
  const sandbox = sandboxChain();
  const currencies = new CurrencyCatalog(settings.currencies ?? DEFAULT_CURRENCIES, settings.fiat ?? DEFAULT_FIAT);
  const liveChains = settings.chains ?? (settings.chain ? [settings.chain] : []);
  // Every chain conflict is refused here, before the storage is opened.
  const chains = new ChainSet({ test: [sandbox], live: liveChains }, currencies);
  const storage = settings.storage ?? embeddedStorage(settings.dataDir);
  const logger = settings.logger ?? console;
  // The default table stamps its rates with the router's clock, as everything else is.
  const now = settings.now ?? Date.now;
  const pricing = settings.pricing ?? staticPricing({ at: () => new Date(now()) });
  refuseFixedLivePrices(pricing, liveChains.length > 0, settings.pricing !== undefined);
  const lateWindowMs = (settings.lateWindowMinutes ?? 60) * 60_000;
  for (const chain of liveChains) chain.bind?.(chainHost({ storage, currencies, mode: "live", logger, now, lateWindowMs }));
  if (liveChains.length > 0 && !settings.publicUrl) {
    throw new TypeError(
      "createPaymentRouter: live chains need publicUrl (the origin payers reach, e.g. https://shop.example): without it, stored payment URLs and webhooks would point wherever a request's Host header says",
    );
  }
  const context: CoreContext = {
    storage,
    pricing,
    currencies,
    chains,
    now,
    lateWindowMs,
    logger,
  };
  // Checked against the currency list here, so a threshold in an unknown currency fails at start.
  if (settings.payouts?.approval) context.payoutApproval = checkApprovalRule(context, settings.payouts.approval, "createPaymentRouter: payouts.approval");
  if (settings.payouts?.allowlist?.coolingOffHours !== undefined) context.allowlistCoolingOffHours = settings.payouts.allowlist.coolingOffHours;
  // The gauges read the background work and the storage only when scraped, long after both exist.
  const observability = openObservability({
    metrics: settings.metrics,
    tracing: settings.tracing,
    chains: liveChains,
    currencies,
    priceSources: () => pricing.sources?.() ?? [],
    hotWallets: () => background.hotWalletReadings(),
    // Without the storage's backlog read the read fails, and the gauges are left out of every scrape (unknown).
    webhookBacklog: {
      read: async () => requireStoragePart(storage, "webhookBacklog", "The webhook backlog").webhookBacklog(now(), WEBHOOK_BACKLOG_LIMIT),
      now,
    },
    now,
  });
  context.telemetry = observability.telemetry;
  // After the telemetry, which counts the sources' reads from the first one on.
  const telemetry = observability.telemetry;
  // Prices are read for the coins some chain serves (the sandbox serves every listed coin in test
  // mode) and the fiat currencies, nothing else.
  const served = new Set((["test", "live"] as Mode[]).flatMap((mode) => chains.currencies(mode, currencies).map((currency) => currency.symbol)));
  pricing.bind?.({
    assets: [...served, ...currencies.fiatSymbols()],
    logger,
    ...(telemetry ? { priceRead: (read: PriceRead) => telemetry.priceRead(read) } : {}),
  });
  const background = new BackgroundWork(context);
  // The host's own event handlers: each event of their types is queued for them with the state
  // change that caused it, as webhooks are (durable, retried, in the delivery log).
  context.inProcessEventTypes = new Set(Object.keys(settings.on ?? {}));
  const sender = new WebhookSender(context, settings.webhooks, settings.on);
  context.onDeliveriesRecorded = () => sender.kick();
  const addressRules = { allowPrivateUrls: settings.webhooks?.allowPrivateUrls ?? false, lookup: settings.webhooks?.lookup };
  const webhookPolicy = {
    rotationOverlapMs: (settings.webhooks?.rotationOverlapMinutes ?? 1440) * 60_000,
    screenUrl: (url: string) => screenWebhookUrl(url, addressRules),
  };
  const present = new MerchantApiViews(context.currencies);

  // Public links start at the host's origin (or publicUrl) and where the host mounted us; under
  // the API prefixes req.baseUrl also holds "/api/v1" or "/v1", which is not part of it.
  // Without publicUrl the origin is the request's Host header, which any client sets: stored in
  // an invoice and sent in webhooks, it could point payers anywhere. Live chains refuse to start
  // without publicUrl (below); test mode says so once.
  let hostWarned = false;
  const publicOrigin = settings.publicUrl?.replace(/\/+$/, "");
  const origin = (req: express.Request) => {
    if (publicOrigin) return publicOrigin;
    if (!hostWarned) {
      hostWarned = true;
      logger.warn(
        "publicUrl is not set: payment and checkout URLs are built from each request's Host header, which a client controls. Set createPaymentRouter({ publicUrl }) (live chains require it).",
      );
    }
    return `${req.protocol}://${req.get("host")}`;
  };
  // In-process calls have no request: their links are publicUrl and the configured mount path.
  const mountPath = (settings.mountPath ?? "/").replace(/\/+$/, "");
  const publicBase = (req: express.Request | undefined) => (req ? `${origin(req)}${req.baseUrl.replace(/\/(api\/)?v1$/, "")}` : `${publicOrigin}${mountPath}`);
  const paymentUrl: PaymentUrlBuilder = ({ req }, invoiceId) => `${publicBase(req)}/pay/${invoiceId}`;

  const bodyTimeoutMs = settings.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const steps: RouteSteps = {
    readBody: jsonBodyReader(settings.bodyLimit ?? "100kb", bodyTimeoutMs),
    authenticate: apiKeyAuthenticator(context),
    idempotency: (scope, key, hash, work) => runIdempotent(context, scope, key, hash, work, { leaseMs: settings.idempotency?.leaseMs ?? DEFAULT_KEY_LEASE_MS }),
    observer: observability.observer,
  };
  const merchantApi = new RouteTable(steps, "/api/v1");
  merchantRoutes(merchantApi, context, present, paymentUrl);
  sandboxRoutes(merchantApi, context, present, sandbox, background);
  subscriptionSandboxRoutes(merchantApi, context);
  const providerApi = new RouteTable(steps, "/v1");
  const views = new V1Views(context.currencies);
  paymentRoutes(providerApi, context, views, paymentUrl, ({ req }, refundId, secret) => `${publicBase(req)}${refundClaimPath(refundId, secret)}`);
  refundClaimRoutes(providerApi, context, views);
  fundsRoutes(providerApi, context, views);
  paymentLinkRoutes(providerApi, context, views, ({ req }, linkId) => `${publicBase(req)}/pay/link/${linkId}`);
  subscriptionRoutes(providerApi, context, ({ req }) => publicBase(req));
  webhookRoutes(providerApi, context, webhookPolicy);
  eventRoutes(providerApi, context);

  // Counts what the router answers, so close() can let it finish and turn new requests away.
  const gate = new RequestGate();
  const router = express.Router();
  router.use(responseHeaders);
  router.use(["/api/v1", "/v1", "/pay"], gate.enter);
  router.use("/api/v1", merchantApi.dispatcher(), errorHandler(context.logger));
  router.use("/v1", providerApi.dispatcher(), errorHandler(context.logger));
  router.use(
    payLinkRoutes(context, (req, invoiceId) => `${publicBase(req)}/pay/${invoiceId}`, {
      ...settings.paymentLinks,
      secure: publicOrigin?.startsWith("https:") ?? false,
      bodyTimeoutMs,
      branding: settings.payPage,
    }),
  );
  router.use(subscriptionPageRoutes(context, { bodyTimeoutMs, branding: settings.payPage }));
  router.use(refundClaimPageRoutes(context, { publicUrl: settings.publicUrl, bodyTimeoutMs, branding: settings.payPage }));
  router.use("/pay", payPageRoutes(context, { publicUrl: settings.publicUrl, bodyTimeoutMs, branding: settings.payPage }));
  mountApiReference(
    router,
    [
      { prefix: "/api/v1", table: merchantApi },
      { prefix: "/v1", table: providerApi },
    ],
    { publicUrl: settings.publicUrl, logger: context.logger },
  );
  // A /pay path none of the pages answered goes on to the host app: no longer in flight here.
  router.use(gate.passOn, gate.passOnError);

  if (settings.backgroundIntervalMs !== false) background.start(settings.backgroundIntervalMs ?? 5000);
  sender.start();
  const healthCheck = new HealthCheck(context, { background: () => background.status(), hotWallets: () => background.hotWalletReadings() }, settings.health);
  const health = (healthOptions?: HealthReportOptions) => healthCheck.report(healthOptions);
  // Loops are stuck when no storage-only round ended for ten beats (and at least a minute).
  const stallMs = Math.max(60_000, 10 * (typeof settings.backgroundIntervalMs === "number" ? settings.backgroundIntervalMs : 5000));

  const admin: PaymentAdmin = {
    createMerchant: (input) => merchants.createMerchant(context, input),
    getMerchant: (id) => context.storage.getMerchant(id),
    issueApiKey: (merchantId, keyOptions = {}) => merchants.issueApiKey(context, merchantId, keyOptions),
    revokeApiKey: (keyId, revokeOptions) => merchants.revokeApiKey(context, keyId, revokeOptions),
    listApiKeys: (merchantId) => merchants.listApiKeys(context, merchantId),
    setSettleCurrency: (merchantId, symbol) => merchants.setSettleCurrency(context, merchantId, symbol),
    setPayoutApproval: (merchantId, rule, ruleOptions) => merchants.setPayoutApproval(context, merchantId, rule, ruleOptions),
    ...allowlistAdmin(context),
    approvePayout: (payoutId, review) => approvePayout(context, payoutId, review),
    rejectPayout: (payoutId, review) => rejectPayout(context, payoutId, review),
    listAuditLog: (query) => listAuditLog(context, query),
    operatorReport: (reportOptions) => operatorReport(context, reportOptions),
    hotWallets: () => background.hotWalletReadings(),
    ...operatorAdmin(context),
    reconcile: (reconcileOptions) => reconcile(context, reconcileOptions),
    export: (request) => createCsvExport(context, request),
  };
  return Object.assign(router, {
    admin,
    storage: context.storage,
    sandbox,
    errorHandler: hostBodyErrorHandler(),
    metricsHandler: observability.metricsHandler,
    forMerchant: (merchantId: string, mode: Mode, callOptions: { actor?: string } = {}) =>
      inProcessApi(providerApi, context, settings, merchantId, mode, callOptions.actor, gate),
    health,
    dashboard: (dashboardOptions: DashboardOptions) =>
      gatedRouter(
        gate,
        dashboardRouter(
          {
            context,
            v1: (merchant, mode, method, path, input, call = {}) =>
              providerApi.invoke({
                method,
                path,
                input,
                caller: { scope: { merchantId: merchant.id, mode }, merchant, actor: call.actor ?? null },
                idempotencyKey: call.idempotencyKey,
              }),
            health,
            operatorReport: (reportOptions) => operatorReport(context, reportOptions),
          },
          dashboardOptions,
          bodyTimeoutMs,
        ),
      ),
    healthHandler: healthHandler(health),
    livenessHandler: livenessHandler(() => background.status(), { stallMs, startedAt: now(), now }),
    ready: () => background.ready(typeof settings.backgroundIntervalMs === "number" ? settings.backgroundIntervalMs : 1000),
    tick: async (tickOptions: { mode?: Mode } = {}) => {
      const mode = tickOptions.mode;
      if (mode !== undefined && mode !== "test" && mode !== "live") throw new TypeError(`tick: mode must be "test" or "live", not ${JSON.stringify(mode)}`);
      // Webhooks go out even when another part of the round failed (a live chain that is down
      // must not hold back test-mode deliveries); the failure is reported after.
      const round = await background.tick(mode).then(
        (report) => ({ report, error: null }),
        (error: unknown) => ({ report: null, error }),
      );
      const webhooksSent = await sender.runOnce();
      if (round.error) throw round.error;
      return { ...round.report!, webhooksSent };
    },
    close: async () => {
      // New requests are answered 503 from now on; those in flight finish (a request waits for
      // a node at most REQUEST_NODE_WAIT_MS), as the background rounds do, within one deadline:
      // a hung node never holds close() for its adapter's whole timeout.
      gate.close();
      const deadline = new Deadline(ROUND_WAIT_MS);
      await Promise.all([deadline.wait(gate.drained()), background.stop(deadline)]);
      await sender.stop();
      for (const chain of liveChains) await chain.close?.();
      await pricing.close?.();
      await context.storage.close();
    },
  });
}

/**
 * A live chain priced from the fixed table would quote BTC at 60000 whatever the market does,
 * and lose the merchant money at the first move. So live chains with the table are refused at
 * boot, unless the host said explicitly that it means fixed prices.
 */
function refuseFixedLivePrices(pricing: PricingAdapter, live: boolean, given: boolean): void {
  const fixed = (pricing as { [STATIC_PRICING]?: { allowLive: boolean } })[STATIC_PRICING];
  if (!live || !fixed || fixed.allowLive) return;
  throw new TypeError(
    given
      ? 'createPaymentRouter: live chains would quote from staticPricing()\'s fixed table. Pass live prices (exchangeRates() from "express-crypto-pay/rates"), or staticPricing({ allowLive: true }) if you really mean fixed prices in live mode'
      : 'createPaymentRouter: live chains need live prices, and the default pricing is a fixed table (BTC = 60000 USD). Pass pricing: exchangeRates({ sources: [...] }) from "express-crypto-pay/rates", or staticPricing({ allowLive: true }) if you really mean fixed prices',
  );
}

/** `router.forMerchant`: the /v1 resources, carried by in-process calls of the route table. */
function inProcessApi(
  api: RouteTable,
  context: CoreContext,
  settings: PaymentRouterOptions,
  merchantId: string,
  mode: Mode,
  actor: string | undefined,
  gate: RequestGate,
): PaymentResources {
  if (mode !== "test" && mode !== "live") throw new TypeError(`forMerchant: mode must be "test" or "live", not ${JSON.stringify(mode)}`);
  if (actor !== undefined && (typeof actor !== "string" || actor.trim() === "")) throw new TypeError("forMerchant: actor must be a non-empty string");
  if (!settings.publicUrl) {
    throw new TypeError(
      "forMerchant: in-process calls build payment links without a request to take the host from; set createPaymentRouter({ publicUrl }) (and mountPath if the router is not mounted at /)",
    );
  }
  return paymentResources((call) =>
    gate.run(async () => {
      // Read per call, as an API key is: the merchant's settings (settleCurrency) may change.
      const merchant = await context.storage.getMerchant(merchantId);
      if (!merchant) throw new AuthenticationError("invalid_api_key", `forMerchant: no merchant with id ${JSON.stringify(merchantId)}.`);
      return api.invoke({
        method: call.method,
        path: call.path,
        input: call.input,
        caller: { scope: { merchantId, mode }, merchant, actor: actor ?? null },
        idempotencyKey: call.idempotencyKey,
      });
    }),
  );
}

/** `inner` behind the gate: counted while it answers, 503 once closing, and let go when it passes a request on. */
function gatedRouter(gate: RequestGate, inner: Router): Router {
  const outer = express.Router();
  outer.use(gate.enter, inner, gate.passOn, gate.passOnError);
  return outer;
}
