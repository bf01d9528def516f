// Pieces the subscription operations, its billing steps and its payer link share: kept apart so none of those files imports another in a loop.
import { createHash } from "node:crypto";
import { requireStoragePart, type Scope, type Storage, type StorageTransaction } from "../ports/storage/index";
import { notFound, PaymentError } from "../../errors";
import { formatDecimal } from "../../money";
import type { CoreContext } from "../context";
import { newId } from "../../ids";
import { type createInvoice, forceExpire } from "../invoices/invoices";
import type { EventRecord } from "../webhooks/records";
import type { InvoiceRecord } from "../invoices/records";
import type { SubscriptionEventType, SubscriptionPeriodRecord, SubscriptionRecord } from "./records";
import { periodStart } from "./calendar";
import { subscriptionView } from "../views/subscription";

/** Hex SHA-256 of a payer token: what is stored and looked up. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The /v1 event of a subscription's change, carrying it as it is now. */
export function subscriptionEvent(context: CoreContext, subscription: SubscriptionRecord, type: SubscriptionEventType): EventRecord {
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

/** Locks a subscription of `scope` in `tx`: a 404 for another scope's, a 409 (40931) for a cancelled one. */
export async function lockOpen(tx: StorageTransaction, scope: Scope, id: string): Promise<SubscriptionRecord> {
  const subscription = await subscriptionTx(tx).lockSubscription(id);
  if (!subscription || subscription.merchantId !== scope.merchantId || subscription.mode !== scope.mode) throw notFound("subscription", id);
  if (subscription.status === "cancelled") throw new PaymentError("subscription_cancelled", `Subscription ${id} is cancelled; it cannot change any more.`);
  return subscription;
}

/** The invoice of period `index`: hosted (the payer picks a coin), open until the period ends. */
export function periodInvoiceInput(context: CoreContext, subscription: SubscriptionRecord, index: number): Parameters<typeof createInvoice>[2] {
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

/** The row of period `index`, paid by `invoice`. */
export function periodRecord(subscription: SubscriptionRecord, index: number, invoice: InvoiceRecord, now: number): SubscriptionPeriodRecord {
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

/**
 * The open invoice of a period the subscription will not serve (it is cancelled, or ends before
 * that period), if nothing was paid to it yet, is expired so that nobody pays for nothing.
 */
export async function expireUnservedInvoice(context: CoreContext, subscription: SubscriptionRecord): Promise<void> {
  if (subscription.openInvoiceId === null) return;
  const unserved = subscription.status === "cancelled" || (subscription.cancelAtPeriodEnd && subscription.invoicedThrough > subscription.currentPeriod);
  if (!unserved) return;
  const invoice = await context.storage.findInvoice(subscription.openInvoiceId);
  if (invoice?.status !== "PENDING" || invoice.receivedAmount > 0n) return;
  await forceExpire(context, subscription, invoice.id);
}

/** The storage's subscriptions part, or the 501 of a storage without it (docs/storage.md, "Optional parts"). */
export function subscriptionStorage(storage: Storage) {
  return requireStoragePart(storage, "subscriptions", "Subscriptions");
}

/** The same, on a transaction: its writes too. */
export function subscriptionTx(tx: StorageTransaction) {
  return requireStoragePart(tx, "subscriptions", "Subscriptions", true);
}
