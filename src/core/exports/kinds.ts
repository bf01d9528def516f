import type { CurrencyCatalog } from "../../currencies";
import { formatDecimal } from "../../money";
import type { AuditEntryRecord } from "../audit/records";
import type { DepositRecord } from "../deposits/records";
import type { ExchangeRecord } from "../exchanges/records";
import type { InvoiceRecord } from "../invoices/records";
import type { LedgerEntry } from "../ledger/records";
import type { PayoutRecord } from "../payouts/records";
import type { ExportCursor, ExportQuery, ExportReads } from "../ports/storage/index";
import { type ConversionView, conversionView, type RefundView, refundView, type WithdrawalView, withdrawalView } from "../views/funds";
import { type DepositView, depositView, type PaymentView, paymentView } from "../views/payment";

/** A cell as a column computes it: null (and undefined) leave the cell empty. */
type Cell = string | number | boolean | null | undefined;

/** One row of an export, with where the next page starts if it is the last of its page. */
export interface ExportRow {
  cursor: ExportCursor;
  cells: string[];
}

/**
 * One kind of export: its columns in order, and how to read a page of its rows. Adding a kind
 * is one entry in `EXPORT_KINDS` with a storage read that pages it.
 */
export interface ExportKindSpec {
  /** The header row. */
  readonly columns: readonly string[];
  /** One page of rows, read with `query`. */
  page(storage: ExportReads, currencies: CurrencyCatalog, query: ExportQuery): Promise<ExportRow[]>;
}

/**
 * A kind from its typed parts: the storage read, the (time, id) the read orders by, a view of
 * the record built once per row (the API's own presenter, so an amount reads the same in the
 * CSV as in the API), and the columns, in order, each a function of the record and its view.
 */
function defineKind<R, V>(spec: {
  read: (storage: ExportReads, query: ExportQuery) => Promise<R[]>;
  cursor: (record: R) => ExportCursor;
  view: (record: R, currencies: CurrencyCatalog) => V;
  columns: Record<string, (record: R, view: V) => Cell>;
}): ExportKindSpec {
  const names = Object.keys(spec.columns);
  const cells = Object.values(spec.columns);
  return {
    columns: names,
    page: async (storage, currencies, query) =>
      (await spec.read(storage, query)).map((record) => {
        const view = spec.view(record, currencies);
        return { cursor: spec.cursor(record), cells: cells.map((cell) => text(cell(record, view))) };
      }),
  };
}

/** A cell as CSV text: booleans as true/false, numbers (counts only, never amounts) as digits. */
function text(value: Cell): string {
  if (value === null || value === undefined) return "";
  return typeof value === "string" ? value : String(value);
}

/** An amount as an exact decimal in its asset (smallest units when the asset is no longer listed, as the API shows it). */
const decimal = (currencies: CurrencyCatalog, units: bigint, asset: string): string => formatDecimal(units, currencies.decimalsOf(asset) ?? 0);

/** The merchant's order id, from the metadata key that flows into every event. */
function orderId(metadata: InvoiceRecord["metadata"]): string | null {
  const value = metadata?.orderId;
  return typeof value === "string" || typeof value === "number" ? String(value) : null;
}

const created = (record: { createdAt: number; id: string }): ExportCursor => ({ at: record.createdAt, id: record.id });
// An audit entry about a merchant's settings covers both modes: its mode cell is empty.
const owner = { merchant_id: (record: { merchantId: string }) => record.merchantId, mode: (record: { mode: string | null }) => record.mode ?? "" };

const payments = defineKind<InvoiceRecord, PaymentView>({
  read: (storage, query) => storage.exportInvoices(query),
  cursor: created,
  view: (invoice, currencies) => paymentView(invoice, currencies),
  columns: {
    id: (invoice) => invoice.id,
    ...owner,
    status: (_, view) => view.status,
    created_at: (_, view) => view.createdAt,
    updated_at: (_, view) => view.updatedAt,
    expires_at: (_, view) => view.expiresAt,
    amount: (_, view) => view.amount,
    amount_currency: (_, view) => view.amountCurrency,
    currency: (_, view) => view.currency,
    chain: (_, view) => view.chain,
    rate: (_, view) => view.rate,
    rate_at: (_, view) => view.rateAt,
    pay_amount: (_, view) => view.payAmount,
    received_amount: (_, view) => view.receivedAmount,
    overpaid_amount: (_, view) => view.overpaidAmount,
    reversed_amount: (_, view) => view.reversedAmount,
    address: (_, view) => view.address,
    tx_hash: (_, view) => view.txHash,
    fee_paid_by_payer: (_, view) => view.feePaidByPayer,
    under_paid_cover: (_, view) => view.underPaidCover,
    white_label: (_, view) => view.isWhiteLabel,
    late: (invoice) => invoice.late,
    failure_reason: (_, view) => view.failureReason,
    settle_currency: (_, view) => view.settleCurrency,
    payment_link_id: (invoice) => invoice.paymentLinkId,
    order_id: (invoice) => orderId(invoice.metadata),
    metadata: (invoice) => (invoice.metadata === null ? null : JSON.stringify(invoice.metadata)),
  },
});

