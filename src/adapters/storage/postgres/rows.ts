import type {
  AddressRecord,
  ApiKeyRecord,
  BalanceRecord,
  DepositRecord,
  EventRecord,
  ExchangeRecord,
  IdempotencyRecord,
  InvoiceRecord,
  LedgerEntry,
  MerchantRecord,
  Mode,
  PaymentLinkRecord,
  PayoutRecord,
  UnlistedTransferRecord,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
} from "../../../core/ports/records";
import type { ApiKeyMatch } from "../../../core/ports/storage";

/**
 * Row <-> record mapping. Amounts travel as decimal strings both ways (`numeric` in, text out),
 * never through a JS number. Drivers differ in how they hand back `bigint` columns (pg: string,
 * PGlite: number or BigInt) and `numeric` (string on both), so the readers below accept any of
 * those forms.
 */
type Row = Record<string, unknown>;

/** A `numeric` amount as a bigint. */
export const big = (value: unknown): bigint => BigInt(value as string | number | bigint);
/** A nullable `numeric` amount. */
export const bigOrNull = (value: unknown): bigint | null => (value === null || value === undefined ? null : big(value));
/** A `bigint` epoch-ms column (safe integers by construction) or an int column. */
export const num = (value: unknown): number => (typeof value === "number" ? value : Number(value));
/** A nullable `bigint` or int column. */
export const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : num(value));
const str = (value: unknown): string => value as string;
const strOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : (value as string));
/** A `json` column: drivers parse it; a driver set to hand back text gets parsed here. */
const json = <T>(value: unknown): T => (typeof value === "string" ? (JSON.parse(value) as T) : (value as T));
const jsonOrNull = <T>(value: unknown): T | null => (value === null || value === undefined ? null : json<T>(value));

/** A bigint parameter for a `numeric` column. */
export const amountParam = (value: bigint): string => value.toString();
export const amountParamOrNull = (value: bigint | null): string | null => (value === null ? null : value.toString());
/** A JSON parameter (for a `$n::json` placeholder). */
export const jsonParam = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));

export const MERCHANT_COLUMNS = "id, name, settle_currency, created_at";
export const toMerchant = (row: Row): MerchantRecord => ({
  id: str(row.id),
  name: str(row.name),
  settleCurrency: strOrNull(row.settle_currency),
  createdAt: num(row.created_at),
});
export const merchantParams = (m: MerchantRecord): unknown[] => [m.id, m.name, m.settleCurrency, m.createdAt];

export const API_KEY_COLUMNS = "id, merchant_id, mode, hash, prefix, created_at, revoked_at";
export const toApiKey = (row: Row): ApiKeyRecord => ({
  id: str(row.id),
  merchantId: str(row.merchant_id),
  mode: row.mode as Mode,
  hash: str(row.hash),
  prefix: str(row.prefix),
  createdAt: num(row.created_at),
  revokedAt: numOrNull(row.revoked_at),
});

/** A row of findApiKeyByHash: the key's columns, and its merchant's as merchant_*. */
export const toApiKeyMatch = (row: Row): ApiKeyMatch => ({
  key: toApiKey(row),
  merchant: toMerchant({ id: row.merchant_id, name: row.merchant_name, settle_currency: row.merchant_settle_currency, created_at: row.merchant_created_at }),
});

export const INVOICE_COLUMNS =
  "id, merchant_id, mode, status, amount, amount_currency, accepted_coins, coin, network, address, rate, pay_amount, fee_paid_by_payer, " +
  "under_paid_cover_tenths, is_white_label, return_url, payment_url, metadata, received_amount, tx_hash, late, failure_reason, expires_at, created_at, updated_at, " +
  "settle_currency, payment_link_id, rate_at, rate_sources, reversed_amount";
