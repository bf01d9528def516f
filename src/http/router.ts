import express, { type Router } from "express";
import type { PaymentService } from "../service/payment-service";
import { partsOf } from "../service/parts";
import type { Mode } from "../core/merchants/records";
import { apiKeyAuthenticator } from "./auth";
import { errorHandler, hostBodyErrorHandler } from "./error-handler";
import { healthHandler, livenessHandler } from "./health";
import { jsonBodyReader } from "./json-body";
import { metricsHandler } from "./metrics";
import { RequestGate } from "./request-gate";
import { responseHeaders } from "./response-headers";
import { type HttpSteps, tableDispatcher } from "./route-table";
import { mountApiReference } from "./routes/docs";
import { payLinkRoutes } from "./routes/pay-link";
import { payPageRoutes } from "./routes/pay-page";
import { refundClaimPageRoutes } from "./routes/refund-claim-page";
import { subscriptionPageRoutes } from "./routes/subscription-page";

/**
 * Mounts HTTP on a payment service: `/api/v1` (merchant, reference and sandbox endpoints), `/v1`
 * (payments, refunds, withdrawals, conversions, balances, payment links, subscriptions, webhook
 * management, events), `/api` (the API reference page) and `/api/openapi` (its OpenAPI
 * document), and `/pay` (hosted payment pages, payment links, subscription and refund claim
 * pages); every other path passes through to the host app. The router carries the service's
 * face (admin, storage, sandbox, forMerchant, tick, ready, health) and its HTTP handlers; its
 * `close()` closes the service. Several routers may be mounted on one service: they share its
 * doors, so closing one closes the service for all.
 */
export function mountPaymentService(service: PaymentService) {
  const { context, settings, tables, doors, observer, liveness } = partsOf(service);
  const logger = context.logger;
  // Public links start at the host's origin (or publicUrl) and where the host mounted us; under
  // the API prefixes req.baseUrl also holds "/api/v1" or "/v1", which is not part of it.
  // Without publicUrl the origin is the request's Host header, which any client sets: stored in
  // an invoice and sent in webhooks, it could point payers anywhere. Live chains refuse to start
  // without publicUrl; test mode says so once.
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
  const linkBase = (req: express.Request) => `${origin(req)}${req.baseUrl.replace(/\/(api\/)?v1$/, "")}`;

  const bodyTimeoutMs = settings.bodyTimeoutMs!;
  const steps: HttpSteps = {
    readBody: jsonBodyReader(settings.bodyLimit ?? "100kb", bodyTimeoutMs),
    authenticate: apiKeyAuthenticator(context),
    observer,
    linkBase,
  };
  // Counts what the router answers, so the service's close() can let it finish and turn new requests away.
  const gate = new RequestGate(doors);
  const router = express.Router();
  router.use(responseHeaders);
  router.use(["/api/v1", "/v1", "/pay"], gate.enter);
  router.use("/api/v1", tableDispatcher(tables.merchantApi, steps), errorHandler(logger));
  router.use("/v1", tableDispatcher(tables.providerApi, steps), errorHandler(logger));
  router.use(
    payLinkRoutes(context, (req, invoiceId) => `${linkBase(req)}/pay/${invoiceId}`, {
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
      { prefix: "/api/v1", table: tables.merchantApi },
      { prefix: "/v1", table: tables.providerApi },
    ],
    { publicUrl: settings.publicUrl, logger },
  );
  // A /pay path none of the pages answered goes on to the host app: no longer in flight here.
  router.use(gate.passOn, gate.passOnError);

  return Object.assign(router, {
    admin: service.admin,
    storage: service.storage,
    sandbox: service.sandbox,
    errorHandler: hostBodyErrorHandler(),
    metricsHandler: metricsHandler(() => service.metrics()),
    forMerchant: (merchantId: string, mode: Mode, callOptions?: { actor?: string }) => service.forMerchant(merchantId, mode, callOptions),
    health: service.health,
    healthHandler: healthHandler(service.health),
    livenessHandler: livenessHandler(liveness.status, liveness),
    ready: service.ready,
    tick: service.tick,
    close: service.close,
  });
}

/** `inner` (a dashboard) behind the service's doors: counted while it answers, 503 once the service closes. */
export function behindDoors(service: PaymentService, inner: Router): Router {
  return new RequestGate(partsOf(service).doors).around(inner);
}
