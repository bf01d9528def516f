import { createHash, timingSafeEqual } from "node:crypto";
import {
  hasStoragePart,
  type PageQuery,
  requireStoragePart,
  type Scope,
  type Storage,
  type StorageTransaction,
  type SubscriptionFilter,
} from "./ports/storage/index";
import { notFound, PaymentError } from "../errors";
import { formatDecimal } from "../money";
import type { CoreContext } from "./context";
import type { CommitHook } from "./idempotency";
import { newId, randomToken } from "../ids";
import { createInvoice, forceExpire, parseAmountIn } from "./invoices";
import { recordEvents, withOutbox } from "./outbox";
import type { BillingInterval, EventRecord, InvoiceRecord, SubscriptionEventType, SubscriptionPeriodRecord, SubscriptionRecord } from "./ports/records";
import { days, periodStart, shortestPeriodDays } from "./subscription-calendar";
import { nextMoment, nextRunAt, nextStep } from "./subscription-machine";
import { subscriptionView } from "./views/subscription";

/** What creating a subscription needs, shape-checked by the caller's schema. */
export interface CreateSubscriptionInput {
  customer: string;
  /** Decimal string in `amountCurrency`. */
  amount: string;
  amountCurrency: string;
  acceptedCoins: string[] | null;
  interval: BillingInterval;
  /** When the subscription starts (epoch ms); null: now. Not in the past. */
  startAt: number | null;
  trialDays: number;
  gracePeriodDays: number;
  renewBeforeDays: number;
  payerCanCancel: boolean;
  metadata: Record<string, unknown> | null;
  /** What each period's invoice URL starts with (the HTTP shell knows the public URL and mount path): the id is appended. */
  paymentUrlPrefix: string;
}

/** A new subscription and the secret of its payer page (handed out once: only its hash is stored). */
export interface CreatedSubscription {
  subscription: SubscriptionRecord;
  payerToken: string;
}

/** The most periods a payer page lists. */
const PAGE_PERIODS = 24;

/** Hex SHA-256 of a payer token: what is stored and looked up. */
function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The /v1 event of a subscription's change, carrying it as it is now. */
function subscriptionEvent(context: CoreContext, subscription: SubscriptionRecord, type: SubscriptionEventType): EventRecord {
  return {
    id: newId("evt"),
    merchantId: subscription.merchantId,
    mode: subscription.mode,
    type,
    invoiceId: subscription.id,
    data: subscriptionView(subscription, context.currencies) as unknown as Record<string, unknown>,
    createdAt: subscription.updatedAt,
  };
}

/** Refuses settings that could not make sense on every period (a grace or a lead time as long as a period). */
function checkSchedule(input: Pick<CreateSubscriptionInput, "interval" | "gracePeriodDays" | "renewBeforeDays">): void {
  const shortest = shortestPeriodDays(input.interval);
  for (const [name, value] of [
    ["gracePeriodDays", input.gracePeriodDays],
    ["renewBeforeDays", input.renewBeforeDays],
  ] as const) {
    if (value >= shortest) {
      throw new PaymentError("validation_error", `Invalid request: ${name}: must be less than the shortest period of the interval (${shortest} days).`);
    }
  }
}

function checkCoins(context: CoreContext, coins: string[] | null): string[] | null {
  if (coins === null) return null;
  for (const symbol of coins) {
    if (!context.currencies.crypto(symbol)) throw new PaymentError("unsupported_currency", `acceptedCoins: "${symbol}" is not a supported crypto currency.`);
  }
  return [...new Set(coins)];
}

/**
 * Creates a subscription and records `subscription.created`. Without a trial and starting now,
 * the first period's invoice is made in the same transaction (so the answer names it); with a
 * trial or a later start it is made by the background work `renewBeforeDays` before the first
 * period. `onCommit` runs in the transaction that stores it (an idempotency key's answer).
 */
