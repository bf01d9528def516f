import { sandboxChain } from "../adapters/chain/sandbox";
import { STATIC_PRICING, staticPricing } from "../adapters/pricing/static";
import { embeddedStorage } from "../adapters/storage/embedded";
import { apiTables } from "../api/tables";
import { DEFAULT_BODY_TIMEOUT_MS } from "../body-deadline";
import { chainHost, ChainSet } from "../core/chains/chains";
import type { CoreContext } from "../core/context";
import { requireStoragePart } from "../core/ports/storage/index";
import { Deadline, ROUND_WAIT_MS } from "../core/deadline";
import { HealthCheck, WEBHOOK_BACKLOG_LIMIT } from "../core/health/health";
import type { HealthReportOptions } from "../core/health/report";
import { DEFAULT_KEY_LEASE_MS, runIdempotent } from "../core/idempotency/idempotency";
import { checkApprovalRule } from "../core/payouts/approval";
import type { PriceRead, PricingAdapter } from "../core/ports/pricing";
import type { Mode } from "../core/merchants/records";
import { BackgroundWork } from "../core/background";
import { CurrencyCatalog, DEFAULT_CURRENCIES, DEFAULT_FIAT } from "../currencies";
import { WebhookSender } from "../delivery/sender";
import { screenWebhookUrl } from "../delivery/url-guard";
import { openObservability } from "../ops/index";
import { paymentAdmin } from "./admin";
import { dashboardBackend } from "./dashboard-backend";
import { Doors } from "./doors";
import { inProcessApi } from "./in-process";
import { checkOptions } from "./options";
import type { PaymentService, PaymentServiceOptions } from "./payment-service";
import { registerParts } from "./parts";

/**
 * Creates the payment service without HTTP: storage, chains, prices, background work (started
 * here unless `backgroundIntervalMs` is false), the webhook sender and the /v1 API in process
 * (`forMerchant`). A worker process runs it as is and stops it with `close()`;
 * `createPaymentRouter(service)` mounts the HTTP API, pages and dashboard on it. It takes the
 * options `createPaymentRouter` takes, checked here, once: a bad one throws before anything opens.
 */
export function createPaymentService(options: PaymentServiceOptions = {}): PaymentService {
  return openPaymentService(options, "createPaymentService");
}

