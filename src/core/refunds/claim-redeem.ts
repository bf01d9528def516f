import type { Network } from "../../currencies";
import { PaymentError } from "../../errors";
import { formatDecimal } from "../../money";
import { newId } from "../../ids";
import type { CoreContext } from "../context";
import { payoutEvent, refundClaimEvent } from "../webhooks/events";
import { recordEvents, withOutbox } from "../webhooks/outbox";
import { refuseIfInDeficit } from "../ledger/deficit";
import { refuseUnlistedDestination } from "../payouts/allowlist";
import { refuseTokenContractDestination } from "../payouts/token-contract-destination";
import { approvalRuleOf, needsApproval } from "../payouts/approval";
import { readHotWalletFunding, refuseIfHotWalletShort } from "../payouts/funding";
import { broadcast, destinationIsValid } from "../payouts/payouts";
import { Deadline, REQUEST_NODE_WAIT_MS } from "../deadline";
import type { LedgerEntry } from "../ledger/records";
import type { PayoutRecord } from "../payouts/records";
import type { StorageTransaction } from "../ports/storage/index";
import { quoteRate } from "../rates";
import { claimSecretMatches, fiatToCoin, notAwaitingClaim } from "./claims";
import { refundTarget, refuseOverRefund, type RefundTarget } from "./target";

/** What a claim in one coin on one network comes to: the amount the payer receives and the network fee, in that coin. */
export interface ClaimQuote {
  /** The coin paid out: the refund's own, or one of the link's other coins. */
  coin: string;
  network: string;
  amount: bigint;
  fee: bigint;
  /**
   * The live rate the amount was converted at (price of 1 `coin`, scaled by 10^RATE_DECIMALS): in
   * the fiat currency for a fiat amount, in the refund's own coin for a coin amount paid in
   * another coin; null when nothing was converted.
   */
  rate: bigint | null;
}

