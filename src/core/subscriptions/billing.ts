// The background billing of subscriptions: each step the clock makes due (a period's invoice, its payment, grace, cancellation), and the test-mode fast-forward.
import { hasStoragePart, type Scope } from "../ports/storage/index";
import { notFound } from "../../errors";
import type { CoreContext } from "../context";
import { createInvoice } from "../invoices/invoices";
import { recordEvents, withOutbox } from "../webhooks/outbox";
import type { SubscriptionEventType, SubscriptionRecord } from "./records";
import { periodStart } from "./calendar";
import { nextMoment, nextRunAt, nextStep } from "./machine";
import { expireUnservedInvoice, lockOpen, periodInvoiceInput, periodRecord, subscriptionEvent, subscriptionTx } from "./shared";
import { getSubscription } from "./subscriptions";

/** Thrown inside an invoice's transaction when another instance made that period's invoice first: rolls it back. */
class PeriodTaken extends Error {}

/**
 * Makes the invoice of period `index`, exactly once: the period row is inserted (insert-or-
 * nothing on (subscription, index)) in the transaction that stores the invoice, under the
 * subscription's lock; an instance that finds the period taken rolls its invoice back.
 * Returns whether this call made it.
 */
async function invoicePeriod(context: CoreContext, snapshot: SubscriptionRecord, index: number): Promise<boolean> {
  const scope = { merchantId: snapshot.merchantId, mode: snapshot.mode };
  try {
    await createInvoice(context, scope, periodInvoiceInput(context, snapshot, index), async (tx, invoice) => {
      const subscription = await subscriptionTx(tx).lockSubscription(snapshot.id);
      if (!subscription || subscription.status === "cancelled" || subscription.invoicedThrough !== index - 1 || subscription.openInvoiceId !== null) {
        throw new PeriodTaken();
      }
      // The amount is the subscription's as locked now (an update may have come since the snapshot).
      if (subscription.amount !== snapshot.amount) throw new PeriodTaken();
      const now = context.now();
      if (!(await subscriptionTx(tx).insertSubscriptionPeriod(periodRecord(subscription, index, invoice, now)))) throw new PeriodTaken();
      const updated = { ...subscription, invoicedThrough: index, openInvoiceId: invoice.id, updatedAt: now };
      updated.nextRunAt = nextRunAt(updated, now);
      await subscriptionTx(tx).updateSubscription(updated);
    });
    return true;
  } catch (error) {
    if (error instanceof PeriodTaken) return false;
    throw error;
  }
}

/**
 * Applies one step other than making an invoice, in one transaction under the subscription's
 * lock (the step is decided again there). Returns "invoice" with the period when that is what is
 * due, "moved" after a step, "idle" when nothing is due.
 */
