/**
 * express-crypto-pay/storage: the storage adapter author's kit. `Storage` is composed of parts,
 * each a concern's reads and a transaction's writes; the records are what the service keeps.
 * Run `runStorageAdapterTests` (express-crypto-pay/testing) against an adapter to check every
 * part's contract. `memoryStorage` is in the main entry. docs/storage.md says which parts are
 * required and which are optional.
 */
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
export type * from "./core/audit/records";
export type * from "./core/deposits/records";
export type * from "./core/exchanges/records";
export type * from "./core/idempotency/records";
export type * from "./core/invoices/records";
export type * from "./core/ledger/records";
export type * from "./core/merchants/records";
export type * from "./core/payment-links/records";
export type * from "./core/payouts/records";
export type * from "./core/refunds/records";
export type * from "./core/subscriptions/records";
export type * from "./core/webhooks/records";
export { INVOICE_STATUSES, PAYMENT_EVENT_TYPES } from "./core/invoices/records";
export { PAYOUT_STATUSES, PAYOUT_EVENT_TYPES } from "./core/payouts/records";
export { AUDIT_ACTIONS } from "./core/audit/records";
export { REFUND_EVENT_TYPES } from "./core/refunds/records";
export { CONVERSION_EVENT_TYPES } from "./core/exchanges/records";
export { SUBSCRIPTION_EVENT_TYPES, SUBSCRIPTION_STATUSES } from "./core/subscriptions/records";
export { EVENT_TYPES } from "./core/webhooks/records";
