// A subscription as the merchant drives it: create, read, list, update, cancel (billing and the payer link are beside it).
import type { PageQuery, Scope, StorageTransaction, SubscriptionFilter } from "../ports/storage/index";
import { notFound, PaymentError } from "../../errors";
import type { CoreContext } from "../context";
import type { CommitHook } from "../idempotency/idempotency";
import { newId, randomToken } from "../../ids";
import { createInvoice, parseAmountIn } from "../invoices/invoices";
import { recordEvents, withOutbox } from "../webhooks/outbox";
import type { BillingInterval, SubscriptionPeriodRecord, SubscriptionRecord } from "./records";
import { days, shortestPeriodDays } from "./calendar";
import { nextRunAt } from "./machine";
import { expireUnservedInvoice, hashToken, lockOpen, periodInvoiceInput, periodRecord, subscriptionEvent, subscriptionStorage, subscriptionTx } from "./shared";

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