export async function createSubscription(
  context: CoreContext,
  scope: Scope,
  input: CreateSubscriptionInput,
  onCommit?: CommitHook<CreatedSubscription>,
): Promise<CreatedSubscription> {
  subscriptionStorage(context.storage);
  const amount = parseAmountIn(context, input.amount, input.amountCurrency);
  if (amount <= 0n) throw new PaymentError("validation_error", "Invalid request: amount: must be greater than 0.");
  checkSchedule(input);
  const acceptedCoins = checkCoins(context, input.acceptedCoins);
  context.chains.requireAny(scope.mode);
  const now = context.now();
  if (input.startAt !== null && input.startAt < now) throw new PaymentError("validation_error", "Invalid request: startAt: must not be in the past.");
  const startAt = input.startAt ?? now;
  const anchorAt = startAt + days(input.trialDays);
  const payerToken = randomToken(40);
  const subscription: SubscriptionRecord = {
    id: newId("sub"),
    merchantId: scope.merchantId,
    mode: scope.mode,
    customer: input.customer,
    status: "active",
    amount,
    amountCurrency: input.amountCurrency,
    acceptedCoins,
    interval: { ...input.interval },
    startAt,
    anchorAt,
    trialEnd: input.trialDays > 0 ? anchorAt : null,
    gracePeriodDays: input.gracePeriodDays,
    renewBeforeDays: input.renewBeforeDays,
    payerCanCancel: input.payerCanCancel,
    cancelAtPeriodEnd: false,
    currentPeriod: anchorAt <= now ? 0 : -1,
    invoicedThrough: -1,
    paidThrough: -1,
    openInvoiceId: null,
    cancelledAt: null,
    cancellationReason: null,
    metadata: input.metadata,
    paymentUrlPrefix: input.paymentUrlPrefix,
    payerTokenHash: hashToken(payerToken),
    nextRunAt: now,
    createdAt: now,
    updatedAt: now,
  };
  const created = { subscription, payerToken };
  const store = async (tx: StorageTransaction, first: SubscriptionPeriodRecord | null) => {
    if (first) Object.assign(subscription, { invoicedThrough: 0, openInvoiceId: first.invoiceId });
    subscription.nextRunAt = nextRunAt(subscription, now);
    await subscriptionTx(tx).insertSubscription(subscription);
    if (first) await subscriptionTx(tx).insertSubscriptionPeriod(first);
    await recordEvents(context, tx, [subscriptionEvent(context, subscription, "subscription.created")]);
    await onCommit?.(tx, created);
  };
  if (anchorAt <= now) {
    await createInvoice(context, scope, periodInvoiceInput(context, subscription, 0), async (tx, invoice) =>
      store(tx, periodRecord(subscription, 0, invoice, now)),
    );
  } else {
    await withOutbox(context, (tx) => store(tx, null));
  }
  return created;
}

/** The invoice of period `index`: hosted (the payer picks a coin), open until the period ends. */
function periodInvoiceInput(context: CoreContext, subscription: SubscriptionRecord, index: number): Parameters<typeof createInvoice>[2] {
  const end = periodStart(subscription.anchorAt, subscription.interval, index + 1);
  return {
    amount: formatDecimal(subscription.amount, context.currencies.decimalsOf(subscription.amountCurrency) ?? 0),
    amountCurrency: subscription.amountCurrency,
    acceptedCoins: subscription.acceptedCoins,
    whiteLabel: null,
    underPaidCoverTenths: 0,
    feePaidByPayer: false,
    // Payable until the period ends (when an unpaid period cancels the subscription); at least a minute.
    lifeTimeMinutes: Math.max(1, Math.ceil((end - context.now()) / 60_000)),
    returnUrl: null,
    metadata: { ...subscription.metadata, subscriptionId: subscription.id, subscriptionPeriod: index },
    paymentUrlFor: (invoiceId) => `${subscription.paymentUrlPrefix}${invoiceId}`,
  };
}

function periodRecord(subscription: SubscriptionRecord, index: number, invoice: InvoiceRecord, now: number): SubscriptionPeriodRecord {
  return {
    subscriptionId: subscription.id,
    index,
    merchantId: subscription.merchantId,
    mode: subscription.mode,
    start: periodStart(subscription.anchorAt, subscription.interval, index),
    end: periodStart(subscription.anchorAt, subscription.interval, index + 1),
    invoiceId: invoice.id,
    amount: invoice.amount,
    amountCurrency: invoice.amountCurrency,
    paidAt: null,
    createdAt: now,
  };
}

