/**
 * The invoice record, its statuses and the payment event types.
 * Amounts are bigint smallest units of the record's asset; times are epoch milliseconds.
 * Storage adapters persist these shapes as they are.
 */
import type { Mode } from "../merchants/records";

/** Invoice statuses (docs/merchant-api.md, "Invoice statuses"). */
export const INVOICE_STATUSES = ["PENDING", "CONFIRMING", "UNDER_PAID", "PAID", "FAILED", "EXPIRED"] as const;

/** One invoice status. */
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** Payment lifecycle event types (docs/merchant-api.md, "Events"). */
export const PAYMENT_EVENT_TYPES = [
  "payment.created",
  "payment.confirming",
  "payment.confirmed",
  "payment.completed",
  "payment.failed",
  "payment.expired",
  "payment.unexpected_deposit",
  "payment.reversed",
  "payment.deposit_dropped",
] as const;

/** One payment event type. */
export type PaymentEventType = (typeof PAYMENT_EVENT_TYPES)[number];

/** An invoice (a /v1 payment is the same record). */
export interface InvoiceRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  status: InvoiceStatus;
  /** Requested amount in units of `amountCurrency`. */
  amount: bigint;
  amountCurrency: string;
  /** Coins the payer may choose from (hosted mode); null means every supported coin. */
  acceptedCoins: string[] | null;
  /** Coin and network: fixed at creation for whitelabel, chosen by the payer for hosted. */
  coin: string | null;
  network: string | null;
  address: string | null;
  /** Price of 1 `coin` in `amountCurrency`, scaled by 10^RATE_DECIMALS. */
  rate: bigint | null;
  /**
   * When the locked `rate` was observed, epoch ms; for a rate combined from several sources,
   * the oldest of their prices. Null until a rate is locked.
   */
  rateAt: number | null;
  /**
   * The price sources the locked `rate` was combined from (["coinbase","kraken"], ["static"]
   * for the fixed table; empty when the pricing adapter does not say). Null until a rate is locked.
   */
  rateSources: string[] | null;
  /** What the payer must send, in units of `coin`. */
  payAmount: bigint | null;
  feePaidByPayer: boolean;
  /** Accepted underpayment in tenths of a percent (0..500). */
  underPaidCoverTenths: number;
  isWhiteLabel: boolean;
  returnUrl: string | null;
  /** The hosted payment page, fixed at creation from the mount path and `publicUrl`. */
  paymentUrl: string;
  /** Free-form merchant data; `orderId` flows into every event. */
  metadata: Record<string, unknown> | null;
  /** Asset the credited amount is converted into (auto-conversion); null keeps the coin. */
  settleCurrency: string | null;
  /** The payment link this invoice was created from, if any. */
  paymentLinkId: string | null;
  /** Sum of the deposits in `coin` that are neither dropped nor reversed, in units of `coin`. */
  receivedAmount: bigint;
  /**
   * Sum of the deposits in `coin` that were credited and then left the chain (status REVERSED),
   * in units of `coin`: taken back from the balance and no longer in `receivedAmount`.
   */
  reversedAmount: bigint;
  /** Hash of the most recent deposit transaction. */
  txHash: string | null;
  /** True once a deposit reopened the invoice after it had expired. */
  late: boolean;
  failureReason: "underpaid" | null;
  expiresAt: number;
  createdAt: number;
  updatedAt: number;
}
