import type { CurrencyCatalog } from "../currencies";
import { newId } from "../ids";
import { RATE_DECIMALS } from "../money";
import { EVENT_STATUSES } from "../schemas/service-event";
import type { Scope } from "../core/ports/storage/index";
import { REFUND_CLAIM_EVENT_TYPES } from "../core/refunds/records";
import type { EventType } from "../core/webhooks/records";
import type { InvoiceRecord } from "../core/invoices/records";
import type { PayoutRecord } from "../core/payouts/records";
import type { SubscriptionRecord } from "../core/subscriptions/records";
import { conversionView, refundView, withdrawalView } from "../core/views/funds";
import { paymentView } from "../core/views/payment";
import { subscriptionView } from "../core/views/subscription";

/**
 * Made-up resources for test events: the payment, withdrawal, refund or conversion an event of
 * each type carries, plausible in every field and in the status that type has, so a receiver's
 * checks pass on a test event exactly as on a real one. Nothing here is stored.
 */

/** The first coin and network of the currency list: what a sample moves. */
function sampleCoin(currencies: CurrencyCatalog): { coin: string; network: string } {
  const currency = currencies.currencies[0]!;
  return { coin: currency.symbol, network: currency.networks[0]!.network };
}

/** A made-up payment in `status`. */
function samplePayment(scope: Scope, now: number, status: InvoiceRecord["status"]): InvoiceRecord {
  const id = newId("inv");
  return {
    id,
    merchantId: scope.merchantId,
    mode: scope.mode,
    status,
    amount: 2500n,
    amountCurrency: "USD",
    acceptedCoins: null,
    coin: null,
    network: null,
    address: null,
    rate: null,
    rateAt: null,
    rateSources: null,
    payAmount: null,
    feePaidByPayer: false,
    underPaidCoverTenths: 0,
    isWhiteLabel: false,
    returnUrl: null,
    paymentUrl: `https://example.invalid/pay/${id}`,
    metadata: { orderId: "test-order" },
    settleCurrency: null,
    paymentLinkId: null,
    receivedAmount: 0n,
    reversedAmount: 0n,
    txHash: null,
    late: false,
    failureReason: status === "FAILED" ? "underpaid" : null,
    expiresAt: now + 3_600_000,
    createdAt: now,
    updatedAt: now,
  };
}

/** A made-up payout (a refund when `refundOf` is set) in `status`. */
function samplePayout(scope: Scope, now: number, currencies: CurrencyCatalog, status: PayoutRecord["status"], refundOf: string | null): PayoutRecord {
  const { coin, network } = sampleCoin(currencies);
  const settled = status === "PROCESSING" || status === "COMPLETED" || status === "FAILED";
  return {
    id: newId("po"),
    merchantId: scope.merchantId,
    mode: scope.mode,
    status,
    coin,
    network,
    address: "sample-address",
    amount: 1000n,
    fee: 0n,
    refundOf,
    refundDepositId: null,
    txHash: settled ? `0x${"0".repeat(64)}` : null,
    failureReason: status === "FAILED" ? "sample failure" : status === "REJECTED" ? "sample rejection" : null,
    requestedBy: null,
    reviewedBy: null,
    pendingReason: null,
    claim: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** A made-up monthly subscription of 25 USD in `status`, in its first period. */
function sampleSubscription(scope: Scope, now: number, status: SubscriptionRecord["status"]): SubscriptionRecord {
  return {
    id: newId("sub"),
    merchantId: scope.merchantId,
    mode: scope.mode,
    customer: "cus_sample",
    status,
    amount: 2500n,
    amountCurrency: "USD",
    acceptedCoins: null,
    interval: { unit: "month", count: 1 },
    startAt: now,
    anchorAt: now,
    trialEnd: null,
    gracePeriodDays: 3,
    renewBeforeDays: 3,
    payerCanCancel: false,
    cancelAtPeriodEnd: false,
    currentPeriod: 0,
    invoicedThrough: 0,
    paidThrough: status === "active" ? 0 : -1,
    openInvoiceId: status === "active" ? null : newId("inv"),
    cancelledAt: status === "cancelled" ? now : null,
    cancellationReason: status === "cancelled" ? "requested" : null,
    metadata: null,
    paymentUrlPrefix: "",
    payerTokenHash: "",
    nextRunAt: now,
    createdAt: now,
    updatedAt: now,
  };
}

/** The claim link terms of a sample refund of a claim link event (`refund.created`, ...); null for the others. */
function sampleClaim(type: EventType, now: number, network: string): PayoutRecord["claim"] {
  if (!(REFUND_CLAIM_EVENT_TYPES as readonly string[]).includes(type)) return null;
  return {
    tokenHash: "0".repeat(64),
    expiresAt: now + 30 * 86_400_000,
    networks: [network],
    coins: [],
    origin: null,
    fiat: null,
    held: 1000n,
    claimedAt: type === "refund.claimed" ? now : null,
  };
}

/**
 * The `data` of a test event of `type`: a sample of its resource in the first status that type
 * carries, marked `test: true`.
 */
export function sampleEventData(type: EventType, scope: Scope, now: number, currencies: CurrencyCatalog): Record<string, unknown> {
  const status = EVENT_STATUSES[type][0];
  let view: object;
  if (type.startsWith("payment.")) {
    view = paymentView(samplePayment(scope, now, status as InvoiceRecord["status"]), currencies);
  } else if (type.startsWith("payout.")) {
    view = withdrawalView(samplePayout(scope, now, currencies, status as PayoutRecord["status"], null), currencies);
  } else if (type.startsWith("refund.")) {
    view = refundView(
      {
        ...samplePayout(scope, now, currencies, status as PayoutRecord["status"], newId("inv")),
        claim: sampleClaim(type, now, sampleCoin(currencies).network),
      },
      currencies,
    );
  } else if (type.startsWith("subscription.")) {
    view = subscriptionView(sampleSubscription(scope, now, status as SubscriptionRecord["status"]), currencies);
  } else {
    const { coin } = sampleCoin(currencies);
    const to = currencies.currencies.find((currency) => currency.symbol !== coin)?.symbol ?? coin;
    view = conversionView(
      {
        id: newId("ex"),
        merchantId: scope.merchantId,
        mode: scope.mode,
        status: "SUCCESS",
        fromCoin: coin,
        toCoin: to,
        amount: 1000n,
        rate: 10n ** BigInt(RATE_DECIMALS),
        toAmount: 1000n,
        invoiceId: null,
        createdAt: now,
      },
      currencies,
    );
  }
  return { ...view, test: true };
}
