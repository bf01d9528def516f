import { CurrencyCatalog, DEFAULT_CURRENCIES, DEFAULT_FIAT } from "../../src/currencies";
import { conversionView, refundView, withdrawalView } from "../../src/core/views/funds";
import { paymentView, type PaymentView } from "../../src/core/views/payment";
import { CONVERSION_EVENT_TYPES, type ExchangeRecord } from "../../src/core/exchanges/records";
import { PAYMENT_EVENT_TYPES, type InvoiceRecord, type PaymentEventType } from "../../src/core/invoices/records";
import { PAYOUT_EVENT_TYPES, type PayoutRecord } from "../../src/core/payouts/records";
import { SUBSCRIPTION_EVENT_TYPES, type SubscriptionRecord } from "../../src/core/subscriptions/records";
import type { EventType } from "../../src/core/webhooks/records";
import { subscriptionView } from "../../src/core/views/subscription";
import { subscription } from "../../src/testing/storage/subscriptions";
import type { WebhookDedupeStore } from "../../src/webhooks/dedupe-store";
import type { WebhookSecret } from "../../src/webhook-secret";
import { webhookHeaders, type WebhookHeaders } from "../../src/webhooks/sign";

/** The secret of the test vector of the Standard Webhooks specification; any valid secret would do elsewhere. */
export const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
/** A second secret, for rotation and wrong-secret cases. */
export const OTHER_SECRET = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";

/** A fixed clock: 2026-03-01T12:00:00Z. */
export const NOW_MS = Date.parse("2026-03-01T12:00:00.000Z");
export const NOW_S = NOW_MS / 1000;

const T0 = NOW_MS - 10 * 60_000;

/** An invoice as core keeps it, for paymentView to render: the same path the sender takes. */
export function invoiceRecord(over: Partial<InvoiceRecord> = {}): InvoiceRecord {
  return {
    id: "inv_7Qm2a9XkLp0RtY4sW1cE3vBn",
    merchantId: "mch_1",
    mode: "test",
    status: "PAID",
    amount: 2500n,
    amountCurrency: "USD",
    acceptedCoins: null,
    coin: "USDT",
    network: "TRX",
    address: "TSandbox0000000000000000000000001",
    rate: 100000000n,
    rateAt: T0 - 2_000,
    rateSources: ["coinbase", "kraken"],
    payAmount: 25_000_000n,
    feePaidByPayer: false,
    underPaidCoverTenths: 5,
    isWhiteLabel: true,
    returnUrl: "https://shop.example/thanks",
    paymentUrl: "https://pay.example/pay/inv_7Qm2a9XkLp0RtY4sW1cE3vBn",
    metadata: { orderId: "order-1042" },
    settleCurrency: null,
    paymentLinkId: null,
    receivedAmount: 25_000_000n,
    reversedAmount: 0n,
    txHash: "0xfeed",
    late: false,
    failureReason: null,
    expiresAt: T0 + 60 * 60_000,
    createdAt: T0,
    updatedAt: T0 + 5 * 60_000,
    ...over,
  };
}

const catalog = new CurrencyCatalog(DEFAULT_CURRENCIES, DEFAULT_FIAT);

/** The `data` of an event, rendered by the service's own paymentView. */
export function paymentData(over: Partial<InvoiceRecord> = {}): PaymentView {
  return paymentView(invoiceRecord(over), catalog);
}

/** A payout as core keeps it (a refund when `refundOf` is set). */
export function payoutRecord(over: Partial<PayoutRecord> = {}): PayoutRecord {
  return {
    id: "po_4Hk2m9XkLp0RtY4sW1cE3vBn",
    merchantId: "mch_1",
    mode: "test",
    status: "COMPLETED",
    coin: "USDT",
    network: "TRX",
    address: "TXo4FqVvF4YZ9r4hV5qT4M2r8p6fM3kZxQ",
    amount: 10_000_000n,
    fee: 1_000_000n,
    refundOf: null,
    refundDepositId: null,
    requestedBy: null,
    reviewedBy: null,
    pendingReason: null,
    claim: null,
    txHash: "0xbeef",
    failureReason: null,
    createdAt: T0,
    updatedAt: T0 + 60_000,
    ...over,
  };
}

