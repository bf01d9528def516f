import type { InvoiceStatus } from "../invoices/records";
import type { SubscriptionRecord } from "./records";
import { days, periodIndexAt, periodStart } from "./calendar";

/**
 * The state machine of a subscription, as pure functions of the record, the clock and the status
 * of the invoice it awaits. The background work asks `nextStep` again after each step it
 * applied, so a clock that jumped several periods is caught up one step at a time.
 */

/** One move of a subscription. */
export type SubscriptionStep =
  /** The awaited invoice was paid: the period is paid (and a past_due subscription active again). */
  | { kind: "paid" }
  /** Make the invoice of period `index` (renewBeforeDays before it starts). */
  | { kind: "invoice"; index: number }
  /** The next period began with the current one paid: it becomes the current period. */
  | { kind: "enter"; index: number }
  /** The current period is unpaid past its grace days. */
  | { kind: "past_due" }
  /** Cancelled at a period's end: it was set to end there, or the period ending was never paid. */
  | { kind: "cancel"; reason: "period_end" | "unpaid" };

/** When the invoice of period `index` is due to be made. */
export function invoiceDueAt(subscription: SubscriptionRecord, index: number): number {
  return periodStart(subscription.anchorAt, subscription.interval, index) - days(subscription.renewBeforeDays);
}

/** Whether the subscription may make its next invoice now (not the time test: see `nextStep`). */
function mayInvoice(subscription: SubscriptionRecord): boolean {
  return subscription.status !== "cancelled" && !subscription.cancelAtPeriodEnd && subscription.openInvoiceId === null;
}

/**
 * What the subscription does next at `now`, or null when nothing is due. `openInvoiceStatus` is
 * the status of its awaited invoice (null when none). The order matters: a payment is taken
 * first (paid late but before anyone looked counts), the next invoice is made before its period
 * is entered, and a period is left (cancelled unpaid or at its end) before anything is judged
 * within it.
 */
export function nextStep(subscription: SubscriptionRecord, now: number, openInvoiceStatus: InvoiceStatus | null): SubscriptionStep | null {
  if (subscription.status === "cancelled") return null;
  if (subscription.openInvoiceId !== null && openInvoiceStatus === "PAID") return { kind: "paid" };
  const next = subscription.invoicedThrough + 1;
  if (mayInvoice(subscription) && now >= invoiceDueAt(subscription, next)) return { kind: "invoice", index: next };
  const { anchorAt, interval, currentPeriod } = subscription;
  if (periodIndexAt(anchorAt, interval, now) > currentPeriod) {
    if (subscription.cancelAtPeriodEnd) return { kind: "cancel", reason: "period_end" };
    if (currentPeriod >= 0 && subscription.paidThrough < currentPeriod) return { kind: "cancel", reason: "unpaid" };
    return { kind: "enter", index: currentPeriod + 1 };
  }
  if (
    subscription.status === "active" &&
    currentPeriod >= 0 &&
    subscription.paidThrough < currentPeriod &&
    now >= periodStart(anchorAt, interval, currentPeriod) + days(subscription.gracePeriodDays)
  ) {
    return { kind: "past_due" };
  }
  return null;
}

/**
 * When the background work must look at the subscription again (after `nextStep` said nothing
 * is due): at once while an invoice is awaited (its payment is seen by looking), else the
 * earliest of its next invoice, the end of its period and the end of its grace days.
 */
export function nextRunAt(subscription: SubscriptionRecord, now: number): number {
  if (subscription.status === "cancelled") return Number.MAX_SAFE_INTEGER;
  if (subscription.openInvoiceId !== null) return now;
  return Math.max(now, nextMoment(subscription));
}

/** The next time the clock alone moves the subscription: its next invoice, the end of its period or of its grace days. */
export function nextMoment(subscription: SubscriptionRecord): number {
  const { anchorAt, interval, currentPeriod } = subscription;
  const times = [periodStart(anchorAt, interval, currentPeriod + 1)];
  if (mayInvoice(subscription)) times.push(invoiceDueAt(subscription, subscription.invoicedThrough + 1));
  if (currentPeriod >= 0 && subscription.paidThrough < currentPeriod && subscription.status === "active") {
    times.push(periodStart(anchorAt, interval, currentPeriod) + days(subscription.gracePeriodDays));
  }
  return Math.min(...times);
}
