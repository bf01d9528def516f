import type { SandboxChain } from "../adapters/chain/sandbox";
import type { CoreContext } from "../core/context";
import type { BackgroundWork } from "../core/background";
import type { WebhookEndpointPolicy } from "../core/webhooks/endpoints";
import { MerchantApiViews } from "../core/views/merchant-api";
import { V1Views } from "../core/views/v1";
import { type IdempotencyStep, type RouteCall, RouteTable } from "./route-table";
import { eventRoutes } from "./routes/events";
import { fundsRoutes } from "./routes/funds";
import { merchantRoutes, type PaymentUrlBuilder } from "./routes/merchant";
import { paymentLinkRoutes } from "./routes/payment-links";
import { paymentRoutes } from "./routes/payments";
import { refundClaimPath, refundClaimRoutes } from "./routes/refund-claims";
import { sandboxRoutes } from "./routes/sandbox";
import { subscriptionSandboxRoutes } from "./routes/subscription-sandbox";
import { subscriptionRoutes } from "./routes/subscriptions";
import { webhookRoutes } from "./routes/webhooks";

/** The two APIs of the service, each a route table any transport (HTTP, in process) runs. */
export interface ApiTables {
  /** `/api/v1`: merchant, reference and sandbox endpoints. */
  merchantApi: RouteTable;
  /** `/v1`: payments, refunds, withdrawals, conversions, balances, links, subscriptions, webhooks, events. */
  providerApi: RouteTable;
}

/** What the routes are built with besides the core context. */
export interface ApiWiring {
  sandbox: SandboxChain;
  background: BackgroundWork;
  webhookPolicy: WebhookEndpointPolicy;
  idempotency: IdempotencyStep;
  /** Where a call's links start (origin and mount path, no trailing slash): the pages live under it. */
  linkBase: (call: RouteCall) => string;
}

/** Registers every /api/v1 and /v1 route. */
export function apiTables(context: CoreContext, wiring: ApiWiring): ApiTables {
  const { linkBase } = wiring;
  const paymentUrl: PaymentUrlBuilder = (call, invoiceId) => `${linkBase(call)}/pay/${invoiceId}`;
  const present = new MerchantApiViews(context.currencies);
  const merchantApi = new RouteTable("/api/v1", wiring.idempotency);
  merchantRoutes(merchantApi, context, present, paymentUrl);
  sandboxRoutes(merchantApi, context, present, wiring.sandbox, wiring.background);
  subscriptionSandboxRoutes(merchantApi, context);
  const providerApi = new RouteTable("/v1", wiring.idempotency);
  const views = new V1Views(context.currencies);
  paymentRoutes(providerApi, context, views, paymentUrl, (call, refundId, secret) => `${linkBase(call)}${refundClaimPath(refundId, secret)}`);
  refundClaimRoutes(providerApi, context, views);
  fundsRoutes(providerApi, context, views);
  paymentLinkRoutes(providerApi, context, views, (call, linkId) => `${linkBase(call)}/pay/link/${linkId}`);
  subscriptionRoutes(providerApi, context, linkBase);
  webhookRoutes(providerApi, context, wiring.webhookPolicy);
  eventRoutes(providerApi, context);
  return { merchantApi, providerApi };
}
