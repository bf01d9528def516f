import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Scope, StorageTransaction } from "../ports/storage/index";
import { notFound, PaymentError } from "../../errors";
import { formatDecimal, mulDivUp, pow10, RATE_DECIMALS } from "../../money";
import { newId } from "../../ids";
import type { CoreContext } from "../context";
import { refundClaimEvent } from "../webhooks/events";
import type { CommitHook } from "../idempotency/idempotency";
import { parseAmountIn, resolveNetwork } from "../invoices/invoices";
import { recordEvents, withOutbox } from "../webhooks/outbox";
import { refuseIfInDeficit } from "../ledger/deficit";
import { payoutDebitReturn } from "../payouts/ledger";
import type { ClaimCoin } from "./records";
import type { Mode } from "../merchants/records";
import type { PayoutRecord } from "../payouts/records";
import { quoteRate } from "../rates";
import { capitalise, type CreateRefundInput, refundTarget, refuseOverRefund } from "./target";

/** Days a claim link stays open unless the request says otherwise. */
export const DEFAULT_CLAIM_DAYS = 30;
/** The most days a claim link may stay open. */
export const MAX_CLAIM_DAYS = 365;
/**
 * For an amount fixed in fiat, what is held above the coin amount at the rate of creation, in
 * basis points (500 = 5%): room for the coin to fall until the payer claims, when the amount is
 * converted again at the live rate. The claim settles the hold exactly: what it did not need
 * goes back; a fall beyond the margin is debited from the balance at the claim (refused with
 * 42201 when the balance cannot cover it).
 */
export const FIAT_HOLD_MARGIN_BPS = 500n;

/** A refund claim link as made: the refund, and its secret URL part (shown once, never stored). */
export interface CreatedRefundClaim {
  refund: PayoutRecord;
  /** The link's secret: the claim URL is built from the refund's id and it. */
  secret: string;
}

