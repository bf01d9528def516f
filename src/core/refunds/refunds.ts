import type { Scope } from "../ports/storage/index";
import { notFound, PaymentError } from "../../errors";
import { formatDecimal } from "../../money";
import type { CoreContext } from "../context";
import type { CommitHook } from "../idempotency/idempotency";
import { createPayout, type PayoutRequester } from "../payouts/payouts";
import type { PayoutRecord } from "../payouts/records";
import { capitalise, type CreateRefundInput, refundTarget, refuseOverRefund } from "./target";

export type { CreateRefundInput } from "./target";

/**
 * Refunds a payment, or one of its deposits. The check and the debit happen in one transaction
 * holding the payment's lock, so two refunds sent at once can never give back more than was
 * received. A deposit in the payment's own coin is bounded both by itself and by the payment.
 */
export async function createRefund(
  context: CoreContext,
  scope: Scope,
  input: CreateRefundInput,
  onCommit?: CommitHook<PayoutRecord>,
  requester: PayoutRequester = {},
): Promise<PayoutRecord> {
  // A claim link's secret is in its creating answer only: it is made by createRefundClaim, which returns it.
  if (input.address === null)
    throw new PaymentError("validation_error", "Invalid request: address: required (a refund without one is a claim link: createRefundClaim).");
  if (
    (input.currency ?? null) !== null ||
    (input.claimNetworks ?? null) !== null ||
    (input.claimCoins ?? null) !== null ||
    (input.expiresInDays ?? null) !== null
  ) {
    throw new PaymentError(
      "validation_error",
      "Invalid request: currency, claimChains, claimCoins and expiresInDays are for a refund claim link (a refund without address).",
    );
  }
  const target = await refundTarget(context, scope, input.paymentId, input.depositId ?? null);
  const { invoice, coin, depositId, what, decimals } = target;
  // A deposit's refund is bounded by what it credited, network fee included: the most that can
  // be sent is what is left less that fee. (A payment's refund is bounded by what it received.)
  const sendOn = context.currencies.network(coin, input.network ?? target.network ?? "");
  const networkFee = depositId === null || !sendOn ? 0n : sendOn.withdrawFee + sendOn.staticFixedFee;
  let amount = input.amount;
  if (amount === null) {
    const left = await target.left(context.storage, networkFee);
    if (left <= 0n) throw new PaymentError("invalid_state", `${capitalise(what)} has nothing left to refund.`);
    amount = formatDecimal(left, decimals);
  }
  return createPayout(
    context,
    scope,
    { currency: coin, network: input.network ?? target.network, amount, address: input.address },
    {
      ...requester,
      onCommit,
      refund: {
        invoiceId: invoice.id,
        depositId,
        check: async (tx, wanted) => {
          await tx.lockInvoice(invoice.id);
          await refuseOverRefund(tx, target, wanted, networkFee, null, input.amount === null);
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