/** An exchange as core keeps it. */
export function exchangeRecord(over: Partial<ExchangeRecord> = {}): ExchangeRecord {
  return {
    id: "ex_9Lk2m9XkLp0RtY4sW1cE3vBn",
    merchantId: "mch_1",
    mode: "test",
    status: "SUCCESS",
    fromCoin: "USDT",
    toCoin: "TRX",
    amount: 10_000_000n,
    rate: 8_333_333_333_333_333_333n,
    toAmount: 83_333_333n,
    invoiceId: null,
    createdAt: T0,
    ...over,
  };
}

/**
 * The `data` of a `type` event whose resource has `status`, rendered by the service's own views:
 * a payment, a withdrawal, a refund or a conversion, by the list the type is in.
 */
export function eventData(type: EventType, status: string): Record<string, unknown> {
  if ((PAYMENT_EVENT_TYPES as readonly string[]).includes(type)) return { ...paymentData({ status: status as InvoiceRecord["status"] }) };
  if ((CONVERSION_EVENT_TYPES as readonly string[]).includes(type)) return { ...conversionView(exchangeRecord(), catalog) };
  if ((SUBSCRIPTION_EVENT_TYPES as readonly string[]).includes(type)) {
    return { ...subscriptionView(subscription({ status: status as SubscriptionRecord["status"] }), catalog) };
  }
  const payout = payoutRecord({ status: status as PayoutRecord["status"], failureReason: status === "FAILED" ? "reverted" : null });
  if ((PAYOUT_EVENT_TYPES as readonly string[]).includes(type)) return { ...withdrawalView(payout, catalog) };
  return { ...refundView({ ...payout, refundOf: "inv_7Qm2a9XkLp0RtY4sW1cE3vBn" }, catalog) };
}

/** An event body as the sender writes it (core/ports/fan-out.ts: `{ type, timestamp, data }`). */
export function eventBody(type: PaymentEventType | EventType | string = "payment.completed", data: unknown = paymentData()): string {
  return JSON.stringify({ type, timestamp: new Date(T0 + 5 * 60_000).toISOString(), data });
}

/** Headers of a delivery of `body`, signed with `secret` at `timestamp` (default: the fixed clock). */
export function signedHeaders(
  body: string | Uint8Array,
  options: { id?: string; timestamp?: number; secret?: WebhookSecret | WebhookSecret[] } = {},
): WebhookHeaders {
  return webhookHeaders({ id: options.id ?? "msg_2mVqB7xR1nLk0", body, timestamp: options.timestamp ?? NOW_S }, options.secret ?? SECRET);
}

/** A promise with its resolve and reject exposed, to hold a handler mid-flight. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** A logger that keeps what it is told. */
export function recordingLogger() {
  const lines: string[] = [];
  const details: unknown[] = [];
  return {
    lines,
    details,
    warn: (message: string, ...rest: unknown[]) => {
      lines.push(`warn ${message}`);
      details.push(...rest);
    },
    error: (message: string, ...rest: unknown[]) => {
      lines.push(`error ${message}`);
      details.push(...rest);
    },
  };
}

/** The memory store behind an async, delayed interface: what a store over the network looks like. */
export function remoteLike(store: WebhookDedupeStore, delayMs = 2): WebhookDedupeStore {
  const later = <T>(work: () => T | Promise<T>) =>
    new Promise<T>((resolve, reject) => setTimeout(() => Promise.resolve().then(work).then(resolve, reject), Math.random() * delayMs));
  return {
    claim: (id) => later(() => store.claim(id)),
    complete: (id, token) => later(() => store.complete(id, token)),
    release: (id, token) => later(() => store.release(id, token)),
  };
}
