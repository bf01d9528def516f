import { listAuditLog, type AuditLogPage } from "../core/audit/audit-log";
import type { CoreContext } from "../core/context";
import * as allowlist from "../core/payouts/allowlist";
import type { AllowedAddress, AllowedAddressInput } from "../core/payouts/allowlist";
import * as merchants from "../core/merchants/merchants";
import { operatorReport, type OperatorReport, type OperatorReportOptions } from "../core/operator/report";
import type { HotWalletReading } from "../core/chains/hot-wallets";
import type { MerchantRecord, Mode, PayoutApprovalRule } from "../core/merchants/records";
import type { PayoutRecord } from "../core/payouts/records";
import type { ReconcileOptions, ReconcileReport } from "../core/operator/reconcile-report";
import { operatorAdmin, type OperatorAdmin } from "../core/operator/tools";
import { createCsvExport, type CsvExport } from "../core/exports/csv-export";
import type { ExportRequest } from "../core/exports/request";
import { approvePayout, rejectPayout } from "../core/payouts/approval";
import { reconcile } from "../core/operator/reconcile";

/**
 * Merchant and key management for the host application (there is no HTTP endpoint for it), and
 * the operator's tools across merchants (what the `express-crypto-pay` command line runs).
 */
export interface PaymentAdmin extends OperatorAdmin {
  /** Creates a merchant. `id` may be given to keep a known id (e.g. a demo merchant). */
  createMerchant(input: { name: string; id?: string }): Promise<MerchantRecord>;
  /** The merchant with this id, or null. */
  getMerchant(id: string): Promise<MerchantRecord | null>;
  /**
   * Issues an API key and returns its plaintext, the only time it is ever shown. With `key`,
   * registers that plaintext instead (its prefix sets the mode). `by` is who the audit log
   * names (default "host").
   */
  issueApiKey(merchantId: string, options?: { mode?: Mode; key?: string; by?: string }): Promise<merchants.IssuedApiKey>;
  /** Revokes a key at once; false when it was unknown or revoked already. `by` is who the audit log names (default "host"). */
  revokeApiKey(keyId: string, options?: { by?: string }): Promise<boolean>;
  /** A merchant's keys, without secrets. */
  listApiKeys(merchantId: string): Promise<merchants.ApiKeySummary[]>;
  /** Sets the asset the merchant's payments settle into (auto-conversion), or null to keep each coin. */
  setSettleCurrency(merchantId: string, symbol: string | null): Promise<MerchantRecord>;
  /**
   * Sets the merchant's own payout approval threshold, `{ above, currency }` (replacing the
   * router's `payouts.approval` for it), or null to follow the router's. Payouts above it are
   * held AWAITING_APPROVAL (docs/money-controls.md). A bad threshold throws a TypeError. A
   * change is recorded in the audit log as `by` (default "host").
   */
  setPayoutApproval(merchantId: string, rule: PayoutApprovalRule | null, options?: { by?: string }): Promise<MerchantRecord>;
  /**
   * Turns the merchant's payout allowlist on or off (off by default). While it is on, payouts,
   * withdrawals and refunds of both modes go only to usable addresses of its allowlist; others
   * are refused with `destination_not_allowed` (422, error 42204) and nothing is debited. A
   * change is recorded in the audit log as `by` (default "host").
   */
  setAllowlist(merchantId: string, setting: { enabled: boolean; by?: string }): Promise<MerchantRecord>;
  /**
   * Proposes an address for the merchant's allowlist, in one mode and on one network, as `by`
   * (your user's id). It awaits approval by someone else. A `PaymentError` for an unknown network
   * (`unsupported_currency`), an invalid address (`invalid_address`) or one listed already
   * (`invalid_state`).
   */
  addAllowedAddress(input: AllowedAddressInput): Promise<AllowedAddress>;
  /**
   * Approves a proposed address, as `by`: usable once `payouts.allowlist.coolingOffHours` (default
   * 24) have passed. `approval_by_requester` (403) when `by` proposed it, `invalid_state` (409)
   * when approved already, `not_found` when unknown.
   */
  approveAllowedAddress(id: string, review: { by: string }): Promise<AllowedAddress>;
  /** Removes an address from the allowlist at once, as `by`; returns it as it was. `not_found` when unknown. */
  removeAllowedAddress(id: string, review: { by: string }): Promise<AllowedAddress>;
  /** The merchant's allowlist, of one mode or both, oldest first, each address with its state now. */
  listAllowedAddresses(merchantId: string, options?: { mode?: Mode }): Promise<AllowedAddress[]>;
  /**
   * Approves a payout held for approval, as `by` (a user id, or an API key id): it becomes
   * PROCESSING and the next background round sends it. A `PaymentError` when `by` asked for it
   * (`approval_by_requester`, 403), when it is not awaiting approval (`invalid_state`, 409: two
   * decisions at once settle exactly once) or is unknown (`not_found`).
   */
  approvePayout(payoutId: string, review: { by: string }): Promise<PayoutRecord>;
  /**
   * Rejects a payout held for approval, as `by`: it becomes REJECTED (`reason` as its
   * failureReason) and exactly its held debit, amount and fee, goes back to the balance.
   * `invalid_state` (409) when it is not awaiting approval.
   */
  rejectPayout(payoutId: string, review: { by: string; reason?: string }): Promise<PayoutRecord>;
  /**
   * The audit log, newest first: payout approvals and rejections, API keys issued and revoked,
   * approval thresholds and the payout allowlist changed, each with who, when, the record and
   * its merchant and mode (null for a merchant setting), written in the transaction of
   * the change. One page of `limit` (1 to 500, default 50); pass a page's `nextCursor` as
   * `cursor` for the next; `merchantId` keeps one merchant's entries.
   */
  listAuditLog(options?: { merchantId?: string; limit?: number; cursor?: string | null }): Promise<AuditLogPage>;
  /**
   * The operator report of one mode (default "live"), across every merchant: deposits reversed
   * by a reorg deeper than their confirmations, stray coins credited to invoices that asked for
   * another coin, and transfers of unlisted tokens left at deposit addresses. What explains
   * on-chain holdings that the balances alone do not.
   */
  operatorReport(options?: OperatorReportOptions): Promise<OperatorReport>;
  /**
   * The latest reading of each live chain's hot wallet, taken on the background schedule (at
   * most once a minute per chain): every balance with its low-balance threshold and `low` flag,
   * when it was read, and why the last read failed if it did. From memory: no node call.
   */
  hotWallets(): HotWalletReading[];
  /**
   * Compares, per live chain and coin, what the records say the service holds (deposits
   * received, payouts sent, network fees, float) with what the chain holds (hot wallet and
   * deposit addresses not yet swept), and per asset what the chains hold with what is owed to
   * merchants; lists every difference with what explains the rest (docs/operations.md,
   * "Reconciliation"). `differences` is 0 when the books match. Aggregate reads only: safe to
   * run against production from a cron job. A chain whose node cannot be read gets an error
   * entry; `chain` ("ETH", "LTC") limits it to one network, and an unknown one throws a TypeError.
   */
  reconcile(options?: ReconcileOptions): Promise<ReconcileReport>;
  /**
   * A CSV export of one kind of record (payments, deposits, payouts, refunds, conversions,
   * ledger or audit) over whole UTC days, `from` and `to` ("YYYY-MM-DD") both included, of every merchant
   * or one (`merchantId`), in both modes or one (`mode`). Returns at once with a stream that reads
   * the storage one page at a time as it is consumed (constant memory, whatever the range holds),
   * a file name and the content type; answer a download with `sendExport(res, csv)`. Columns,
   * formats and the formula guard: docs/exports.md. Throws a TypeError (a 400 for a dashboard) for
   * an unknown kind, a malformed day, `from` after `to`, a range over 366 days, or a bad mode.
   */
  export(request: ExportRequest): CsvExport;
}