async function stepOnce(
  context: CoreContext,
  id: string,
): Promise<{ kind: "idle" | "moved" } | { kind: "invoice"; snapshot: SubscriptionRecord; index: number }> {
  return withOutbox(context, async (tx) => {
    const subscription = await subscriptionTx(tx).lockSubscription(id);
    if (!subscription || subscription.status === "cancelled") return { kind: "idle" as const };
    const now = context.now();
    const invoice = subscription.openInvoiceId === null ? null : await tx.findInvoice(subscription.openInvoiceId);
    const step = nextStep(subscription, now, invoice?.status ?? null);
    if (step === null) {
      const at = nextRunAt(subscription, now);
      if (at !== subscription.nextRunAt) await subscriptionTx(tx).updateSubscription({ ...subscription, nextRunAt: at });
      return { kind: "idle" as const };
    }
    if (step.kind === "invoice") return { kind: "invoice" as const, snapshot: subscription, index: step.index };
    const updated: SubscriptionRecord = { ...subscription, updatedAt: now };
    const events: SubscriptionEventType[] = [];
    if (step.kind === "paid") {
      const paidIndex = subscription.invoicedThrough;
      const [period] = await subscriptionTx(tx).listSubscriptionPeriods(id, 1);
      if (period && period.index === paidIndex) await subscriptionTx(tx).updateSubscriptionPeriod({ ...period, paidAt: now });
      updated.paidThrough = paidIndex;
      updated.openInvoiceId = null;
      const wasPastDue = subscription.status === "past_due";
      if (wasPastDue && paidIndex >= subscription.currentPeriod) updated.status = "active";
      if (paidIndex > 0 || wasPastDue) events.push("subscription.renewed");
    } else if (step.kind === "enter") {
      updated.currentPeriod = step.index;
    } else if (step.kind === "past_due") {
      updated.status = "past_due";
      events.push("subscription.past_due");
    } else {
      updated.status = "cancelled";
      // At the end of the period: then, not when the step ran (a late round).
      updated.cancelledAt = periodStart(subscription.anchorAt, subscription.interval, subscription.currentPeriod + 1);
      updated.cancellationReason = step.reason === "unpaid" ? "unpaid" : (subscription.cancellationReason ?? "period_end");
      events.push("subscription.cancelled");
    }
    updated.nextRunAt = nextRunAt(updated, now);
    await subscriptionTx(tx).updateSubscription(updated);
    await recordEvents(
      context,
      tx,
      events.map((type) => subscriptionEvent(context, updated, type)),
    );
    return { kind: "moved" as const };
  });
}

/** Steps taken on one subscription in one round at most: a clock years ahead is caught up over several rounds. */
const STEPS_PER_ROUND = 64;

/** Brings one subscription up to date with the clock; returns the steps taken. */
export async function advanceSubscription(context: CoreContext, id: string): Promise<number> {
  let steps = 0;
  while (steps < STEPS_PER_ROUND) {
    const outcome = await stepOnce(context, id);
    if (outcome.kind === "idle") break;
    if (outcome.kind === "invoice") await invoicePeriod(context, outcome.snapshot, outcome.index);
    steps++;
  }
  if (steps > 0) {
    const subscription = await context.storage.transaction((tx) => subscriptionTx(tx).lockSubscription(id));
    if (subscription) await expireUnservedInvoice(context, subscription);
  }
  return steps;
}

/**
 * Background loop body: every subscription of `mode` that is due (see `nextRunAt`), the longest
 * due first, brought up to date. Returns the steps taken. Safe on several instances at once:
 * each step is decided under the subscription's lock, and each period's invoice is made once.
 */
export async function advanceDueSubscriptions(context: CoreContext, mode: Scope["mode"], limit = 100): Promise<number> {
  // A storage without subscriptions has none to bill: the round does nothing.
  if (!hasStoragePart(context.storage, "subscriptions")) return 0;
  const due = await context.storage.listDueSubscriptions(mode, context.now(), limit);
  let steps = 0;
  for (const subscription of due) steps += await advanceSubscription(context, subscription.id);
  return steps;
}

/**
 * Test mode: moves the subscription's schedule back in time so that the next thing the clock
 * alone would do to it (make its next payment, end its grace days or its period) is due now, then
 * brings it up to date. Its periods are shifted as a block (calendar months then lose their anchor
 * day: this is for trying the events, not the calendar).
 */
export async function sandboxAdvanceSubscription(context: CoreContext, scope: Scope, id: string): Promise<SubscriptionRecord> {
  if (scope.mode !== "test") throw notFound("subscription", id);
  await context.storage.transaction(async (tx) => {
    const subscription = await lockOpen(tx, scope, id);
    const now = context.now();
    const shift = Math.max(0, nextMoment(subscription) - now);
    const moved = (at: number) => at - shift;
    await subscriptionTx(tx).updateSubscription({
      ...subscription,
      startAt: moved(subscription.startAt),
      anchorAt: moved(subscription.anchorAt),
      trialEnd: subscription.trialEnd === null ? null : moved(subscription.trialEnd),
      nextRunAt: now,
      updatedAt: now,
    });
  });
  await advanceSubscription(context, id);
  return getSubscription(context, scope, id);
}
