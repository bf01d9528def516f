import type { CoreContext } from "./context";
import { newId } from "./ids";
import { paymentView } from "./payment-view";
import type { DepositRecord, EventRecord, InvoiceRecord, PaymentEventType } from "./types";

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