/** What the payer asks for on the claim page. */
export interface ClaimRequest {
  /** The coin to be paid in; null: the refund's own. */
  coin?: string | null;
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

/** The networks of `coin` a claim link offers: its own coin's, or another coin's; null when the link does not offer the coin. */
export function offeredNetworks(refund: PayoutRecord, coin: string): string[] | null {
  if (coin === refund.coin) return refund.claim!.networks;
  return refund.claim!.coins.find((entry) => entry.coin === coin)?.networks ?? null;
}

/** The network of a claim the payer may choose, or a 400. */
function offeredNetwork(context: CoreContext, refund: PayoutRecord, coin: string, network: string): Network {
  const networks = offeredNetworks(refund, coin);
  if (!networks)
    throw new PaymentError(
      "validation_error",
      `Invalid request: coin: must be one of ${[refund.coin, ...refund.claim!.coins.map((entry) => entry.coin)].join(", ")}.`,
    );
  const found = networks.includes(network) ? context.currencies.network(coin, network) : undefined;
  if (!found) throw new PaymentError("validation_error", `Invalid request: network: must be one of ${networks.join(", ")}.`);
  return found;
}

/**
 * What claiming in `coin` on `network` pays out now: the amount in that coin, and that
 * network's fee. A fiat amount is converted at the live rate of the chosen coin; a coin amount
 * paid in another coin, at the live rate between the two (the service's rate source, as
 * invoices are priced); both rounded up, so the payer never gets less.
 */
export async function quoteClaim(context: CoreContext, refund: PayoutRecord, coin: string, network: string): Promise<ClaimQuote> {
  const chosen = offeredNetwork(context, refund, coin, network);
  const fee = chosen.withdrawFee + chosen.staticFixedFee;
  const fiat = refund.claim!.fiat;
  const decimals = context.currencies.decimalsOf(coin) ?? 0;
  if (fiat === null && coin === refund.coin) return { coin, network: chosen.network, amount: refund.amount, fee, rate: null };
  // The amount a coin-denominated link is for: what was held less the dearest fee (its `amount` until claimed).
  const [units, unitDecimals, quote] = fiat
    ? [fiat.amount, context.currencies.decimalsOf(fiat.currency)!, fiat.currency]
    : [refund.amount, context.currencies.decimalsOf(refund.coin) ?? 0, refund.coin];
  const rate = await quoteRate(context, coin, quote);
  return { coin, network: chosen.network, amount: fiatToCoin(units, unitDecimals, rate, decimals), fee, rate };
}

/**
 * Whether `address` is valid for `coin` on `network` (one the claim offers), by the chain
 * adapter's rule; a token contract, valid but unable to receive, is refused (400
 * `token_contract_destination`).
 */
export async function claimAddressValid(context: CoreContext, refund: PayoutRecord, coin: string, network: string, address: string): Promise<boolean> {
  const chosen = offeredNetwork(context, refund, coin, network);
  const chain = context.chains.require(refund.mode, coin, chosen.network);
  if (!(await destinationIsValid(chain, coin, chosen.network, address, new Deadline(REQUEST_NODE_WAIT_MS)))) return false;
  refuseTokenContractDestination(context, chain, chosen.network, address);
  return true;
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
  const coin = request.coin ?? refund.coin;
  const quote = await quoteClaim(context, refund, coin, request.network);
  if (request.confirmedAmount !== null && request.confirmedAmount !== quote.amount) throw new RateChangedError(quote);
  const chain = context.chains.require(refund.mode, coin, quote.network);
  const unavailable = chain.payoutsUnavailable?.(coin, quote.network);
  if (unavailable) throw new PaymentError("chain_unavailable", unavailable);
  // One deadline for the claim's node calls, as for a payout: a hung node answers 503 before
  // anything moves, or the claimed refund is sent when the node answers.
  const deadline = new Deadline(REQUEST_NODE_WAIT_MS);
  if (!(await destinationIsValid(chain, coin, quote.network, request.address, deadline))) {
    throw new PaymentError("invalid_address", `"${request.address}" is not a valid ${coin} address on ${quote.network}.`);
  }
  refuseTokenContractDestination(context, chain, quote.network, request.address);
  const scope = { merchantId: refund.merchantId, mode: refund.mode };
  const target = await refundTarget(context, scope, refund.refundOf!, refund.refundDepositId);
  const funding = { merchantId: refund.merchantId, coin, network: quote.network, amount: quote.amount, fee: quote.fee };
  // In another coin nothing of that coin was held: the whole amount + fee is new to the hot wallet.
  const reading = await readHotWalletFunding(context, refund.mode, chain, funding, coin === refund.coin ? refund.claim!.held : 0n, deadline);
  const merchant = await context.storage.getMerchant(refund.merchantId);
  const held = await needsApproval(context, approvalRuleOf(context, merchant), coin, quote.amount);
  const claimed = await withOutbox(context, async (tx) => {
    await tx.lockInvoice(target.invoice.id);
    const current = await tx.lockPayout(refund.id);
    if (!current || !claimOpen(context, current)) throw closedError(context, current ?? refund);
    await refuseUnlistedDestination(context, tx, scope, quote.network, request.address);
    const now = context.now();
    if (coin === current.coin) {
      await refuseOverRefundAtClaim(tx, target, current, quote);
      await settleHold(context, tx, current, quote, now);
    } else {
      // Counted against the payment as held (checked at creation); the hold goes back, the chosen coin pays.
      await switchCoin(context, tx, current, quote, now);
    }
    await refuseIfHotWalletShort(context, tx, reading, funding);
    const next: PayoutRecord = {
      ...current,
      status: held ? "AWAITING_APPROVAL" : "PROCESSING",
      coin,
      network: quote.network,
      address: request.address,
      amount: quote.amount,
      fee: quote.fee,
      claim: { ...current.claim!, claimedAt: now, origin: coin === current.coin ? null : { coin: current.coin, amount: current.amount } },
      updatedAt: now,
    };
    await tx.updatePayout(next);
    await recordEvents(context, tx, [refundClaimEvent(context, next, "claimed"), payoutEvent(context, next, held ? "awaiting_approval" : "processing")]);
    return next;
  });
  if (held) return claimed;
  const sent = await deadline.wait(broadcast(context, claimed));
  return (sent.done ? sent.value : null) ?? claimed;
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

/**
 * A claim in another coin than the refund's: in the claim's transaction, the whole hold goes back
 * to the refund's coin and the chosen coin's balance is debited amount + fee (cause keys
 * `payout:<id>:claim` and `payout:<id>:claim-coin`, so each posts once). When that balance cannot
 * cover it, 42201 and the transaction rolls back: the hold stays, the link stays claimable.
 */
async function switchCoin(context: CoreContext, tx: StorageTransaction, current: PayoutRecord, quote: ClaimQuote, now: number): Promise<void> {
  const entry = (asset: string, amount: bigint, suffix: string): LedgerEntry => ({
    id: newId("led"),
    merchantId: current.merchantId,
    mode: current.mode,
    asset,
    amount,
    kind: amount > 0n ? "payout_reversal" : "payout",
    causeKey: `payout:${current.id}:${suffix}`,
    createdAt: now,
  });
  const posted = await tx.postLedgerEntries([entry(current.coin, current.claim!.held, "claim"), entry(quote.coin, -(quote.amount + quote.fee), "claim-coin")]);
  if (posted.status === "insufficient") {
    await refuseIfInDeficit(context, tx, { merchantId: current.merchantId, mode: current.mode }, quote.coin);
    const decimals = context.currencies.decimalsOf(quote.coin) ?? 0;
    throw new PaymentError(
      "insufficient_balance",
      `The ${quote.coin} balance does not cover the ${formatDecimal(quote.amount + quote.fee, decimals)} the refund comes to in ${quote.coin} (amount plus network fee).`,
    );
  }
}
