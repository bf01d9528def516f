import type { InvoiceStatus } from "../invoices/records";
import type { Mode } from "../merchants/records";
import type { PriceRead } from "./pricing";

/** How a payout (a withdrawal or a refund) ended on chain. */
export type PayoutOutcome = "completed" | "failed";

/** What one webhook attempt came to: delivered, to be retried, or given up on. */
export type WebhookAttemptOutcome = "delivered" | "retry" | "failed";

/** A string or number attribute of a span; values stay bounded (never an id or an amount). */
export type SpanAttributes = Record<string, string | number>;

/**
 * What core reports to whoever watches it (metrics, traces). Core calls it after a change
 * committed, so a rolled-back unit of work is never counted. Every method must be cheap and
 * never throw: it runs on the request path.
 */
export interface Telemetry {
  /** An invoice was created. */
  invoiceCreated(mode: Mode): void;
  /** An invoice reached a final status (PAID, FAILED, EXPIRED). */
  invoiceSettled(mode: Mode, status: InvoiceStatus): void;
  /** A deposit was credited; `amount` in decimal coin units, as text (it is money: core never makes it a float). */
  depositCredited(mode: Mode, coin: string, amount: string): void;
  /** A payout (withdrawal or refund) ended. */
  payoutFinished(mode: Mode, kind: "withdrawal" | "refund", outcome: PayoutOutcome): void;
  /** A webhook attempt ended, after `seconds`. */
  webhookAttempt(outcome: WebhookAttemptOutcome, seconds: number): void;
  /** A price source's read ended (reported by the pricing adapter through its host). */
  priceRead(read: PriceRead): void;
  /** Runs `work` inside a span called `name` (a background round, a chain poll, a payout broadcast). */
  span<T>(name: string, attributes: SpanAttributes, work: () => Promise<T>): Promise<T>;
}

/** The telemetry of a router without metrics or tracing: every call does nothing. */
export const NO_TELEMETRY: Telemetry = {
  invoiceCreated: () => undefined,
  invoiceSettled: () => undefined,
  depositCredited: () => undefined,
  payoutFinished: () => undefined,
  webhookAttempt: () => undefined,
  priceRead: () => undefined,
  span: (_name, _attributes, work) => work(),
};
