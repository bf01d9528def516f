/**
 * express-crypto-pay/webhooks: the receiver toolkit in full. `webhookHandler`, `verifyWebhook`,
 * `signWebhook` and the main event types are also in the main entry; here are the rest: the
 * event schemas and guards, the status lists, the verification and handler codes, the dedupe
 * store's parts and the signing helpers. docs/webhooks-receiving.md.
 */
export { verifyWebhook, DEFAULT_TOLERANCE_SECONDS } from "./verify";
export type { VerifyWebhookOptions, WebhookRequestHeaders } from "./verify";
export { WEBHOOK_VERIFICATION_CODES, WEBHOOK_HANDLER_CODES } from "../errors";
export type { WebhookVerificationReason } from "../errors";
export { webhookHandler } from "./webhook-handler";
export type { WebhookHandlerOptions, WebhookHandlers, WebhookContext, WebhookMiddleware } from "./webhook-handler";
export { memoryDedupeStore } from "./dedupe-store";
export type { WebhookDedupeStore, DedupeClaim, MemoryDedupeStore, MemoryDedupeStoreOptions, Awaitable } from "./dedupe-store";
export { signWebhook, webhookHeaders } from "./sign";
export type { WebhookHeaders, SignInput } from "./sign";
export { generateWebhookSecret } from "../webhook-secret";
export type { WebhookSecret } from "../webhook-secret";
export { paymentEventSchema, paymentEventSchemas, eventSchemas, paymentDataSchema, webhookEnvelopeSchema, parseWebhookEvent } from "../schemas/events";
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