export const toInvoice = (row: Row): InvoiceRecord => ({
  id: str(row.id),
  merchantId: str(row.merchant_id),
  mode: row.mode as Mode,
  status: row.status as InvoiceRecord["status"],
  amount: big(row.amount),
  amountCurrency: str(row.amount_currency),
  acceptedCoins: jsonOrNull<string[]>(row.accepted_coins),
  coin: strOrNull(row.coin),
  network: strOrNull(row.network),
  address: strOrNull(row.address),
  rate: bigOrNull(row.rate),
  payAmount: bigOrNull(row.pay_amount),
  feePaidByPayer: Boolean(row.fee_paid_by_payer),
  underPaidCoverTenths: num(row.under_paid_cover_tenths),
  isWhiteLabel: Boolean(row.is_white_label),
  returnUrl: strOrNull(row.return_url),
  paymentUrl: str(row.payment_url),
  metadata: jsonOrNull<Record<string, unknown>>(row.metadata),
  receivedAmount: big(row.received_amount),
  txHash: strOrNull(row.tx_hash),
  late: Boolean(row.late),
  failureReason: row.failure_reason as InvoiceRecord["failureReason"],
  expiresAt: num(row.expires_at),
  createdAt: num(row.created_at),
  updatedAt: num(row.updated_at),
  settleCurrency: strOrNull(row.settle_currency),
  paymentLinkId: strOrNull(row.payment_link_id),
  rateAt: numOrNull(row.rate_at),
  rateSources: jsonOrNull<string[]>(row.rate_sources),
  reversedAmount: big(row.reversed_amount),
});
/** Parameters $1..$30 in INVOICE_COLUMNS order. */
export const invoiceParams = (invoice: InvoiceRecord): unknown[] => [
  invoice.id,
  invoice.merchantId,
  invoice.mode,
  invoice.status,
  amountParam(invoice.amount),
  invoice.amountCurrency,
  jsonParam(invoice.acceptedCoins),
  invoice.coin,
  invoice.network,
  invoice.address,
  amountParamOrNull(invoice.rate),
  amountParamOrNull(invoice.payAmount),
  invoice.feePaidByPayer,
  invoice.underPaidCoverTenths,
  invoice.isWhiteLabel,
  invoice.returnUrl,
  invoice.paymentUrl,
  jsonParam(invoice.metadata),
  amountParam(invoice.receivedAmount),
  invoice.txHash,
  invoice.late,
  invoice.failureReason,
  invoice.expiresAt,
  invoice.createdAt,
  invoice.updatedAt,
  invoice.settleCurrency,
  invoice.paymentLinkId,
  invoice.rateAt,
  jsonParam(invoice.rateSources),
  amountParam(invoice.reversedAmount),
];

export const ADDRESS_COLUMNS = "mode, network, address, coin, merchant_id, invoice_id, created_at";
export const toAddress = (row: Row): AddressRecord => ({
  mode: row.mode as Mode,
  network: str(row.network),
  address: str(row.address),
  coin: str(row.coin),
  merchantId: str(row.merchant_id),
  invoiceId: str(row.invoice_id),
  createdAt: num(row.created_at),
});

export const DEPOSIT_COLUMNS =
  "id, merchant_id, mode, invoice_id, coin, network, address, tx_hash, output_index, amount, confirmations, status, counts_toward_invoice, fee, credited_at, seen_at, updated_at, " +
  "credited_asset, credited_amount, reversals";
export const toDeposit = (row: Row): DepositRecord => ({
  id: str(row.id),
  merchantId: str(row.merchant_id),
  mode: row.mode as Mode,
  invoiceId: str(row.invoice_id),
  coin: str(row.coin),
  network: str(row.network),
  address: str(row.address),
  txHash: str(row.tx_hash),
  outputIndex: num(row.output_index),
  amount: big(row.amount),
  confirmations: num(row.confirmations),
  status: row.status as DepositRecord["status"],
  countsTowardInvoice: Boolean(row.counts_toward_invoice),
  fee: big(row.fee),
  creditedAt: numOrNull(row.credited_at),
  seenAt: num(row.seen_at),
  updatedAt: num(row.updated_at),
  creditedAsset: strOrNull(row.credited_asset),
  creditedAmount: big(row.credited_amount),
  reversals: num(row.reversals),
});
/** Parameters $1..$20 in DEPOSIT_COLUMNS order. */
export const depositParams = (deposit: DepositRecord): unknown[] => [
  deposit.id,
  deposit.merchantId,
  deposit.mode,
  deposit.invoiceId,
  deposit.coin,
  deposit.network,
  deposit.address,
  deposit.txHash,
  deposit.outputIndex,
  amountParam(deposit.amount),
  deposit.confirmations,
  deposit.status,
  deposit.countsTowardInvoice,
  amountParam(deposit.fee),
  deposit.creditedAt,
  deposit.seenAt,
  deposit.updatedAt,
  deposit.creditedAsset,
  amountParam(deposit.creditedAmount),
  deposit.reversals,
];

