// The payer's side of a subscription: its page behind a secret link, cancelling there, and a new link.
import { timingSafeEqual } from "node:crypto";
import type { Scope } from "../ports/storage/index";
import { notFound, PaymentError } from "../../errors";
import type { CoreContext } from "../context";
import { randomToken } from "../../ids";
import type { InvoiceRecord } from "../invoices/records";
import type { SubscriptionPeriodRecord, SubscriptionRecord } from "./records";
import { hashToken, subscriptionStorage, subscriptionTx } from "./shared";
import { type CreatedSubscription, cancelSubscription } from "./subscriptions";

/** The most periods a payer page lists. */
const PAGE_PERIODS = 24;

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
