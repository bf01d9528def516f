import type { CoreContext } from "../context";
import { newId } from "../../ids";
import { conversionView, refundView, withdrawalView } from "../views/funds";
import { paymentView } from "../views/payment";
import type { DepositRecord } from "../deposits/records";
import type { EventRecord } from "./records";
import type { ExchangeRecord } from "../exchanges/records";
import type { InvoiceRecord, PaymentEventType } from "../invoices/records";
import type { PayoutRecord } from "../payouts/records";

/**
 * Builds the event records for an invoice change. Each event carries the payment as it stood
 * at that event's step, so `payment.confirmed` of a CONFIRMING -> PAID move can still be told
 * apart from the `payment.completed` that follows it by its data alone. With `deposits` (an
 * event caused by a deposit), the data lists the invoice's deposits as they are now.
 */
export function paymentEvents(
  context: CoreContext,
  steps: ReadonlyArray<{ invoice: InvoiceRecord; events: readonly PaymentEventType[] }>,
  deposits?: readonly DepositRecord[],
): EventRecord[] {
  const records: EventRecord[] = [];
  for (const { invoice, events } of steps) {
    if (events.length === 0) continue;
    const data = paymentView(invoice, context.currencies, deposits) as unknown as Record<string, unknown>;
    for (const type of events) {
      records.push({
        id: newId("evt"),
        merchantId: invoice.merchantId,
        mode: invoice.mode,
        type,
        invoiceId: invoice.id,
        data,
        createdAt: invoice.updatedAt,
      });
    }
  }
  return records;
}

/**
 * The event of a payout's step: `payout.*` for a withdrawal, `refund.*` for a refund (instead of,
 * not besides, the payout event: the two /v1 lists are disjoint, so each movement of money is
 * told once, under the resource it is). `data` is the withdrawal or refund view.
 */
export function payoutEvent(
  context: CoreContext,
  payout: PayoutRecord,
  step: "processing" | "completed" | "failed" | "awaiting_approval" | "rejected",
): EventRecord {
  const refund = payout.refundOf !== null;
  const data = refund ? refundView(payout, context.currencies) : withdrawalView(payout, context.currencies);
  return {
    id: newId("evt"),
    merchantId: payout.merchantId,
    mode: payout.mode,
    type: refund ? (`refund.${step}` as const) : (`payout.${step}` as const),
    invoiceId: payout.id,
    data: data as unknown as Record<string, unknown>,
    createdAt: payout.updatedAt,
  };
}

/** The event of a refund claim link's own step (`refund.created`, `.claimed`, `.cancelled`, `.expired`); `data` is the refund view. */
export function refundClaimEvent(context: CoreContext, refund: PayoutRecord, step: "created" | "claimed" | "cancelled" | "expired"): EventRecord {
  return {
    id: newId("evt"),
    merchantId: refund.merchantId,
    mode: refund.mode,
    type: `refund.${step}`,
    invoiceId: refund.id,
    data: refundView(refund, context.currencies) as unknown as Record<string, unknown>,
    createdAt: refund.updatedAt,
  };
}

/** The `conversion.completed` event of an exchange, asked for or an auto-conversion; `data` is the conversion view. */
export function conversionEvent(context: CoreContext, exchange: ExchangeRecord): EventRecord {
  return {
    id: newId("evt"),
    merchantId: exchange.merchantId,
    mode: exchange.mode,
    type: "conversion.completed",
    invoiceId: exchange.id,
    data: conversionView(exchange, context.currencies) as unknown as Record<string, unknown>,
    createdAt: exchange.createdAt,
  };
}
