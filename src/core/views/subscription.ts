import type { CurrencyCatalog } from "../../currencies";
import { formatDecimal } from "../../money";
import type { BillingInterval, SubscriptionRecord, SubscriptionStatus } from "../subscriptions/records";
import { periodStart } from "../subscriptions/calendar";

/** A subscription as the /v1 API and its webhook events show it. */
export interface SubscriptionView {
  id: string;
  object: "subscription";
  livemode: boolean;
  customer: string;
  status: SubscriptionStatus;
  amount: string;
  currency: string;
  acceptedCoins: string[] | null;
  interval: "week" | "month" | "year" | { days: number };
  startAt: string;
  trialEnd: string | null;
  currentPeriodStart: string | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  cancelledAt: string | null;
  cancellationReason: SubscriptionRecord["cancellationReason"];
  gracePeriodDays: number;
  renewBeforeDays: number;
  payerCanCancel: boolean;
  /** The payment of a period made and not yet seen paid, or null. */
  openPaymentId: string | null;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
}

const iso = (at: number): string => new Date(at).toISOString();

/** The interval as the API spells it: "week", "month", "year" or `{ days }`. */
export function intervalView(interval: BillingInterval): SubscriptionView["interval"] {
  return interval.unit === "day" ? { days: interval.count } : interval.unit;
}

/**
 * The period running now as [start, end): period `currentPeriod` once it began; the trial
 * before the first period (startAt to trialEnd); nothing before a later start without a trial.
 */
export function currentPeriodBounds(subscription: SubscriptionRecord): { start: number; end: number } | null {
  const { currentPeriod: index, anchorAt, interval } = subscription;
  if (index >= 0) return { start: periodStart(anchorAt, interval, index), end: periodStart(anchorAt, interval, index + 1) };
  return subscription.trialEnd === null ? null : { start: subscription.startAt, end: subscription.trialEnd };
}

/** The /v1 view of a subscription (no secret: the payer link is answered once, on creation). */
export function subscriptionView(subscription: SubscriptionRecord, currencies: CurrencyCatalog): SubscriptionView {
  const period = currentPeriodBounds(subscription);
  return {
    id: subscription.id,
    object: "subscription",
    livemode: subscription.mode === "live",
    customer: subscription.customer,
    status: subscription.status,
    amount: formatDecimal(subscription.amount, currencies.decimalsOf(subscription.amountCurrency) ?? 0),
    currency: subscription.amountCurrency,
    acceptedCoins: subscription.acceptedCoins,
    interval: intervalView(subscription.interval),
    startAt: iso(subscription.startAt),
    trialEnd: subscription.trialEnd === null ? null : iso(subscription.trialEnd),
    currentPeriodStart: period ? iso(period.start) : null,
    currentPeriodEnd: period ? iso(period.end) : null,
    cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
    cancelledAt: subscription.cancelledAt === null ? null : iso(subscription.cancelledAt),
    cancellationReason: subscription.cancellationReason,
    gracePeriodDays: subscription.gracePeriodDays,
    renewBeforeDays: subscription.renewBeforeDays,
    payerCanCancel: subscription.payerCanCancel,
    openPaymentId: subscription.openInvoiceId,
    metadata: subscription.metadata,
    createdAt: iso(subscription.createdAt),
    updatedAt: iso(subscription.updatedAt),
  };
}
