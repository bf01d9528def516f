import type { Network } from "../currencies";
import { PaymentError } from "../errors";
import { formatDecimal } from "../money";
import { newId } from "../ids";
import type { CoreContext } from "./context";
import { payoutEvent, refundClaimEvent } from "./events";
import { recordEvents, withOutbox } from "./outbox";
import { refuseIfInDeficit } from "./deficit";
import { refuseUnlistedDestination } from "./payout-allowlist";
import { approvalRuleOf, needsApproval } from "./payout-approval";
import { readHotWalletFunding, refuseIfHotWalletShort } from "./payout-funding";
import { broadcast } from "./payouts";
import type { LedgerEntry, PayoutRecord } from "./ports/records";
import type { StorageTransaction } from "./ports/storage/index";
import { quoteRate } from "./rates";
import { claimSecretMatches, fiatToCoin, notAwaitingClaim } from "./refund-claims";
import { refundTarget, refuseOverRefund, type RefundTarget } from "./refund-target";

/** What a claim on one network comes to: the amount the payer receives and the network fee, in the refund's coin. */
export interface ClaimQuote {
  network: string;
  amount: bigint;
  fee: bigint;
  /** For a fiat amount: the live rate it was converted at (price of 1 coin, scaled by 10^RATE_DECIMALS); null otherwise. */
  rate: bigint | null;
}

/** What the payer asks for on the claim page. */
export interface ClaimRequest {
  network: string;
  address: string;
  /**
   * The amount (smallest units) the payer saw and confirmed; when today's conversion of a fiat
   * amount differs, the claim is refused with `rate_changed` and the new quote, so the payer
   * never receives other than what was confirmed. Null skips the check (amounts in the coin never move).
   */
  confirmedAmount: bigint | null;
}

/**
 * The refund a claim link names, when `secret` is its own (compared in constant time) and it is
 * a claim link; null otherwise, whatever the reason (no such refund, another secret), so a
 * guesser learns nothing. The page shows it in any status (claimed, cancelled, expired).
 */
export async function readRefundClaim(context: CoreContext, id: string, secret: string): Promise<PayoutRecord | null> {
  // The link carries no merchant: the payout is read by id alone, under its lock, briefly.
  const refund = await context.storage.transaction((tx) => tx.lockPayout(id));
  if (!refund || refund.refundOf === null || !claimSecretMatches(refund, secret)) return null;
  return refund;
}

/** Whether a claim link can be claimed now: AWAITING_CLAIM and not past its expiry (the schedule may not have run yet). */
export function claimOpen(context: CoreContext, refund: PayoutRecord): boolean {
  return refund.status === "AWAITING_CLAIM" && refund.claim !== null && refund.claim.expiresAt > context.now();
}

/** The network of a claim the payer may choose, or a 400. */
function offeredNetwork(context: CoreContext, refund: PayoutRecord, network: string): Network {
  const found = refund.claim!.networks.includes(network) ? context.currencies.network(refund.coin, network) : undefined;
  if (!found) throw new PaymentError("validation_error", `Invalid request: network: must be one of ${refund.claim!.networks.join(", ")}.`);
  return found;
}

/**
 * What claiming on `network` pays out now: the coin amount (for a fiat amount, converted at the
 * live rate, rounded up), and that network's fee.
 */
export async function quoteClaim(context: CoreContext, refund: PayoutRecord, network: string): Promise<ClaimQuote> {
  const chosen = offeredNetwork(context, refund, network);
  const fee = chosen.withdrawFee + chosen.staticFixedFee;
  const fiat = refund.claim!.fiat;
  if (fiat === null) return { network: chosen.network, amount: refund.amount, fee, rate: null };
  const rate = await quoteRate(context, refund.coin, fiat.currency);
  const decimals = context.currencies.decimalsOf(refund.coin) ?? 0;
  return { network: chosen.network, amount: fiatToCoin(fiat.amount, context.currencies.decimalsOf(fiat.currency)!, rate, decimals), fee, rate };
}

/** Whether `address` is valid for the refund's coin on `network` (one of the claim's), by the chain adapter's rule. */
export async function claimAddressValid(context: CoreContext, refund: PayoutRecord, network: string, address: string): Promise<boolean> {
  const chosen = offeredNetwork(context, refund, network);
  return context.chains.require(refund.mode, refund.coin, chosen.network).isValidAddress(refund.coin, chosen.network, address);
}

/** A claim refused because a fiat amount converts to another amount than the payer confirmed; carries the new quote. */
export class RateChangedError extends PaymentError {
  constructor(readonly quote: ClaimQuote) {
    super("validation_error", "The exchange rate changed since the amount was shown: confirm the new amount.");
  }
}

/**
 * Claims a refund link: checks the network and the address (the chain adapter's), converts a
 * fiat amount at the live rate, and then, in ONE transaction holding the refund's lock (and the
 * payment's), checks it is still AWAITING_CLAIM (a second submission, from this browser or
 * another, finds it claimed: 409 `refund_claimed`, and nothing moves), applies the merchant's
 * payout allowlist, settles the hold exactly (the difference between what was held and amount +
 * fee of the chosen network credited back, or debited when a fiat amount's coin fell past the
 * margin), and turns the refund into a payout: PROCESSING, or AWAITING_APPROVAL above the
 * approval threshold, with `refund.claimed` then the payout's own event. A refund PROCESSING is
 * then sent as any payout is (`broadcast`).
 */