export const LEDGER_COLUMNS = "id, merchant_id, mode, asset, amount, kind, cause_key, created_at";
export const toLedgerEntry = (row: Row): LedgerEntry => ({
  id: str(row.id),
  merchantId: str(row.merchant_id),
  mode: row.mode as Mode,
  asset: str(row.asset),
  amount: big(row.amount),
  kind: row.kind as LedgerEntry["kind"],
  causeKey: str(row.cause_key),
  createdAt: num(row.created_at),
});

export const BALANCE_COLUMNS = "merchant_id, mode, asset, amount, updated_at";
export const toBalance = (row: Row): BalanceRecord => ({
  merchantId: str(row.merchant_id),
  mode: row.mode as Mode,
  asset: str(row.asset),
  amount: big(row.amount),
  updatedAt: num(row.updated_at),
});

export const PAYOUT_COLUMNS =
  "id, merchant_id, mode, status, coin, network, address, amount, fee, tx_hash, failure_reason, created_at, updated_at, refund_of, refund_deposit_id";
export const toPayout = (row: Row): PayoutRecord => ({
  id: str(row.id),
  merchantId: str(row.merchant_id),
  mode: row.mode as Mode,
  status: row.status as PayoutRecord["status"],
  coin: str(row.coin),
  network: str(row.network),
  address: str(row.address),
  amount: big(row.amount),
  fee: big(row.fee),
  txHash: strOrNull(row.tx_hash),
  failureReason: strOrNull(row.failure_reason),
  createdAt: num(row.created_at),
  updatedAt: num(row.updated_at),
  refundOf: strOrNull(row.refund_of),
  refundDepositId: strOrNull(row.refund_deposit_id),
});
/** Parameters $1..$15 in PAYOUT_COLUMNS order. */
export const payoutParams = (payout: PayoutRecord): unknown[] => [
  payout.id,
  payout.merchantId,
  payout.mode,
  payout.status,
  payout.coin,
  payout.network,
  payout.address,
  amountParam(payout.amount),
  amountParam(payout.fee),
  payout.txHash,
  payout.failureReason,
  payout.createdAt,
  payout.updatedAt,
  payout.refundOf,
  payout.refundDepositId,
];

export const EXCHANGE_COLUMNS = "id, merchant_id, mode, status, from_coin, to_coin, amount, rate, to_amount, created_at, invoice_id";
export const toExchange = (row: Row): ExchangeRecord => ({
  id: str(row.id),
  merchantId: str(row.merchant_id),
  mode: row.mode as Mode,
  status: row.status as ExchangeRecord["status"],
  fromCoin: str(row.from_coin),
  toCoin: str(row.to_coin),
  amount: big(row.amount),
  rate: big(row.rate),
  toAmount: big(row.to_amount),
  createdAt: num(row.created_at),
  invoiceId: strOrNull(row.invoice_id),
});
export const exchangeParams = (exchange: ExchangeRecord): unknown[] => [
  exchange.id,
  exchange.merchantId,
  exchange.mode,
  exchange.status,
  exchange.fromCoin,
  exchange.toCoin,
  amountParam(exchange.amount),
  amountParam(exchange.rate),
  amountParam(exchange.toAmount),
  exchange.createdAt,
  exchange.invoiceId,
];