/** The subscription with this id in `scope`, or a 404. */
export async function getSubscription(context: CoreContext, scope: Scope, id: string): Promise<SubscriptionRecord> {
  const subscription = await subscriptionStorage(context.storage).getSubscription(scope, id);
  if (!subscription) throw notFound("subscription", id);
  return subscription;
}

/** One page of subscriptions, newest first. */
export function listSubscriptions(context: CoreContext, scope: Scope, filter: SubscriptionFilter, page: PageQuery): Promise<SubscriptionRecord[]> {
  return subscriptionStorage(context.storage).listSubscriptions(scope, filter, page);
}

/** What an update may change; left out, unchanged. */
export interface UpdateSubscriptionInput {
  /** Decimal string in the subscription's currency: applies to every invoice made after the update. */
  amount?: string;
  metadata?: Record<string, unknown> | null;
  payerCanCancel?: boolean;
  /** False takes back a cancellation at period end that has not happened yet. */
  cancelAtPeriodEnd?: false;
}

/** Locks a subscription of `scope` in `tx`: a 404 for another scope's, a 409 (40931) for a cancelled one. */
async function lockOpen(tx: StorageTransaction, scope: Scope, id: string): Promise<SubscriptionRecord> {
  const subscription = await subscriptionTx(tx).lockSubscription(id);
  if (!subscription || subscription.merchantId !== scope.merchantId || subscription.mode !== scope.mode) throw notFound("subscription", id);
  if (subscription.status === "cancelled") throw new PaymentError("subscription_cancelled", `Subscription ${id} is cancelled; it cannot change any more.`);
  return subscription;
}

/**
 * Changes a subscription. A new amount applies from the next period whose invoice is not made
 * yet: an invoice made already keeps its amount (its payer may be paying it).
 */
export async function updateSubscription(context: CoreContext, scope: Scope, id: string, input: UpdateSubscriptionInput): Promise<SubscriptionRecord> {
  return context.storage.transaction(async (tx) => {
    const subscription = await lockOpen(tx, scope, id);
    const now = context.now();
    const updated: SubscriptionRecord = { ...subscription, updatedAt: now };
    if (input.amount !== undefined) {
      updated.amount = parseAmountIn(context, input.amount, subscription.amountCurrency);
      if (updated.amount <= 0n) throw new PaymentError("validation_error", "Invalid request: amount: must be greater than 0.");
    }
    if (input.metadata !== undefined) updated.metadata = input.metadata;
    if (input.payerCanCancel !== undefined) updated.payerCanCancel = input.payerCanCancel;
    if (input.cancelAtPeriodEnd === false) {
      updated.cancelAtPeriodEnd = false;
      updated.cancellationReason = null;
    }
    updated.nextRunAt = Math.min(updated.nextRunAt, nextRunAt(updated, now));
    await subscriptionTx(tx).updateSubscription(updated);
    return updated;
  });
}

/**
 * Cancels a subscription: now (status cancelled, `subscription.cancelled`), or at the end of
 * its current period (it stays active with `cancelAtPeriodEnd`, makes no further invoice, and the
 * background work cancels it when the period ends). An invoice it made for a period it will not
 * serve, still waiting for its first payment, is expired.
 */
export async function cancelSubscription(
  context: CoreContext,
  scope: Scope,
  id: string,
  options: { atPeriodEnd: boolean; by?: "requested" | "payer" },
): Promise<SubscriptionRecord> {
  const cancelled = await withOutbox(context, async (tx) => {
    const subscription = await lockOpen(tx, scope, id);
    const now = context.now();
    const reason = options.by ?? "requested";
    const updated: SubscriptionRecord = options.atPeriodEnd
      ? { ...subscription, cancelAtPeriodEnd: true, cancellationReason: reason, updatedAt: now }
      : { ...subscription, status: "cancelled", cancelledAt: now, cancellationReason: reason, updatedAt: now };
    updated.nextRunAt = options.atPeriodEnd ? Math.min(subscription.nextRunAt, nextRunAt(updated, now)) : nextRunAt(updated, now);
    await subscriptionTx(tx).updateSubscription(updated);
    if (!options.atPeriodEnd) await recordEvents(context, tx, [subscriptionEvent(context, updated, "subscription.cancelled")]);
    return updated;
  });
  await expireUnservedInvoice(context, cancelled);
  return cancelled;
}

