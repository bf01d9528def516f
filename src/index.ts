/**
 * express-crypto-pay: a crypto payment service inside an Express app, and the receiver of its
 * signed webhooks. This entry holds what a merchant and a host use; the rest has entries of its
 * own: `/client` (every request and answer type of the typed API), `/webhooks` (the receiver's
 * event schemas, guards and codes), `/operator` (what the admin, health and report calls
 * answer), `/storage` (the storage adapter author's kit: every part and record), `/chains`
 * (the chain adapter author's kit), `/rates` (live prices and the pricing kit), `/postgres`,
 * `/evm`, `/bitcoin`, `/monero` (the production adapters) and `/testing` (conformance suites).
 * README.md is the quick start; docs/ has a guide per topic.
 */
// The service and its HTTP shell.
export { createPaymentService } from "./service/create-service";
export type { PaymentService, PaymentServiceOptions } from "./service/payment-service";
export { createPaymentRouter } from "./payment-router";
export type { PaymentRouter } from "./payment-router";
export type { PaymentRouterOptions } from "./service/options";
export type { PaymentAdmin } from "./service/admin";
export type { DashboardOptions, DashboardUser, DashboardRole } from "./dashboard/options";
export type { PayPageBranding } from "./service/options";
export type { MetricsOptions } from "./ops/metrics";
export type { TickReport } from "./core/background";
export type { HealthReport } from "./core/health/report";
export type { Mode } from "./core/merchants/records";
// The adapters' contracts and the embedded defaults.
export type { Storage } from "./core/ports/storage/index";
export type { ChainAdapter } from "./core/ports/chain";
export { ChainMismatchError } from "./core/ports/chain";
export type { PricingAdapter } from "./core/ports/pricing";
export { PriceUnavailableError } from "./core/ports/pricing";
export type { Logger } from "./core/ports/logger";
export type { CurrencyConfig, NetworkConfig } from "./currencies";
export { memoryStorage } from "./adapters/storage/memory/index";
export { sandboxChain } from "./adapters/chain/sandbox";
export { staticPricing } from "./adapters/pricing/static";
// The typed API, in process (`payments.forMerchant`) or over HTTP (`createPaymentClient`).
export { createPaymentClient } from "./client/http-client";
export type { PaymentClientOptions } from "./client/http-client";
export type {
  PaymentResources,
  CreateOptions,
  ListPage,
  Payment,
  Withdrawal,
  Conversion,
  Refund,
  Balance,
  PaymentLink,
  Subscription,
  WebhookEndpoint,
  WebhookDelivery,
} from "./client/resources";
// Errors: one class for every coded error, and the client's classes by kind.
export { PaymentError, CodedError, ERROR_CODES, ERROR_CATALOGUE, CLIENT_CODES } from "./errors";
export type { PaymentErrorType, ErrorBody, ErrorCodeName } from "./errors";
export { AuthenticationError, InvalidRequestError, IdempotencyError, RateLimitError, UnavailableError, ConnectionError } from "./api-errors";
// The receiver.
export { webhookHandler } from "./webhooks/webhook-handler";
export type { WebhookHandlerOptions, WebhookHandlers, WebhookContext } from "./webhooks/webhook-handler";
export { verifyWebhook } from "./webhooks/verify";
export type { VerifyWebhookOptions } from "./webhooks/verify";
export { WebhookVerificationError } from "./errors";
export { memoryDedupeStore } from "./webhooks/dedupe-store";
export type { WebhookDedupeStore } from "./webhooks/dedupe-store";
export { signWebhook } from "./webhooks/sign";
export { generateWebhookSecret } from "./webhook-secret";
export { parseWebhookEvent } from "./schemas/events";
export type { PaymentEvent, ServiceEvent, WebhookEvent } from "./schemas/service-event";
export type { EventType } from "./core/webhooks/records";