export const EVENT_COLUMNS = "id, merchant_id, mode, type, invoice_id, data, created_at";
export const toEvent = (row: Row): EventRecord => ({
  id: str(row.id),
  merchantId: str(row.merchant_id),
  mode: row.mode as Mode,
  type: row.type as EventRecord["type"],
  invoiceId: str(row.invoice_id),
  data: json<Record<string, unknown>>(row.data),
  createdAt: num(row.created_at),
});

export const ENDPOINT_COLUMNS = "id, merchant_id, mode, url, events, secrets, status, disabled_reason, created_at, updated_at";
export const toEndpoint = (row: Row): WebhookEndpointRecord => ({
  id: str(row.id),
  merchantId: str(row.merchant_id),
  mode: row.mode as Mode,
  url: str(row.url),
  events: jsonOrNull<WebhookEndpointRecord["events"]>(row.events),
  secrets: json<WebhookEndpointRecord["secrets"]>(row.secrets),
  status: row.status as WebhookEndpointRecord["status"],
  disabledReason: strOrNull(row.disabled_reason),
  createdAt: num(row.created_at),
  updatedAt: num(row.updated_at),
});
export const endpointParams = (endpoint: WebhookEndpointRecord): unknown[] => [
  endpoint.id,
  endpoint.merchantId,
  endpoint.mode,
  endpoint.url,
  jsonParam(endpoint.events),
  jsonParam(endpoint.secrets),
  endpoint.status,
  endpoint.disabledReason,
  endpoint.createdAt,
  endpoint.updatedAt,
];

export const DELIVERY_COLUMNS =
  "id, merchant_id, mode, endpoint_id, event_id, event_type, payload, status, attempts, next_attempt_at, lease_until, last_status_code, last_error, created_at, updated_at";
export const toDelivery = (row: Row): WebhookDeliveryRecord => ({
  id: str(row.id),
  merchantId: str(row.merchant_id),
  mode: row.mode as Mode,
  endpointId: str(row.endpoint_id),
  eventId: str(row.event_id),
  eventType: str(row.event_type),
  payload: str(row.payload),
  status: row.status as WebhookDeliveryRecord["status"],
  attempts: num(row.attempts),
  nextAttemptAt: numOrNull(row.next_attempt_at),
  leaseUntil: numOrNull(row.lease_until),
  lastStatusCode: numOrNull(row.last_status_code),
  lastError: strOrNull(row.last_error),
  createdAt: num(row.created_at),
  updatedAt: num(row.updated_at),
});
/** The columns of DELIVERY_COLUMNS as one array each, for a multi-row `unnest` insert. */
export const deliveryArrays = (deliveries: readonly WebhookDeliveryRecord[]): unknown[] => [
  deliveries.map((d) => d.id),
  deliveries.map((d) => d.merchantId),
  deliveries.map((d) => d.mode),
  deliveries.map((d) => d.endpointId),
  deliveries.map((d) => d.eventId),
  deliveries.map((d) => d.eventType),
  deliveries.map((d) => d.payload),
  deliveries.map((d) => d.status),
  deliveries.map((d) => d.attempts),
  deliveries.map((d) => d.nextAttemptAt),
  deliveries.map((d) => d.leaseUntil),
  deliveries.map((d) => d.lastStatusCode),
  deliveries.map((d) => d.lastError),
  deliveries.map((d) => d.createdAt),
  deliveries.map((d) => d.updatedAt),
];
export const deliveryParams = (d: WebhookDeliveryRecord): unknown[] => [
  d.id,
  d.merchantId,
  d.mode,
  d.endpointId,
  d.eventId,
  d.eventType,
  d.payload,
  d.status,
  d.attempts,
  d.nextAttemptAt,
  d.leaseUntil,
  d.lastStatusCode,
  d.lastError,
  d.createdAt,
  d.updatedAt,
];