/** The service's {@link PaymentAdmin}: every method bound to its context; hot wallets as the background work last read them. */
export function paymentAdmin(context: CoreContext, hotWallets: () => HotWalletReading[]): PaymentAdmin {
  return {
    createMerchant: (input) => merchants.createMerchant(context, input),
    getMerchant: (id) => context.storage.getMerchant(id),
    issueApiKey: (merchantId, keyOptions = {}) => merchants.issueApiKey(context, merchantId, keyOptions),
    revokeApiKey: (keyId, revokeOptions) => merchants.revokeApiKey(context, keyId, revokeOptions),
    listApiKeys: (merchantId) => merchants.listApiKeys(context, merchantId),
    setSettleCurrency: (merchantId, symbol) => merchants.setSettleCurrency(context, merchantId, symbol),
    setPayoutApproval: (merchantId, rule, ruleOptions) => merchants.setPayoutApproval(context, merchantId, rule, ruleOptions),
    ...allowlistAdmin(context),
    approvePayout: (payoutId, review) => approvePayout(context, payoutId, review),
    rejectPayout: (payoutId, review) => rejectPayout(context, payoutId, review),
    listAuditLog: (query) => listAuditLog(context, query),
    operatorReport: (reportOptions) => operatorReport(context, reportOptions),
    hotWallets,
    ...operatorAdmin(context),
    reconcile: (reconcileOptions) => reconcile(context, reconcileOptions),
    export: (request) => createCsvExport(context, request),
  };
}

/** The allowlist methods of {@link PaymentAdmin}, bound to the service's context. */
function allowlistAdmin(
  context: CoreContext,
): Pick<PaymentAdmin, "setAllowlist" | "addAllowedAddress" | "approveAllowedAddress" | "removeAllowedAddress" | "listAllowedAddresses"> {
  return {
    setAllowlist: (merchantId, setting) => allowlist.setAllowlist(context, merchantId, setting),
    addAllowedAddress: (input) => allowlist.addAllowedAddress(context, input),
    approveAllowedAddress: (id, review) => allowlist.approveAllowedAddress(context, id, review),
    removeAllowedAddress: (id, review) => allowlist.removeAllowedAddress(context, id, review),
    listAllowedAddresses: (merchantId, options) => allowlist.listAllowedAddresses(context, merchantId, options),
  };
}
