import type { Scope } from "../ports/storage/index";
import { notFound, PaymentError } from "../../errors";
import { formatDecimal } from "../../money";
import type { CoreContext } from "../context";
import type { DepositRecord } from "../deposits/records";
import type { InvoiceRecord } from "../invoices/records";
import type { PayoutRecord } from "../payouts/records";

/** A refund request: part or all of what a payment received, back to an address. */
export interface CreateRefundInput {
  paymentId: string;
  /**
   * One deposit of the payment to give back (a stray coin, say), in its own coin; null refunds
   * the payment's own coin.
   */
  depositId?: string | null;
  /** Decimal string in the coin refunded (or in `currency`); null refunds everything still refundable. */
  amount: string | null;
  /** Where to send it; null makes the refund a claim link the payer gives an address to (`createRefundClaim`). */
  address: string | null;
  /** Network to send on; defaults to the payment's (or the deposit's). For a claim link: the network offered first. */
  network: string | null;
  /** Claim links only: a fiat currency `amount` is fixed in (converted at the rate of the claim); null: the coin. */
  currency?: string | null;
  /** Claim links only: the networks of the coin the payer may choose; null offers `network` alone. */
  claimNetworks?: string[] | null;
  /**
   * Claim links only: other coins the payer may choose instead, each with its networks (e.g.
   * `{ USDC: ["ETH"] }`); the amount is converted at the live rate of the claim. Null: the refund's coin alone.
   */
  claimCoins?: Record<string, string[]> | null;
  /** Claim links only: days until the link lapses and its hold goes back (default 30). */
  expiresInDays?: number | null;
}

/** A refund claim link's statuses before it is claimed or once it lapsed: nothing left the balance for good. */
const CLAIM_RETURNED: ReadonlySet<string> = new Set(["CANCELLED", "EXPIRED"]);

/** A refund whose debit went back to the balance (FAILED on chain, or REJECTED by an approver): its amount is refundable again. */
const gaveBack = (refund: PayoutRecord) => refund.status === "FAILED" || refund.status === "REJECTED" || CLAIM_RETURNED.has(refund.status);

/** The reads the refundable amount is computed from (the storage, or a transaction). */
export type RefundReads = Pick<CoreContext["storage"], "listDepositsForInvoice" | "listRefunds">;

/**
 * What is left to refund of a payment's own coin: every confirmed deposit in that coin (the
 * payer's money as received, before our fee) less the refunds in that coin not FAILED nor REJECTED. A
 * refund is a payout of the coin, so it is debited from the balance with the network's fees,
 * like any payout. Stray coins are refunded deposit by deposit (`depositRefundable`).
 */
async function refundable(reads: RefundReads, invoice: InvoiceRecord, except: string | null = null): Promise<bigint> {
  const received = (await reads.listDepositsForInvoice(invoice.id))
    .filter((deposit) => deposit.status === "CONFIRMED" && deposit.coin === invoice.coin)
    .reduce((sum, deposit) => sum + deposit.amount, 0n);
  // A claim link paid in another coin counts for the amount of the payment's coin it was made for.
  const counted = (refund: PayoutRecord) => refund.claim?.origin ?? { coin: refund.coin, amount: refund.amount };
  const refunded = (await reads.listRefunds(invoice.id))
    .filter((refund) => !gaveBack(refund) && counted(refund).coin === invoice.coin && refund.id !== except)
    .reduce((sum, refund) => sum + counted(refund).amount, 0n);
  return received - refunded;
}

/**
 * What is left to refund of one deposit: its credited net amount (what the balance received,
 * after our fee) less what the refunds of that deposit not FAILED nor REJECTED debited (amount and network
 * fee); 0 unless it is CONFIRMED (a reversed deposit gave nothing to give back). So refunds of
 * a deposit never take more from the balance than the deposit put on it.
 */
