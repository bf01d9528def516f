import type { CoreContext } from "../context";
import type { EventRecord } from "./records";
import type { InvoiceStatus } from "../invoices/records";

/** The final status each closing payment event stands for. */
const SETTLED: Partial<Record<string, InvoiceStatus>> = {
  "payment.completed": "PAID",
  "payment.failed": "FAILED",
  "payment.expired": "EXPIRED",
};

/**
 * Tells the router's telemetry what committed events mean: invoices created and settled,
 * payouts and refunds finished. Read from the events because they are written exactly once per
 * change, in the same unit of work, whichever path (HTTP, background round) made it.
 */
export function reportCommittedEvents(context: CoreContext, events: readonly EventRecord[]): void {
  const telemetry = context.telemetry;
  if (!telemetry) return;
  for (const event of events) {
    if (event.type === "payment.created") telemetry.invoiceCreated(event.mode);
    const settled = SETTLED[event.type];
    if (settled) telemetry.invoiceSettled(event.mode, settled);
    if (event.type === "payout.completed" || event.type === "refund.completed") {
      telemetry.payoutFinished(event.mode, event.type === "payout.completed" ? "withdrawal" : "refund", "completed");
    } else if (event.type === "payout.failed" || event.type === "refund.failed") {
      telemetry.payoutFinished(event.mode, event.type === "payout.failed" ? "withdrawal" : "refund", "failed");
    }
  }
}