/** The SHA-256 (hex) a claim secret is stored as. */
export function claimSecretHash(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** Whether `secret` is the one of this refund's claim link, compared in constant time. */
export function claimSecretMatches(refund: PayoutRecord, secret: string): boolean {
  if (!refund.claim) return false;
  const given = Buffer.from(claimSecretHash(secret), "hex");
  const stored = Buffer.from(refund.claim.tokenHash, "hex");
  return given.length === stored.length && timingSafeEqual(given, stored);
}

/** The coin amount a fiat amount comes to at `rate` (price of 1 coin in the fiat), rounded up: the payer never gets less than the fiat. */
export function fiatToCoin(fiatUnits: bigint, fiatDecimals: number, rate: bigint, coinDecimals: number): bigint {
  return mulDivUp(fiatUnits * pow10(coinDecimals), pow10(RATE_DECIMALS), pow10(fiatDecimals) * rate);
}

/**
 * Makes a refund without an address: a claim link. Its amount (for a fiat amount: converted at
 * today's rate plus FIAT_HOLD_MARGIN_BPS) and the highest fee of the networks offered are held
 * from the balance at once, in one transaction under the payment's lock that also checks what
 * is left to refund, so the link can always be paid out. The refund is stored AWAITING_CLAIM
 * (event `refund.created`); the payer claims it on the hosted page (`claimRefund`), or it is
 * cancelled (`cancelRefundClaim`) or lapses (`expireRefundClaims`), the hold going back.
 */
export async function createRefundClaim(
  context: CoreContext,
  scope: Scope,
  input: CreateRefundInput,
  onCommit?: CommitHook<PayoutRecord>,
): Promise<CreatedRefundClaim> {
  const target = await refundTarget(context, scope, input.paymentId, input.depositId ?? null);
  const { invoice, coin, depositId, what, decimals } = target;
  const wanted = [...new Set(input.claimNetworks ?? [input.network ?? target.network ?? ""])];
  const networks = wanted.map((name) => resolveNetwork(context, coin, name === "" ? null : name, scope.mode).network);
  for (const network of networks) context.chains.require(scope.mode, coin, network.network);
  // The hold covers the dearest network offered: the claim returns the difference.
  const feeOf = (network: (typeof networks)[number]) => network.withdrawFee + network.staticFixedFee;
  let fee = 0n;
  for (const network of networks) if (feeOf(network) > fee) fee = feeOf(network);
  const coins = otherCoins(context, scope.mode, coin, depositId, input.claimCoins ?? null);
  const days = input.expiresInDays ?? DEFAULT_CLAIM_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_CLAIM_DAYS) {
    throw new PaymentError("validation_error", `Invalid request: expiresInDays: must be a whole number from 1 to ${MAX_CLAIM_DAYS}.`);
  }
  const currency = input.currency ?? coin;
  let amount: bigint;
  let fiat: { amount: bigint; currency: string; rate: bigint } | null = null;
  if (currency !== coin) {
    if (!context.currencies.fiatSymbols().includes(currency)) {
      throw new PaymentError(
        "unsupported_currency",
        `currency must be ${coin} (the coin refunded) or a fiat currency (${context.currencies.fiatSymbols().join(", ")}).`,
      );
    }
    if (input.amount === null) throw new PaymentError("validation_error", "Invalid request: amount: required with a fiat currency.");
    const fiatUnits = parseAmountIn(context, input.amount, currency);
    if (fiatUnits <= 0n) throw new PaymentError("validation_error", "Invalid request: amount: must be greater than 0.");
    const rate = await quoteRate(context, coin, currency);
    const atRate = fiatToCoin(fiatUnits, context.currencies.decimalsOf(currency)!, rate, decimals);
    amount = mulDivUp(atRate, 10_000n + FIAT_HOLD_MARGIN_BPS, 10_000n);
    fiat = { amount: fiatUnits, currency, rate };
  } else if (input.amount === null) {
    amount = await target.left(context.storage, fee);
    if (amount <= 0n) throw new PaymentError("invalid_state", `${capitalise(what)} has nothing left to refund.`);
  } else {
    amount = parseAmountIn(context, input.amount, coin);
    if (amount <= 0n) throw new PaymentError("validation_error", "amount must be greater than 0.");
  }
  for (const network of networks) {
    if (amount < network.withdrawMin) {
      throw new PaymentError(
        "amount_below_minimum",
        `The smallest ${coin} refund on ${network.network} is ${formatDecimal(network.withdrawMin, decimals)}: every network offered must accept the amount.`,
      );
    }
  }
  const secret = randomBytes(32).toString("base64url");
  const now = context.now();
  const refund: PayoutRecord = {
    id: newId("po"),
    merchantId: scope.merchantId,
    mode: scope.mode,
    status: "AWAITING_CLAIM",
    coin,
    network: networks[0]!.network,
    address: "",
    amount,
    fee,
    refundOf: invoice.id,
    refundDepositId: depositId,
    txHash: null,
    failureReason: null,
    requestedBy: null,
    reviewedBy: null,
    pendingReason: null,
    claim: {
      tokenHash: claimSecretHash(secret),
      expiresAt: now + days * 86_400_000,
      networks: networks.map((network) => network.network),
      coins,
      origin: null,
      fiat,
      held: amount + fee,
      claimedAt: null,
    },
    createdAt: now,
    updatedAt: now,
  };
  await withOutbox(context, async (tx) => {
    await tx.lockInvoice(invoice.id);
    await refuseOverRefund(tx, target, amount, fee, null, input.amount === null);
    await holdOrRefuse(context, tx, scope, refund);
    await tx.insertPayout(refund);
    await recordEvents(context, tx, [refundClaimEvent(context, refund, "created")]);
    await onCommit?.(tx, refund);
  });
  return { refund, secret };
}

/**
 * The other coins a claim link offers (`claimCoins`), checked: each a coin the service has, not
 * the refund's own (its networks are `claimChains`), with networks of it that have a chain
 * adapter in this mode. A refund of one stray deposit stays in that deposit's coin.
 */
function otherCoins(context: CoreContext, mode: Mode, coin: string, depositId: string | null, wanted: Record<string, string[]> | null): ClaimCoin[] {
  if (wanted === null) return [];
  if (depositId !== null) throw new PaymentError("validation_error", "Invalid request: claimCoins: a refund of one deposit is paid in that deposit's coin.");
  return Object.entries(wanted).map(([symbol, names]) => {
    const other = symbol.toUpperCase();
    if (other === coin)
      throw new PaymentError("validation_error", `Invalid request: claimCoins: ${coin} is the refund's own coin: name its networks in claimChains.`);
    if (context.currencies.decimalsOf(other) === undefined || context.currencies.fiatSymbols().includes(other)) {
      throw new PaymentError("validation_error", `Invalid request: claimCoins: ${other} is not a coin this service pays out.`);
    }
    const networks = [...new Set(names)].map((name) => resolveNetwork(context, other, name, mode).network);
    for (const network of networks) context.chains.require(mode, other, network.network);
    return { coin: other, networks: networks.map((network) => network.network) };
  });
}

