/**
 * Subscriptions, their billing periods, statuses and events.
 * Amounts are bigint smallest units of the record's asset; times are epoch milliseconds.
 * Storage adapters persist these shapes as they are.
 */
import type { Mode } from "../merchants/records";

// Subscription events
/**
 * Subscription event types: created; renewed (a period's invoice was paid, for any period after
 * the first, or for the first when that payment brings a past_due subscription back); past_due
 * (the current period is unpaid past its grace days); cancelled (on request, by the payer, at the
 * end of a period it was set to end at, or unpaid when the next period began).
 */
export const SUBSCRIPTION_EVENT_TYPES = ["subscription.created", "subscription.renewed", "subscription.past_due", "subscription.cancelled"] as const;

/** One subscription event type. */
export type SubscriptionEventType = (typeof SUBSCRIPTION_EVENT_TYPES)[number];

// Subscriptions
/** Subscription statuses: active (in its trial or its current period paid or within its grace days), past_due, cancelled (final). */
export const SUBSCRIPTION_STATUSES = ["active", "past_due", "cancelled"] as const;

/** One subscription status. */
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** How long a billing period is: `count` units, in UTC calendar terms (a month keeps its anchor day). */
export interface BillingInterval {
  unit: "day" | "week" | "month" | "year";
  count: number;
}

/**
 * A subscription: a schedule of hosted invoices, one per billing period (crypto cannot be pulled
 * from a payer, so each period is an invoice the payer pays). Period `i` runs from the `i`-th
 * interval after `anchorAt` to the next; before `anchorAt` (a trial, or a later start) there is
 * no current period (-1).
 */
export interface SubscriptionRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  /** The merchant's own reference of the customer. */
  customer: string;
  status: SubscriptionStatus;
  /** Amount of each period's invoice, in units of `amountCurrency`; a change applies to invoices made after it. */
  amount: bigint;
  amountCurrency: string;
  acceptedCoins: string[] | null;
  interval: BillingInterval;
  /** When it was created or asked to start (the trial's start). */
  startAt: number;
  /** The start of period 0: `startAt` plus the trial. */
  anchorAt: number;
  /** The end of the trial (= anchorAt), or null without one. */
  trialEnd: number | null;
  gracePeriodDays: number;
  renewBeforeDays: number;
  /** Whether the payer may cancel on the subscription's page. */
  payerCanCancel: boolean;
  /** True: no further invoice, cancelled when the current period ends. */
  cancelAtPeriodEnd: boolean;
  /** The period now running (-1 before period 0). */
  currentPeriod: number;
  /** The last period with an invoice (-1: none yet). */
  invoicedThrough: number;
  /** The last period whose invoice was paid (-1: none yet). */
  paidThrough: number;
  /** The invoice awaited (made, not yet seen paid), or null. */
  openInvoiceId: string | null;
  cancelledAt: number | null;
  /** Why it was cancelled: asked through the API, by the payer on its page, at the period end it was set to end at, or unpaid. */
  cancellationReason: "requested" | "payer" | "period_end" | "unpaid" | null;
  metadata: Record<string, unknown> | null;
  /**
   * What each period's invoice URL starts with (the hosted page, from the public URL and mount
   * path at creation): the background work that makes later invoices has no request to read them from.
   */
  paymentUrlPrefix: string;
  /** Hex SHA-256 of the payer page's secret token (the token itself is handed out once). */
  payerTokenHash: string;
  /** When the background work next looks at it (epoch ms). */
  nextRunAt: number;
  createdAt: number;
  updatedAt: number;
}

/** One billing period of a subscription that has its invoice: at most one per (subscription, index). */
export interface SubscriptionPeriodRecord {
  subscriptionId: string;
  /** 0 for the first paid period. */
  index: number;
  merchantId: string;
  mode: Mode;
  start: number;
  end: number;
  invoiceId: string;
  amount: bigint;
  amountCurrency: string;
  /** When the background work saw its invoice paid, or null. */
  paidAt: number | null;
  createdAt: number;
}