export async function claimRefund(context: CoreContext, refund: PayoutRecord, request: ClaimRequest): Promise<PayoutRecord> {
  if (!claimOpen(context, refund)) throw closedError(context, refund);
  const quote = await quoteClaim(context, refund, request.network);
  if (request.confirmedAmount !== null && request.confirmedAmount !== quote.amount) throw new RateChangedError(quote);
  const chain = context.chains.require(refund.mode, refund.coin, quote.network);
  const unavailable = chain.payoutsUnavailable?.(refund.coin, quote.network);
  if (unavailable) throw new PaymentError("chain_unavailable", unavailable);
  if (!(await chain.isValidAddress(refund.coin, quote.network, request.address))) {
    throw new PaymentError("invalid_address", `"${request.address}" is not a valid ${refund.coin} address on ${quote.network}.`);
  }
  const scope = { merchantId: refund.merchantId, mode: refund.mode };
  const target = await refundTarget(context, scope, refund.refundOf!, refund.refundDepositId);
  const funding = { merchantId: refund.merchantId, coin: refund.coin, network: quote.network, amount: quote.amount, fee: quote.fee };
  const reading = await readHotWalletFunding(context, refund.mode, chain, funding, refund.claim!.held);
  const merchant = await context.storage.getMerchant(refund.merchantId);
  const held = await needsApproval(context, approvalRuleOf(context, merchant), refund.coin, quote.amount);
  const claimed = await withOutbox(context, async (tx) => {
    await tx.lockInvoice(target.invoice.id);
    const current = await tx.lockPayout(refund.id);
    if (!current || !claimOpen(context, current)) throw closedError(context, current ?? refund);
    await refuseUnlistedDestination(context, tx, scope, quote.network, request.address);
    await refuseOverRefundAtClaim(tx, target, current, quote);
    const now = context.now();
    await settleHold(context, tx, current, quote, now);
    await refuseIfHotWalletShort(context, tx, reading, funding);
    const next: PayoutRecord = {
      ...current,
      status: held ? "AWAITING_APPROVAL" : "PROCESSING",
      network: quote.network,
      address: request.address,
      amount: quote.amount,
      fee: quote.fee,
      claim: { ...current.claim!, claimedAt: now },
      updatedAt: now,
    };
    await tx.updatePayout(next);
    await recordEvents(context, tx, [refundClaimEvent(context, next, "claimed"), payoutEvent(context, next, held ? "awaiting_approval" : "processing")]);
    return next;
  });
  if (held) return claimed;
  return (await broadcast(context, claimed)) ?? claimed;
}

/** Why a link cannot be claimed now: claimed (409 `refund_claimed`), or closed (409 `refund_claim_closed`: cancelled, expired, past its expiry). */
function closedError(context: CoreContext, refund: PayoutRecord): PaymentError {
  if (refund.status === "AWAITING_CLAIM" && refund.claim !== null && refund.claim.expiresAt <= context.now()) {
    return new PaymentError("refund_claim_closed", `Refund ${refund.id}'s claim link expired; its hold goes back to the balance.`);
  }
  return notAwaitingClaim(refund, "claimed");
}

/**
 * A fiat amount converted at the claim's rate may come to more of the coin than was held; it may
 * still not exceed what the payment has left to refund (this link's own hold not counted):
 * 422 `claim_over_refundable` otherwise.
 */
async function refuseOverRefundAtClaim(tx: StorageTransaction, target: RefundTarget, current: PayoutRecord, quote: ClaimQuote): Promise<void> {
  try {
    await refuseOverRefund(tx, target, quote.amount, quote.fee, current.id);
  } catch (error) {
    if (!(error instanceof PaymentError) || error.type !== "validation_error") throw error;
    throw new PaymentError(
      "claim_over_refundable",
      `At today's rate the refund comes to more than ${target.what} has left to refund. ${error.message.replace(/^Invalid request: amount: /, "")}`,
    );
  }
}

/**
 * Settles a claim link's hold against what is sent: one ledger entry of the difference (cause
 * key `payout:<id>:claim`, so it posts once), credited back when the hold was larger, debited
 * when smaller (42201 when the balance cannot cover it; nothing then moves).
 */
async function settleHold(context: CoreContext, tx: StorageTransaction, current: PayoutRecord, quote: ClaimQuote, now: number): Promise<void> {
  const difference = current.claim!.held - (quote.amount + quote.fee);
  if (difference === 0n) return;
  const entry: LedgerEntry = {
    id: newId("led"),
    merchantId: current.merchantId,
    mode: current.mode,
    asset: current.coin,
    amount: difference,
    kind: difference > 0n ? "payout_reversal" : "payout",
    causeKey: `payout:${current.id}:claim`,
    createdAt: now,
  };
  const posted = await tx.postLedgerEntries([entry]);
  if (posted.status === "insufficient") {
    const scope = { merchantId: current.merchantId, mode: current.mode };
    await refuseIfInDeficit(context, tx, scope, current.coin);
    const decimals = context.currencies.decimalsOf(current.coin) ?? 0;
    throw new PaymentError(
      "insufficient_balance",
      `The ${current.coin} balance does not cover the ${formatDecimal(-difference, decimals)} the refund comes to above its hold at today's rate.`,
    );
  }
}