async function depositRefundable(
  reads: RefundReads,
  invoiceId: string,
  depositId: string,
  except: string | null = null,
): Promise<{ deposit: DepositRecord; left: bigint } | null> {
  const deposit = (await reads.listDepositsForInvoice(invoiceId)).find((entry) => entry.id === depositId);
  if (!deposit) return null;
  if (deposit.status !== "CONFIRMED") return { deposit, left: 0n };
  const refunded = (await reads.listRefunds(invoiceId))
    .filter((refund) => !gaveBack(refund) && refund.refundDepositId === deposit.id && refund.id !== except)
    .reduce((sum, refund) => sum + refund.amount + refund.fee, 0n);
  return { deposit, left: deposit.amount - deposit.fee - refunded };
}

/** What a refund gives back from: the payment, or one deposit of it, in its coin. */
export interface RefundTarget {
  invoice: InvoiceRecord;
  depositId: string | null;
  /** The coin refunded, and the network it came on (the default to send on). */
  coin: string;
  network: string | null;
  decimals: number;
  /** "payment inv_..." or "deposit dep_...", for messages. */
  what: string;
  /**
   * What is left to refund, less `networkFee` for a deposit (its refunds pay their fee out of
   * it), not counting the refund `except` (a claim link being claimed: its hold is replaced).
   */
  left(reads: RefundReads, networkFee: bigint, except?: string | null): Promise<bigint>;
}

/** Finds what a refund of `paymentId` (or of its deposit `depositId`) gives back from; 404 or 409 when there is nothing. */
export async function refundTarget(context: CoreContext, scope: Scope, paymentId: string, depositId: string | null): Promise<RefundTarget> {
  const invoice = await context.storage.getInvoice(scope, paymentId);
  if (!invoice) throw notFound("payment", paymentId);
  if (invoice.coin === null) throw new PaymentError("invalid_state", `Payment ${invoice.id} has received nothing to refund.`);
  let coin = invoice.coin;
  let network = invoice.network;
  if (depositId !== null) {
    const found = await depositRefundable(context.storage, invoice.id, depositId);
    if (!found) throw notFound("deposit", depositId);
    coin = found.deposit.coin;
    network = found.deposit.network;
  }
  const decimals = context.currencies.crypto(coin)!.decimals;
  const left = async (reads: RefundReads, networkFee: bigint, except: string | null = null): Promise<bigint> => {
    if (depositId === null) return refundable(reads, invoice, except);
    const { left: fromDeposit } = (await depositRefundable(reads, invoice.id, depositId, except))!;
    const sendable = fromDeposit - networkFee;
    return coin === invoice.coin ? min(sendable, await refundable(reads, invoice, except)) : sendable;
  };
  return { invoice, depositId, coin, network, decimals, what: depositId === null ? `payment ${invoice.id}` : `deposit ${depositId}`, left };
}

/**
 * Refuses a refund of `wanted` over what is left; call it holding the payment's lock. An amount
 * the request named is a 400 naming what is left. A request for everything left (`everything`)
 * whose amount was read before the lock is a 409 when another refund took part of it
 * meanwhile: the request was valid, the payment changed under it, and nothing was created.
 */
export async function refuseOverRefund(
  reads: RefundReads,
  target: RefundTarget,
  wanted: bigint,
  networkFee: bigint,
  except: string | null = null,
  everything = false,
): Promise<void> {
  const left = await target.left(reads, networkFee, except);
  if (wanted <= left) return;
  const shown = `${formatDecimal(left < 0n ? 0n : left, target.decimals)} ${target.coin}`;
  if (everything) {
    throw new PaymentError(
      "invalid_state",
      left <= 0n
        ? `${capitalise(target.what)} has nothing left to refund: another refund took the rest while this request ran.`
        : `${capitalise(target.what)} has ${shown} left to refund, not ${formatDecimal(wanted, target.decimals)}: another refund took part while this request ran; ask again for what is left.`,
    );
  }
  throw new PaymentError("validation_error", `Invalid request: amount: ${target.what} has ${shown} left to refund.`);
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/** The text with its first letter in capitals. */
export const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