/** `createPaymentService`, with `caller` starting the messages of the options it refuses ("createPaymentRouter"). */
export function openPaymentService(options: PaymentServiceOptions, caller: string): PaymentService {
  const settings = checkOptions(options, caller);
  const sandbox = sandboxChain();
  const currencies = new CurrencyCatalog(settings.currencies ?? DEFAULT_CURRENCIES, settings.fiat ?? DEFAULT_FIAT);
  const liveChains = settings.chains ?? (settings.chain ? [settings.chain] : []);
  // Every chain conflict is refused here, before the storage is opened.
  const chains = new ChainSet({ test: [sandbox], live: liveChains }, currencies);
  const storage = settings.storage ?? embeddedStorage(settings.dataDir);
  const logger = settings.logger ?? console;
  // The default table stamps its rates with the service's clock, as everything else is.
  const now = settings.now ?? Date.now;
  const pricing = settings.pricing ?? staticPricing({ at: () => new Date(now()) });
  refuseFixedLivePrices(pricing, liveChains.length > 0, settings.pricing !== undefined, caller);
  const lateWindowMs = (settings.lateWindowMinutes ?? 60) * 60_000;
  for (const chain of liveChains) chain.bind?.(chainHost({ storage, currencies, mode: "live", logger, now, lateWindowMs }));
  if (liveChains.length > 0 && !settings.publicUrl) {
    throw new TypeError(
      `${caller}: live chains need publicUrl (the origin payers reach, e.g. https://shop.example): without it, stored payment URLs and webhooks would point wherever a request's Host header says`,
    );
  }
  const context: CoreContext = { storage, pricing, currencies, chains, now, lateWindowMs, logger };
  // Checked against the currency list here, so a threshold in an unknown currency fails at start.
  if (settings.payouts?.approval) context.payoutApproval = checkApprovalRule(context, settings.payouts.approval, `${caller}: payouts.approval`);
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

  // In-process calls have no request: their links are publicUrl and the configured mount path.
  // A transport gives each call its own base (HTTP: the request's origin and mount path).
  const publicOrigin = settings.publicUrl?.replace(/\/+$/, "");
  const mountPath = (settings.mountPath ?? "/").replace(/\/+$/, "");
  const tables = apiTables(context, {
    sandbox,
    background,
    webhookPolicy: {
      rotationOverlapMs: (settings.webhooks?.rotationOverlapMinutes ?? 1440) * 60_000,
      screenUrl: (url: string) => screenWebhookUrl(url, addressRules),
    },
    idempotency: (scope, key, hash, work) => runIdempotent(context, scope, key, hash, work, { leaseMs: settings.idempotency?.leaseMs ?? DEFAULT_KEY_LEASE_MS }),
    linkBase: (call) => (call.linkBase ? call.linkBase() : `${publicOrigin}${mountPath}`),
  });
  // Counts what the service answers, so close() can let it finish and turn new requests away.
  const doors = new Doors();

  if (settings.backgroundIntervalMs !== false) background.start(settings.backgroundIntervalMs ?? 5000);
  sender.start();
  const healthCheck = new HealthCheck(context, { background: () => background.status(), hotWallets: () => background.hotWalletReadings() }, settings.health);
  const health = (healthOptions?: HealthReportOptions) => healthCheck.report(healthOptions);
  // Loops are stuck when no storage-only round ended for ten beats (and at least a minute).
  const stallMs = Math.max(60_000, 10 * (typeof settings.backgroundIntervalMs === "number" ? settings.backgroundIntervalMs : 5000));
  const startedAt = now();

  let closing: Promise<void> | undefined;
  const shutdown = async () => {
    // New requests are refused from now on; those in flight finish (a request waits for a node
    // at most REQUEST_NODE_WAIT_MS), as the background rounds do, within one deadline: a hung
    // node never holds close() for its adapter's whole timeout.
    doors.close();
    const deadline = new Deadline(ROUND_WAIT_MS);
    await Promise.all([deadline.wait(doors.drained()), background.stop(deadline)]);
    await sender.stop();
    for (const chain of liveChains) await chain.close?.();
    await pricing.close?.();
    await context.storage.close();
  };

  const service: PaymentService = {
    admin: paymentAdmin(context, () => background.hotWalletReadings()),
    storage: context.storage,
    sandbox,
    forMerchant: (merchantId, mode, callOptions = {}) =>
      inProcessApi(tables.providerApi, context, doors, { merchantId, mode, actor: callOptions.actor, publicUrl: settings.publicUrl, caller }),
    health,
    metrics: () => observability.scrape(),
    ready: () => background.ready(typeof settings.backgroundIntervalMs === "number" ? settings.backgroundIntervalMs : 1000),
    tick: async (tickOptions = {}) => {
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
    // Once: several routers may be mounted on one service, and each one's close() closes it.
    close: () => {
      closing ??= shutdown();
      return closing;
    },
  };
  registerParts(service, {
    context,
    settings: { ...settings, bodyTimeoutMs: settings.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS },
    tables,
    doors,
    observer: observability.observer,
    liveness: { status: () => background.status(), stallMs, startedAt, now },
    dashboard: dashboardBackend({ context, api: tables.providerApi, admin: service.admin, health }),
  });
  return service;
}

/**
 * A live chain priced from the fixed table would quote BTC at 60000 whatever the market does,
 * and lose the merchant money at the first move. So live chains with the table are refused at
 * boot, unless the host said explicitly that it means fixed prices.
 */
function refuseFixedLivePrices(pricing: PricingAdapter, live: boolean, given: boolean, caller: string): void {
  const fixed = (pricing as { [STATIC_PRICING]?: { allowLive: boolean } })[STATIC_PRICING];
  if (!live || !fixed || fixed.allowLive) return;
  throw new TypeError(
    given
      ? `${caller}: live chains would quote from staticPricing()'s fixed table. Pass live prices (exchangeRates() from "express-crypto-pay/rates"), or staticPricing({ allowLive: true }) if you really mean fixed prices in live mode`
      : `${caller}: live chains need live prices, and the default pricing is a fixed table (BTC = 60000 USD). Pass pricing: exchangeRates({ sources: [...] }) from "express-crypto-pay/rates", or staticPricing({ allowLive: true }) if you really mean fixed prices`,
  );
}
