import type { Scope } from "./ports/storage/index";
import { notFound, PaymentError } from "../errors";
import { formatDecimal } from "../money";
import type { CoreContext } from "./context";
import type { CommitHook } from "./idempotency";
import { createPayout, type PayoutRequester } from "./payouts";
import type { DepositRecord, InvoiceRecord, PayoutRecord } from "./ports/records";

/** A refund request: part or all of what a payment received, back to an address. */
export interface CreateRefundInput {
  paymentId: string;
  /**
   * One deposit of the payment to give back (a stray coin, say), in its own coin; null refunds
   * the payment's own coin.
   */
  depositId?: string | null;
  /** Decimal string in the coin refunded; null refunds everything still refundable. */
  amount: string | null;
  address: string;
  /** Network to send on; defaults to the payment's (or the deposit's). */
  network: string | null;
}

/** A refund whose debit went back to the balance (FAILED on chain, or REJECTED by an approver): its amount is refundable again. */
const gaveBack = (refund: PayoutRecord) => refund.status === "FAILED" || refund.status === "REJECTED";

type RefundReads = Pick<CoreContext["storage"], "listDepositsForInvoice" | "listRefunds">;

/**
 * What is left to refund of a payment's own coin: every confirmed deposit in that coin (the
 * payer's money as received, before our fee) less the refunds in that coin not FAILED nor REJECTED. A
 * refund is a payout of the coin, so it is debited from the balance with the network's fees,
 * like any payout. Stray coins are refunded deposit by deposit (`depositRefundable`).
 */
async function refundable(reads: RefundReads, invoice: InvoiceRecord): Promise<bigint> {
  const received = (await reads.listDepositsForInvoice(invoice.id))
    .filter((deposit) => deposit.status === "CONFIRMED" && deposit.coin === invoice.coin)
    .reduce((sum, deposit) => sum + deposit.amount, 0n);
  const refunded = (await reads.listRefunds(invoice.id))
    .filter((refund) => !gaveBack(refund) && refund.coin === invoice.coin)
    .reduce((sum, refund) => sum + refund.amount, 0n);
  return received - refunded;
}

/**
 * What is left to refund of one deposit: its credited net amount (what the balance received,
 * after our fee) less what the refunds of that deposit not FAILED nor REJECTED debited (amount and network
 * fee); 0 unless it is CONFIRMED (a reversed deposit gave nothing to give back). So refunds of
 * a deposit never take more from the balance than the deposit put on it.
 */
async function depositRefundable(reads: RefundReads, invoiceId: string, depositId: string): Promise<{ deposit: DepositRecord; left: bigint } | null> {
  const deposit = (await reads.listDepositsForInvoice(invoiceId)).find((entry) => entry.id === depositId);
  if (!deposit) return null;
  if (deposit.status !== "CONFIRMED") return { deposit, left: 0n };
  const refunded = (await reads.listRefunds(invoiceId))
    .filter((refund) => !gaveBack(refund) && refund.refundDepositId === deposit.id)
    .reduce((sum, refund) => sum + refund.amount + refund.fee, 0n);
  return { deposit, left: deposit.amount - deposit.fee - refunded };
}

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
  const invoice = await context.storage.getInvoice(scope, input.paymentId);
  if (!invoice) throw notFound("payment", input.paymentId);
  if (invoice.coin === null) throw new PaymentError("invalid_state", `Payment ${invoice.id} has received nothing to refund.`);
  const depositId = input.depositId ?? null;
  let coin = invoice.coin;
  let network = invoice.network;
  if (depositId !== null) {
    const found = await depositRefundable(context.storage, invoice.id, depositId);
    if (!found) throw notFound("deposit", depositId);
    coin = found.deposit.coin;
    network = found.deposit.network;
  }
  const decimals = context.currencies.crypto(coin)!.decimals;
  // A deposit's refund is bounded by what it credited, network fee included: the most that can
  // be sent is what is left less that fee. (A payment's refund is bounded by what it received.)
  const sendOn = context.currencies.network(coin, input.network ?? network ?? "");
  const networkFee = depositId === null || !sendOn ? 0n : sendOn.withdrawFee + sendOn.staticFixedFee;
  const leftNow = async (reads: RefundReads): Promise<bigint> => {
    if (depositId === null) return refundable(reads, invoice);
    const { left } = (await depositRefundable(reads, invoice.id, depositId))!;
    const sendable = left - networkFee;
    return coin === invoice.coin ? min(sendable, await refundable(reads, invoice)) : sendable;
  };
  const what = depositId === null ? `payment ${invoice.id}` : `deposit ${depositId}`;
  let amount = input.amount;
  if (amount === null) {
    const left = await leftNow(context.storage);
    if (left <= 0n) throw new PaymentError("invalid_state", `${capitalise(what)} has nothing left to refund.`);
    amount = formatDecimal(left, decimals);
  }
  return createPayout(
    context,
    scope,
    { currency: coin, network: input.network ?? network, amount, address: input.address },
    {
      ...requester,
      onCommit,
      refund: {
        invoiceId: invoice.id,
        depositId,
        check: async (tx, wanted) => {
          await tx.lockInvoice(invoice.id);
          const left = await leftNow(tx);
          if (wanted > left) {
            throw new PaymentError(
              "validation_error",
              `Invalid request: amount: ${what} has ${formatDecimal(left < 0n ? 0n : left, decimals)} ${coin} left to refund.`,
            );
          }
        },
      },
    },
  );
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);
const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** The refund with this id in `scope`, or a 404 (a plain payout's id is not a refund). */
export async function getRefund(context: CoreContext, scope: Scope, id: string): Promise<PayoutRecord> {
  const payout = await context.storage.getPayout(scope, id);
  if (!payout || payout.refundOf === null) throw notFound("refund", id);
  return payout;
}