export const ATTEMPT_COLUMNS = "id, delivery_id, at, status_code, duration_ms, error";
export const toAttempt = (row: Row): WebhookAttemptRecord => ({
  id: str(row.id),
  deliveryId: str(row.delivery_id),
  at: num(row.at),
  statusCode: numOrNull(row.status_code),
  durationMs: num(row.duration_ms),
  error: strOrNull(row.error),
});

export const PAYMENT_LINK_COLUMNS =
  "id, merchant_id, mode, amount, amount_currency, accepted_coins, fee_paid_by_payer, under_paid_cover_tenths, life_time_minutes, return_url, metadata, " +
  "settle_currency, active, created_at, updated_at";
export const toPaymentLink = (row: Row): PaymentLinkRecord => ({
  id: str(row.id),
  merchantId: str(row.merchant_id),
  mode: row.mode as Mode,
  amount: big(row.amount),
  amountCurrency: str(row.amount_currency),
  acceptedCoins: jsonOrNull<string[]>(row.accepted_coins),
  feePaidByPayer: Boolean(row.fee_paid_by_payer),
  underPaidCoverTenths: num(row.under_paid_cover_tenths),
  lifeTimeMinutes: num(row.life_time_minutes),
  returnUrl: strOrNull(row.return_url),
  metadata: jsonOrNull<Record<string, unknown>>(row.metadata),
  settleCurrency: strOrNull(row.settle_currency),
  active: Boolean(row.active),
  createdAt: num(row.created_at),
  updatedAt: num(row.updated_at),
});
/** Parameters $1..$15 in PAYMENT_LINK_COLUMNS order. */
export const paymentLinkParams = (link: PaymentLinkRecord): unknown[] => [
  link.id,
  link.merchantId,
  link.mode,
  amountParam(link.amount),
  link.amountCurrency,
  jsonParam(link.acceptedCoins),
  link.feePaidByPayer,
  link.underPaidCoverTenths,
  link.lifeTimeMinutes,
  link.returnUrl,
  jsonParam(link.metadata),
  link.settleCurrency,
  link.active,
  link.createdAt,
  link.updatedAt,
];

export const IDEMPOTENCY_COLUMNS = "merchant_id, mode, key, request_hash, state, response_status, response_body, created_at, expires_at, lease_token";
export const toIdempotency = (row: Row): IdempotencyRecord => ({
  merchantId: str(row.merchant_id),
  mode: row.mode as Mode,
  key: str(row.key),
  requestHash: str(row.request_hash),
  state: row.state as IdempotencyRecord["state"],
  responseStatus: numOrNull(row.response_status),
  responseBody: strOrNull(row.response_body),
  createdAt: num(row.created_at),
  expiresAt: num(row.expires_at),
  leaseToken: strOrNull(row.lease_token),
});
export const idempotencyParams = (r: IdempotencyRecord): unknown[] => [
  r.merchantId,
  r.mode,
  r.key,
  r.requestHash,
  r.state,
  r.responseStatus,
  r.responseBody,
  r.createdAt,
  r.expiresAt,
  r.leaseToken,
];

export const UNLISTED_COLUMNS = "id, mode, network, token, address, tx_hash, log_index, amount, block_number, merchant_id, invoice_id, coin, seen_at";
export const toUnlistedTransfer = (row: Row): UnlistedTransferRecord => ({
  id: str(row.id),
  mode: row.mode as Mode,
  network: str(row.network),
  token: str(row.token),
  address: str(row.address),
  txHash: str(row.tx_hash),
  logIndex: num(row.log_index),
  amount: big(row.amount),
  blockNumber: num(row.block_number),
  merchantId: str(row.merchant_id),
  invoiceId: str(row.invoice_id),
  coin: str(row.coin),
  seenAt: num(row.seen_at),
});
/** Parameters $1..$13 in UNLISTED_COLUMNS order. */
export const unlistedParams = (t: UnlistedTransferRecord): unknown[] => [
  t.id,
  t.mode,
  t.network,
  t.token,
  t.address,
  t.txHash,
  t.logIndex,
  amountParam(t.amount),
  t.blockNumber,
  t.merchantId,
  t.invoiceId,
  t.coin,
  t.seenAt,
];
