/**
 * express-crypto-pay/operator: what the operator's calls answer. The types of `payments.admin`
 * (keys, approvals, the allowlist, the audit log, operator lists, reconcile, exports), of
 * `health()` and `tick()`, of the dashboard's options, and `sendExport` to stream an export
 * from a host route. docs/operations.md and docs/money-controls.md describe each.
 */
export type { PaymentAdmin } from "./service/admin";
// The host's wiring, with every nested option written out in this entry's API report.
export type { PaymentRouter } from "./payment-router";
export type { PaymentService, PaymentServiceOptions } from "./service/payment-service";
export type { PaymentRouterOptions, RateLimit } from "./service/options";
export type { WebhookDeliveryOptions } from "./delivery/sender";
export type { TickReport } from "./core/background";
export type { HealthReport, HealthOptions, HealthReportOptions, HealthStatus, ChainHealth, CoinPriceHealth, PriceSourceHealth } from "./core/health/report";
export type { IssuedApiKey, ApiKeySummary } from "./core/merchants/merchants";
export type { AuditEntry, AuditLogPage } from "./core/audit/audit-log";
export type { AllowedAddress, AllowedAddressInput, AllowedAddressState } from "./core/payouts/allowlist";
export type { OperatorReport, OperatorReportOptions, ReportedDeposit } from "./core/operator/report";
export type { OperatorAdmin, OperatorPage, OperatorPageOptions, MerchantSummary, DeliverySummary } from "./core/operator/tools";
export type { HotWalletBalanceReading, HotWalletReading } from "./core/chains/hot-wallets";
export type {
  ReconcileAsset,
  ReconcileChain,
  ReconcileCount,
  ReconcileExplained,
  ReconcileOptions,
  ReconcileReport,
  ReconcileRow,
  ReconcileUnlistedToken,
} from "./core/operator/reconcile-report";
export type { ReportedUnlistedTransfer } from "./core/deposits/unlisted";
export { sendExport } from "./express/send-export";
export type { ExportOutcome } from "./express/send-export";
export type { CsvExport } from "./core/exports/csv-export";
export type { ExportRequest } from "./core/exports/request";
export { EXPORT_COLUMNS } from "./core/exports/kinds";
export type { ExportKind } from "./core/exports/kinds";
export type { DashboardOptions, DashboardUser, DashboardRole, ExplorerTemplates } from "./dashboard/options";
export type { MetricsOptions, MetricsRegistry } from "./ops/metrics";
export type { HostLookup, ResolvedAddress } from "./delivery/url-guard";
export type { InProcessEventContext, InProcessEventHandlers } from "./delivery/in-process";
export type { PaymentView, DepositView } from "./core/views/payment";
export type { SubscriptionView } from "./core/views/subscription";
export type { WithdrawalView, RefundView, ConversionView } from "./core/views/funds";
export type { RecordLookups, TimelineEntry, HeldPayouts } from "./core/operator/record-lookups";
export type { LedgerLine, LedgerLinePage, RecordRef } from "./core/ledger/entries";