const deposits = defineKind<DepositRecord, DepositView & { creditedAmount: string | null }>({
  read: (storage, query) => storage.exportDeposits(query),
  cursor: (deposit) => ({ at: deposit.seenAt, id: deposit.id }),
  view: (deposit, currencies) => ({
    ...depositView(deposit, currencies),
    creditedAmount: deposit.creditedAsset === null ? null : decimal(currencies, deposit.creditedAmount, deposit.creditedAsset),
  }),
  columns: {
    id: (deposit) => deposit.id,
    ...owner,
    payment_id: (deposit) => deposit.invoiceId,
    status: (_, view) => view.status,
    created_at: (_, view) => view.createdAt,
    credited_at: (_, view) => view.creditedAt,
    updated_at: (deposit) => new Date(deposit.updatedAt).toISOString(),
    currency: (_, view) => view.currency,
    chain: (_, view) => view.chain,
    amount: (_, view) => view.amount,
    fee: (_, view) => view.fee,
    credited_currency: (deposit) => deposit.creditedAsset,
    credited_amount: (_, view) => view.creditedAmount,
    counts_toward_payment: (_, view) => view.countsTowardPayment,
    confirmations: (_, view) => view.confirmations,
    reversals: (_, view) => view.reversals,
    address: (deposit) => deposit.address,
    tx_hash: (_, view) => view.txHash,
    output_index: (_, view) => view.outputIndex,
  },
});

/** A column of withdrawals and refunds: both views have these fields. */
type PayoutCell = (payout: PayoutRecord, view: Omit<WithdrawalView, "object">) => Cell;

/** The columns a withdrawal and a refund share, after their own. */
const payoutColumns: Record<string, PayoutCell> = {
  status: (_, view) => view.status,
  created_at: (_, view) => view.createdAt,
  updated_at: (_, view) => view.updatedAt,
  currency: (_, view) => view.currency,
  chain: (_, view) => view.chain,
  amount: (_, view) => view.amount,
  fee: (_, view) => view.fee,
  address: (_, view) => view.address,
  tx_hash: (_, view) => view.txHash,
  failure_reason: (_, view) => view.failureReason,
};

const payouts = defineKind<PayoutRecord, WithdrawalView>({
  read: (storage, query) => storage.exportPayouts("payout", query),
  cursor: created,
  view: withdrawalView,
  columns: { id: (payout) => payout.id, ...owner, ...payoutColumns },
});

const refunds = defineKind<PayoutRecord, RefundView>({
  read: (storage, query) => storage.exportPayouts("refund", query),
  cursor: created,
  view: refundView,
  columns: {
    id: (payout) => payout.id,
    ...owner,
    payment_id: (_, view) => view.paymentId,
    deposit_id: (_, view) => view.depositId,
    ...payoutColumns,
  },
});

const conversions = defineKind<ExchangeRecord, ConversionView>({
  read: (storage, query) => storage.exportExchanges(query),
  cursor: created,
  view: conversionView,
  columns: {
    id: (exchange) => exchange.id,
    ...owner,
    status: (_, view) => view.status,
    created_at: (_, view) => view.createdAt,
    from_currency: (_, view) => view.fromCurrency,
    amount: (_, view) => view.amount,
    to_currency: (_, view) => view.toCurrency,
    to_amount: (_, view) => view.toAmount,
    rate: (_, view) => view.rate,
    payment_id: (_, view) => view.paymentId,
  },
});

const ledger = defineKind<LedgerEntry, { direction: "credit" | "debit"; amount: string }>({
  read: (storage, query) => storage.exportLedgerEntries(query),
  cursor: created,
  // The sign goes to its own column: an amount cell never starts with "-", which a spreadsheet
  // would read as the start of a formula (and the formula guard would then prefix).
  view: (entry, currencies) => ({
    direction: entry.amount < 0n ? "debit" : "credit",
    amount: decimal(currencies, entry.amount < 0n ? -entry.amount : entry.amount, entry.asset),
  }),
  columns: {
    id: (entry) => entry.id,
    ...owner,
    created_at: (entry) => new Date(entry.createdAt).toISOString(),
    asset: (entry) => entry.asset,
    direction: (_, view) => view.direction,
    amount: (_, view) => view.amount,
    kind: (entry) => entry.kind,
    cause: (entry) => entry.causeKey,
  },
});

const audit = defineKind<AuditEntryRecord, null>({
  read: (storage, query) => storage.exportAuditLog(query),
  cursor: (entry) => ({ at: entry.at, id: entry.id }),
  view: () => null,
  columns: {
    id: (entry) => entry.id,
    ...owner,
    at: (entry) => new Date(entry.at).toISOString(),
    actor: (entry) => entry.actor,
    action: (entry) => entry.action,
    // Every action is named "<record type>.<what was done>": "payout.approved" acts on a payout.
    record_type: (entry) => entry.action.slice(0, entry.action.indexOf(".")),
    record_id: (entry) => entry.recordId,
  },
});

/**
 * The kinds of export, by the name `export({ kind })` takes: payments (invoices), deposits,
 * payouts (withdrawals), refunds, conversions, ledger entries and the audit log. A new kind is a
 * name here and its entry in `EXPORT_KINDS` (the compiler holds the two together).
 */
export type ExportKind = "payments" | "deposits" | "payouts" | "refunds" | "conversions" | "ledger" | "audit";

/** Every kind of export: its columns and its paged read (docs/exports.md lists each one's columns). */
export const EXPORT_KINDS: Readonly<Record<ExportKind, ExportKindSpec>> = { payments, deposits, payouts, refunds, conversions, ledger, audit };

/** The columns of each kind of export, in order: its header row (docs/exports.md says what each holds). */
export const EXPORT_COLUMNS: Readonly<Record<ExportKind, readonly string[]>> = Object.fromEntries(
  Object.entries(EXPORT_KINDS).map(([kind, spec]) => [kind, spec.columns]),
) as Record<ExportKind, readonly string[]>;