/**
 * The open invoice of a period the subscription will not serve (it is cancelled, or ends before
 * that period), if nothing was paid to it yet, is expired so that nobody pays for nothing.
 */
async function expireUnservedInvoice(context: CoreContext, subscription: SubscriptionRecord): Promise<void> {
  if (subscription.openInvoiceId === null) return;
  const unserved = subscription.status === "cancelled" || (subscription.cancelAtPeriodEnd && subscription.invoicedThrough > subscription.currentPeriod);
  if (!unserved) return;
  const invoice = await context.storage.findInvoice(subscription.openInvoiceId);
  if (invoice?.status !== "PENDING" || invoice.receivedAmount > 0n) return;
  await forceExpire(context, subscription, invoice.id);
}

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

/** A subscription and its latest periods with their invoices, for its payer page. */
export interface PayerSubscription {
  subscription: SubscriptionRecord;
  periods: Array<{ period: SubscriptionPeriodRecord; invoice: InvoiceRecord | null }>;
}

/**
 * The subscription behind a payer token (its page's secret link), or a 404: the token's hash is
 * looked up and compared again in constant time. Reads only.
 */
export async function openPayerSubscription(context: CoreContext, token: string): Promise<PayerSubscription> {
  const hash = hashToken(token);
  const subscription = await subscriptionStorage(context.storage).findSubscriptionByPayerToken(hash);
  if (!subscription || !timingSafeEqual(Buffer.from(subscription.payerTokenHash), Buffer.from(hash))) throw notFound("subscription", "(payer link)");
  const periods = await subscriptionStorage(context.storage).listSubscriptionPeriods(subscription.id, PAGE_PERIODS);
  const invoices = await Promise.all(periods.map((period) => context.storage.findInvoice(period.invoiceId)));
  return { subscription, periods: periods.map((period, i) => ({ period, invoice: invoices[i] ?? null })) };
}

/**
 * The payer cancels on the page, when the merchant allowed it (`payerCanCancel`; 42221
 * otherwise): at the end of the current period, which stays theirs (a period not paid yet is not
 * owed either: its open invoice is expired when the period's end is the next one).
 */
export async function cancelByPayer(context: CoreContext, token: string): Promise<SubscriptionRecord> {
  const { subscription } = await openPayerSubscription(context, token);
  if (!subscription.payerCanCancel) throw new PaymentError("payer_cancel_not_allowed", "This subscription cannot be cancelled here; contact the merchant.");
  const scope = { merchantId: subscription.merchantId, mode: subscription.mode };
  return cancelSubscription(context, scope, subscription.id, { atPeriodEnd: true, by: "payer" });
}

/**
 * A new secret link for the payer's page; the previous one stops working. The way to a link when
 * the creation's answer was lost (a replayed answer leaves it out) or the link leaked.
 */
export async function rotatePayerLink(context: CoreContext, scope: Scope, id: string): Promise<CreatedSubscription> {
  const payerToken = randomToken(40);
  const subscription = await context.storage.transaction(async (tx) => {
    const locked = await subscriptionTx(tx).lockSubscription(id);
    if (!locked || locked.merchantId !== scope.merchantId || locked.mode !== scope.mode) throw notFound("subscription", id);
    const updated = { ...locked, payerTokenHash: hashToken(payerToken), updatedAt: context.now() };
    await subscriptionTx(tx).updateSubscription(updated);
    return updated;
  });
  return { subscription, payerToken };
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

/** The storage's subscriptions part, or the 501 of a storage without it (docs/storage.md, "Optional parts"). */
function subscriptionStorage(storage: Storage) {
  return requireStoragePart(storage, "subscriptions", "Subscriptions");
}

/** The same, on a transaction: its writes too. */
function subscriptionTx(tx: StorageTransaction) {
  return requireStoragePart(tx, "subscriptions", "Subscriptions", true);
}
