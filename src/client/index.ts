/**
 * express-crypto-pay/client: the typed /v1 API's every request and answer type, for the HTTP
 * client (`createPaymentClient`) and the in-process API (`payments.forMerchant`), which share
 * them. `createPaymentClient` and the error classes are in the main entry only: the CommonJS build gives
 * each entry its own copy of the code, so a class (or a function that throws one) exported from two
 * entries would be two classes, and `instanceof` would fail across them. docs/in-process.md.
 */
export type { PaymentClientOptions } from "./http-client";
export type {
  PaymentResources,
  CreateOptions,
  ListPage,
  Payment,
  Withdrawal,
  Conversion,
  Refund,
  CreatedRefund,
  Balance,
  PaymentLink,
  PaymentCreateParams,
  PaymentListParams,
  WithdrawalCreateParams,
  WithdrawalListParams,
  ConversionCreateParams,
  RefundCreateParams,
  RefundListParams,
  PaymentLinkCreateParams,
  PlainListParams,
  Subscription,
  CreatedSubscription,
  SubscriptionCreateParams,
  SubscriptionUpdateParams,
  SubscriptionCancelParams,
  SubscriptionListParams,
  ListPromise,
  WebhookEndpoint,
  DeletedWebhookEndpoint,
  WebhookDelivery,
  WebhookEndpointList,
  WebhookEndpointCreateParams,
  WebhookTestParams,
  WebhookDeliveryListParams,
} from "./resources";
export type { PageLike } from "./pagination";
export { AUTO_PAGING_MAX } from "./pagination";
export type { ClientErrorType, ErrorCodeEntry } from "../errors";
