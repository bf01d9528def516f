/**
 * express-crypto-pay: a crypto payment service inside an Express app.
 * Named exports only. README.md is the quick start; docs/ has a guide per topic.
 */
export { createPaymentRouter } from "./payment-router";
export type { PaymentRouter } from "./payment-router";
export type { PaymentAdmin } from "./service/admin";
export type { PaymentRouterOptions } from "./service/options";
export { createPaymentService } from "./service/create-service";
export type { PaymentService, PaymentServiceOptions } from "./service/payment-service";
export type { DashboardOptions, DashboardUser, DashboardRole, ExplorerTemplates } from "./dashboard/options";
export type { MetricsOptions, MetricsRegistry } from "./ops/metrics";
export type { HostLookup, ResolvedAddress } from "./delivery/url-guard";
export type { PayPageBranding } from "./service/options";
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
} from "./client/resources";
export type { PageLike } from "./client/pagination";
export { AUTO_PAGING_MAX } from "./client/pagination";
export { PaymentError, ERROR_CATALOGUE, ERROR_CODES, CLIENT_CODES, CodedError } from "./errors";
export type { PaymentErrorType, ClientErrorType, ErrorBody, ErrorCodeName, ErrorCodeEntry } from "./errors";
export { AuthenticationError, InvalidRequestError, IdempotencyError, RateLimitError, UnavailableError, ConnectionError } from "./api-errors";
export { memoryStorage } from "./adapters/storage/memory/index";
export type {
  Storage,
  StorageReads,
  StorageTransaction,
  Scope,
  PostLedgerResult,
  PostLedgerOptions,
  NotableDepositQuery,
  ApiKeyMatch,
  WebhookAttemptOutcome,
  // The parts Storage is composed of: what each concern's reads, and a transaction's methods, are.
  MerchantReads,
  MerchantStore,
  InvoiceReads,
  InvoiceStore,
  AddressReads,
  AddressStore,
  DepositReads,
  DepositStore,
  LedgerReads,
  LedgerStore,
  PayoutReads,
  PayoutStore,
  AuditLogQuery,
  AuditLogReads,
  AuditLogStore,
  ExchangeReads,
  ExchangeStore,
  PaymentLinkReads,
  PaymentLinkStore,
  WebhookEndpointReads,
  WebhookEndpointStore,
  WebhookOutboxReads,
  WebhookOutboxStore,
  WebhookBacklogReads,
  WebhookBacklog,
  IdempotencyStore,
  CursorReads,
  CursorStore,
  UnlistedTransferReads,
  UnlistedTransferStore,
  ReconcileReads,
  ExportReads,
  ExportQuery,
  ExportCursor,
  RecordTotal,
  DepositTotal,
  PayoutTotal,
  BalanceTotal,
  UnlistedTotal,
  PageQuery,
  InvoiceFilter,
  PayoutFilter,
  DeliveryFilter,
  EventLogPage,
  OperatorListReads,
  OperatorDeliveryFilter,
  StorageMigrationReport,
  AllowlistReads,
  AllowlistStore,
  SubscriptionReads,
  SubscriptionStore,
  SubscriptionFilter,
  // The required part, and the optional parts (docs/storage.md, "Optional parts").
  RequiredStorageReads,
  OptionalStorageReads,
  NotableDepositReads,
  CompleteStorage,
  CompleteStorageTransaction,
  StoragePart,
  StoragePartMember,
  WithStoragePart,
} from "./core/ports/storage/index";
export { OPTIONAL_STORAGE_PARTS, STORAGE_PARTS, hasStoragePart, storageParts } from "./core/ports/storage/index";
export { webhookDeliveryId, webhookPayload, fanOut, IN_PROCESS_ENDPOINT } from "./core/ports/fan-out";
export type { InProcessEventContext, InProcessEventHandlers } from "./delivery/in-process";
export { sandboxChain } from "./adapters/chain/sandbox";
export type { SandboxChain } from "./adapters/chain/sandbox";
export type {
  ChainAdapter,
  ChainDeposit,
  DepositFeedPage,
  ChainPayoutStatus,
  ChainHost,
  ChainStateStore,
  ChainStateView,
  IssuedAddress,
  UnlistedTransfer,
  AddressUse,
  ChainSyncStatus,
  HotWalletBalance,
  ChainHoldings,
  CoinHoldings,
} from "./core/ports/chain";
export { ChainMismatchError } from "./core/ports/chain";
export { isValidAddress, isValidAddressOfFamily, addressFamily, DEFAULT_ADDRESS_FAMILIES, ANY_CHAIN } from "./adapters/chain/address-rules";
export type { AddressFamily, AddressRuleOptions, ChainKind } from "./adapters/chain/address-rules";
export { staticPricing, DEFAULT_USD_PRICES } from "./adapters/pricing/static";
export type { StaticPricing, StaticPricingOptions } from "./adapters/pricing/static";
export type { PricingAdapter, PricingHost, Rate, PriceRead, PriceReadOutcome, PricePairStatus, PriceSourceStatus } from "./core/ports/pricing";
export { PriceUnavailableError } from "./core/ports/pricing";
export { DEFAULT_CURRENCIES, DEFAULT_FIAT } from "./currencies";
export type { CurrencyConfig, NetworkConfig } from "./currencies";
export type { Logger } from "./core/ports/logger";
export type { TickReport } from "./core/service";
export type { HealthReport, HealthOptions, HealthReportOptions, HealthStatus, ChainHealth, CoinPriceHealth, PriceSourceHealth } from "./core/health";
export type { IssuedApiKey, ApiKeySummary } from "./core/merchants";
export type { AuditEntry, AuditLogPage } from "./core/audit-log";
export type { AllowedAddress, AllowedAddressInput, AllowedAddressState } from "./core/payout-allowlist";
export type { PaymentView, DepositView } from "./core/views/payment";
export type { OperatorReport, OperatorReportOptions, ReportedDeposit } from "./core/operator-report";
export type { OperatorAdmin, OperatorPage, OperatorPageOptions, MerchantSummary, DeliverySummary } from "./core/operator-tools";
export type { RecordLookups, TimelineEntry, HeldPayouts } from "./core/record-lookups";
export type { LedgerLine, LedgerLinePage, RecordRef } from "./core/ledger-entries";
export type { HotWalletBalanceReading, HotWalletReading } from "./core/hot-wallets";
export type {
  ReconcileAsset,
  ReconcileChain,
  ReconcileCount,
  ReconcileExplained,
  ReconcileOptions,
  ReconcileReport,
  ReconcileRow,
  ReconcileUnlistedToken,
} from "./core/reconcile-report";
export type { ReportedUnlistedTransfer } from "./core/unlisted";
export { sendExport } from "./express/send-export";
export type { ExportOutcome } from "./express/send-export";
export type { CsvExport } from "./core/exports/csv-export";
export type { ExportRequest } from "./core/exports/request";
export { EXPORT_COLUMNS } from "./core/exports/kinds";
export type { ExportKind } from "./core/exports/kinds";
export type * from "./core/ports/records";
export {
  INVOICE_STATUSES,
  PAYOUT_STATUSES,
  AUDIT_ACTIONS,
  PAYMENT_EVENT_TYPES,
  PAYOUT_EVENT_TYPES,
  REFUND_EVENT_TYPES,
  CONVERSION_EVENT_TYPES,
  SUBSCRIPTION_EVENT_TYPES,
  SUBSCRIPTION_STATUSES,
  EVENT_TYPES,
} from "./core/ports/records";
export type { SubscriptionView } from "./core/views/subscription";
export { verifyWebhook, DEFAULT_TOLERANCE_SECONDS } from "./webhooks/verify";
export type { VerifyWebhookOptions, WebhookRequestHeaders } from "./webhooks/verify";
export { WebhookVerificationError, WEBHOOK_VERIFICATION_CODES } from "./errors";
export type { WebhookVerificationReason } from "./errors";
export { webhookHandler } from "./webhooks/webhook-handler";
export { WEBHOOK_HANDLER_CODES } from "./errors";
export type { WebhookHandlerOptions, WebhookHandlers, WebhookContext, WebhookMiddleware } from "./webhooks/webhook-handler";
export { memoryDedupeStore } from "./webhooks/dedupe-store";
export type { WebhookDedupeStore, DedupeClaim, MemoryDedupeStore, MemoryDedupeStoreOptions, Awaitable } from "./webhooks/dedupe-store";
export { signWebhook, webhookHeaders } from "./webhooks/sign";
export type { WebhookHeaders, SignInput } from "./webhooks/sign";
export { generateWebhookSecret } from "./webhook-secret";
export type { WebhookSecret } from "./webhook-secret";
export { paymentEventSchema, paymentEventSchemas, eventSchemas, paymentDataSchema, webhookEnvelopeSchema, parseWebhookEvent } from "./schemas/events";
export {
  isPaymentEvent,
  isPaymentEventType,
  isServiceEvent,
  isServiceEventType,
  PAYMENT_EVENT_STATUSES,
  EVENT_STATUSES,
} from "./schemas/service-event";
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
} from "./schemas/service-event";
export type { WithdrawalView, RefundView, ConversionView } from "./core/views/funds";
