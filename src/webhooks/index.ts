/**
 * express-crypto-pay/webhooks: the rest of the receiver toolkit. `webhookHandler`,
 * `verifyWebhook`, `signWebhook`, `memoryDedupeStore`, `parseWebhookEvent`,
 * `generateWebhookSecret`, `WebhookVerificationError` and the main event types are in the main
 * entry only (the CommonJS build gives each entry its own copy of the code, so a function that
 * throws the package's errors must come from one place for `instanceof` to hold); here are the
 * event schemas and guards, the event type and status lists, the verification and handler
 * codes, the dedupe store's parts and `webhookHeaders`. docs/webhooks-receiving.md.
 */
export { DEFAULT_TOLERANCE_SECONDS } from "./verify";
export type { VerifyWebhookOptions, WebhookRequestHeaders } from "./verify";
export { WEBHOOK_VERIFICATION_CODES, WEBHOOK_HANDLER_CODES } from "../errors";
export type { WebhookVerificationReason } from "../errors";
export type { WebhookHandlerOptions, WebhookHandlers, WebhookContext, WebhookMiddleware } from "./webhook-handler";
export type { WebhookDedupeStore, DedupeClaim, MemoryDedupeStore, MemoryDedupeStoreOptions, Awaitable } from "./dedupe-store";
export { webhookHeaders } from "./sign";
export type { WebhookHeaders, SignInput } from "./sign";
export type { WebhookSecret } from "../webhook-secret";
export { paymentEventSchema, paymentEventSchemas, eventSchemas, paymentDataSchema, webhookEnvelopeSchema } from "../schemas/events";
export {
  isPaymentEvent,
  isPaymentEventType,
  isServiceEvent,
  isServiceEventType,
  PAYMENT_EVENT_STATUSES,
  EVENT_STATUSES,
} from "../schemas/service-event";
export type {
  PaymentEvent,
  PaymentEventData,
  PaymentEventStatus,
  PaymentEventHandlers,
  ServiceEvent,
  EventData,
  EventStatus,
  OrOtherStatus,
  ServiceEventHandlers,
  UnknownWebhookEvent,
  WebhookEvent,
} from "../schemas/service-event";
export { EVENT_TYPES } from "../core/webhooks/records";
export { PAYMENT_EVENT_TYPES } from "../core/invoices/records";
export { PAYOUT_EVENT_TYPES } from "../core/payouts/records";
export { REFUND_EVENT_TYPES } from "../core/refunds/records";
export { CONVERSION_EVENT_TYPES } from "../core/exchanges/records";
export { SUBSCRIPTION_EVENT_TYPES } from "../core/subscriptions/records";
export type { EventType } from "../core/webhooks/records";
export type { PaymentEventType } from "../core/invoices/records";
export type { PayoutEventType } from "../core/payouts/records";
export type { RefundEventType } from "../core/refunds/records";
export type { ConversionEventType } from "../core/exchanges/records";
export type { SubscriptionEventType } from "../core/subscriptions/records";