/** Debits a claim link's hold (amount + fee) under the payout's cause key, or refuses with 42201 (42202 in deficit). */
async function holdOrRefuse(context: CoreContext, tx: StorageTransaction, scope: Scope, refund: PayoutRecord): Promise<void> {
  const held = refund.amount + refund.fee;
  const posted = await tx.postLedgerEntries([
    {
      id: newId("led"),
      merchantId: scope.merchantId,
      mode: scope.mode,
      asset: refund.coin,
      amount: -held,
      kind: "payout",
      causeKey: `payout:${refund.id}`,
      createdAt: refund.createdAt,
    },
  ]);
  if (posted.status === "insufficient") {
    await refuseIfInDeficit(context, tx, scope, refund.coin);
    const decimals = context.currencies.decimalsOf(refund.coin) ?? 0;
    throw new PaymentError(
      "insufficient_balance",
      `The ${refund.coin} balance does not cover the claim link's hold of ${formatDecimal(held, decimals)} (amount plus ${formatDecimal(refund.fee, decimals)} network fee).`,
    );
  }
}

/**
 * The refusal of a move on a claim link that is no longer awaiting its claim: 409 `refund_claimed`
 * once claimed, 409 `refund_claim_closed` when cancelled, expired, or not a claim link at all.
 */
export function notAwaitingClaim(refund: PayoutRecord, move: string): PaymentError {
  if (refund.claim === null)
    return new PaymentError("refund_claim_closed", `Refund ${refund.id} was sent to an address, not made as a claim link: it cannot be ${move}.`);
  if (refund.status === "CANCELLED" || refund.status === "EXPIRED") {
    return new PaymentError(
      "refund_claim_closed",
      `Refund ${refund.id} is ${refund.status}: its claim link is closed and its hold was returned; it cannot be ${move}.`,
    );
  }
  return new PaymentError("refund_claimed", `Refund ${refund.id} was claimed already (now ${refund.status}): it cannot be ${move}.`);
}

/** Ends an unclaimed link (CANCELLED or EXPIRED) in a transaction holding its lock: the whole hold goes back, with its event. */
async function closeClaim(context: CoreContext, tx: StorageTransaction, current: PayoutRecord, status: "CANCELLED" | "EXPIRED"): Promise<PayoutRecord> {
  const now = context.now();
  // The payout's own reversal key: the hold goes back at most once, whichever path gets there.
  await tx.postLedgerEntries([payoutDebitReturn(current, now)]);
  const closed: PayoutRecord = { ...current, status, updatedAt: now };
  await tx.updatePayout(closed);
  await recordEvents(context, tx, [refundClaimEvent(context, closed, status === "CANCELLED" ? "cancelled" : "expired")]);
  return closed;
}

/** Cancels a refund claim link not yet claimed: CANCELLED, the whole hold credited back (`refund.cancelled`); 409 once claimed. */
export async function cancelRefundClaim(context: CoreContext, scope: Scope, id: string): Promise<PayoutRecord> {
  const found = await context.storage.getPayout(scope, id);
  if (!found || found.refundOf === null) throw notFound("refund", id);
  return withOutbox(context, async (tx) => {
    const current = (await tx.lockPayout(id))!;
    if (current.status !== "AWAITING_CLAIM") throw notAwaitingClaim(current, "cancelled");
    return closeClaim(context, tx, current, "CANCELLED");
  });
}

/**
 * Background round: every claim link of `mode` past its expiry becomes EXPIRED, its hold
 * credited back (`refund.expired`). Each is moved under its lock after checking it is still
 * unclaimed, so a claim at the same moment wins or loses whole. Returns how many lapsed.
 */
export async function expireRefundClaims(context: CoreContext, mode: Mode, pageSize = 200): Promise<number> {
  let expired = 0;
  let after: string | null = null;
  for (;;) {
    const page = await context.storage.listPayoutsByStatus(mode, "AWAITING_CLAIM", pageSize, after);
    for (const candidate of page) {
      if (candidate.claim === null || candidate.claim.expiresAt > context.now()) continue;
      const moved = await withOutbox(context, async (tx) => {
        const current = await tx.lockPayout(candidate.id);
        if (current?.status !== "AWAITING_CLAIM" || current.claim === null || current.claim.expiresAt > context.now()) return false;
        await closeClaim(context, tx, current, "EXPIRED");
        return true;
      });
      if (moved) expired++;
    }
    if (page.length < pageSize) break;
    after = page.at(-1)!.id;
  }
  return expired;
}

/** Sandbox: ends a claim link's window now, as if its `expiresInDays` had passed (EXPIRED, hold credited back); 409 once claimed or closed. */
export async function forceExpireRefundClaim(context: CoreContext, scope: Scope, id: string): Promise<PayoutRecord> {
  const found = await context.storage.getPayout(scope, id);
  if (!found || found.refundOf === null) throw notFound("refund", id);
  return withOutbox(context, async (tx) => {
    const current = (await tx.lockPayout(id))!;
    if (current.status !== "AWAITING_CLAIM") throw notAwaitingClaim(current, "expired");
    return closeClaim(context, tx, { ...current, claim: { ...current.claim!, expiresAt: context.now() } }, "EXPIRED");
  });
}
