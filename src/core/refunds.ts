import type { Scope } from "../adapters/storage/types";
import { notFound, PaymentError } from "../errors";
import { formatDecimal } from "../money";
import type { CoreContext } from "./context";
import type { CommitHook } from "./idempotency";
import { createPayout } from "./payouts";
import type { PayoutRecord } from "./types";

/** A refund request: part or all of what a payment received, back to an address. */
export interface CreateRefundInput {
  paymentId: string;
  /** Decimal string in the payment's coin; null refunds everything still refundable. */
  amount: string | null;
  address: string;
  /** Network to send on; defaults to the payment's. */
  network: string | null;
}

/**
 * What is left to refund: every confirmed deposit (the payer's money as received, before our
 * fee) less the refunds not FAILED. A refund is a payout of the payment's coin, so it is debited
 * from the balance with the network's fees, like any payout.
 */
async function refundable(reads: Pick<CoreContext["storage"], "listDepositsForInvoice" | "listRefunds">, invoiceId: string): Promise<bigint> {
  const received = (await reads.listDepositsForInvoice(invoiceId))
    .filter((deposit) => deposit.status === "CONFIRMED")
    .reduce((sum, deposit) => sum + deposit.amount, 0n);
  const refunded = (await reads.listRefunds(invoiceId))
    .filter((refund) => refund.status !== "FAILED")
    .reduce((sum, refund) => sum + refund.amount, 0n);
  return received - refunded;
}

/**
 * Refunds a payment. The check and the debit happen in one transaction holding the payment's
 * lock, so two refunds sent at once can never give back more than was received.
 */
export async function createRefund(context: CoreContext, scope: Scope, input: CreateRefundInput, onCommit?: CommitHook<PayoutRecord>): Promise<PayoutRecord> {
  const invoice = await context.storage.getInvoice(scope, input.paymentId);
  if (!invoice) throw notFound("payment", input.paymentId);
  if (invoice.coin === null) throw new PaymentError("invalid_state", `Payment ${invoice.id} has received nothing to refund.`);
  const decimals = context.currencies.crypto(invoice.coin)!.decimals;
  let amount = input.amount;
  if (amount === null) {
    const left = await refundable(context.storage, invoice.id);
    if (left === 0n) throw new PaymentError("invalid_state", `Payment ${invoice.id} has nothing left to refund.`);
    amount = formatDecimal(left, decimals);
  }
  return createPayout(
    context,
    scope,
    { currency: invoice.coin, network: input.network ?? invoice.network, amount, address: input.address },
    {
      onCommit,
      refund: {
        invoiceId: invoice.id,
        check: async (tx, wanted) => {
          await tx.lockInvoice(invoice.id);
          const left = await refundable(tx, invoice.id);
          if (wanted > left) {
            throw new PaymentError(
              "validation_error",
              `Invalid request: amount: payment ${invoice.id} has ${formatDecimal(left, decimals)} ${invoice.coin} left to refund.`,
            );
          }
        },
      },
    },
  );
}

/** The refund with this id in `scope`, or a 404 (a plain payout's id is not a refund). */
export async function getRefund(context: CoreContext, scope: Scope, id: string): Promise<PayoutRecord> {
  const payout = await context.storage.getPayout(scope, id);
  if (!payout || payout.refundOf === null) throw notFound("refund", id);
  return payout;
}
