import { notFound, PaymentError } from "../../errors";
import { AmountFormatError, formatDecimal, parseDecimal, RATE_DECIMALS } from "../../money";
import type { CoreContext } from "../context";
import { payoutEvent } from "../webhooks/events";
import { recordEvents, withOutbox } from "../webhooks/outbox";
import { payoutDebitReturn } from "./ledger";
import { auditEntry } from "../audit/audit-log";
import { quoteRate } from "../rates";
import type { MerchantRecord, PayoutApprovalRule } from "../merchants/records";
import type { PayoutRecord } from "./records";
import type { StorageTransaction } from "../ports/storage/index";

/**
 * Payout approval: a payout (withdrawal or refund) above a threshold is debited as any other,
 * but held AWAITING_APPROVAL, never sent, until someone other than the one who asked approves
 * it; a rejection credits the held debit back. The threshold is the merchant's own, else the
 * router's `payouts.approval`.
 */

/** Checks a threshold as given by the host: a non-negative decimal string in a known currency. A TypeError names what is wrong. */
export function checkApprovalRule(context: CoreContext, rule: unknown, where: string): PayoutApprovalRule {
  if (typeof rule !== "object" || rule === null) throw new TypeError(`${where} must be { above, currency }`);
  const { above, currency } = rule as Record<string, unknown>;
  if (typeof currency !== "string" || context.currencies.decimalsOf(currency) === undefined) {
    throw new TypeError(`${where}.currency must be a supported coin or fiat currency, not ${JSON.stringify(currency)}`);
  }
  if (typeof above !== "string") throw new TypeError(`${where}.above must be a decimal string such as "1000"`);
  try {
    parseDecimal(above, context.currencies.decimalsOf(currency)!);
  } catch (error) {
    if (!(error instanceof AmountFormatError)) throw error;
    throw new TypeError(
      `${where}.above must be a decimal string with at most ${context.currencies.decimalsOf(currency)} decimals for ${currency}, not "${above}"`,
    );
  }
  return { above, currency };
}

/** The threshold that applies to a merchant's payouts: its own, else the router's; null when payouts need no approval. */
export function approvalRuleOf(context: CoreContext, merchant: MerchantRecord | null): PayoutApprovalRule | null {
  return merchant?.payoutApproval ?? context.payoutApproval ?? null;
}

/**
 * Whether a payout of `amount` units of `coin` must wait for approval under `rule`: its amount
 * (fees left out: what leaves for the address) is above the threshold. A threshold in another
 * currency converts the amount at the current price; when no price can be had the payout is
 * held (a price outage must never let a large payout through unseen).
 */
export async function needsApproval(context: CoreContext, rule: PayoutApprovalRule | null, coin: string, amount: bigint): Promise<boolean> {
  if (!rule) return false;
  const ruleDecimals = context.currencies.decimalsOf(rule.currency);
  const coinDecimals = context.currencies.decimalsOf(coin);
  // A threshold whose currency was dropped from the list since holds everything: fail safe.
  if (ruleDecimals === undefined || coinDecimals === undefined) return true;
  const above = parseDecimal(rule.above, ruleDecimals);
  if (rule.currency === coin) return amount > above;
  let rate: bigint;
  try {
    rate = await quoteRate(context, coin, rule.currency);
  } catch (error) {
    context.logger.warn(`no ${coin}/${rule.currency} price to compare a payout with its approval threshold; the payout is held for approval`, error);
    return true;
  }
  // amount / 10^coinDecimals * rate / 10^RATE_DECIMALS > above / 10^ruleDecimals, in integers.
  return amount * rate * 10n ** BigInt(ruleDecimals) > above * 10n ** BigInt(RATE_DECIMALS + coinDecimals);
}

/** Who decides on a held payout, and why (a rejection's reason). */
export interface PayoutReview {
  /** The approver's identity: a user id or an API key id; must differ from the payout's `requestedBy`. */
  by: string;
  reason?: string;
}

/**
 * Approves a payout held for approval: it becomes PROCESSING (its `payout.processing` or
 * `refund.processing` event is sent) and the background payout round sends it. Refused with
 * `approval_by_requester` (403) when `by` is who asked for it (`requestedBy`), and `invalid_state` (409) when it
 * is not awaiting approval (approved or rejected already: two decisions racing settle once,
 * under the payout's lock). The audit log records it in the same transaction.
 */
export async function approvePayout(context: CoreContext, id: string, review: PayoutReview): Promise<PayoutRecord> {
  const by = checkReviewer(review);
  return withOutbox(context, async (tx) => {
    const current = await lockHeld(tx, id, by, true);
    const approved: PayoutRecord = { ...current, status: "PROCESSING", reviewedBy: by, updatedAt: context.now() };
    await tx.updatePayout(approved);
    await recordEvents(context, tx, [payoutEvent(context, approved, "processing")]);
    await tx.insertAuditEntry(auditEntry(context, { actor: by, action: "payout.approved", recordId: id, merchantId: current.merchantId, mode: current.mode }));
    return approved;
  });
}

/**
 * Rejects a payout held for approval: it becomes REJECTED with `reason` as its failureReason,
 * and exactly its held debit (amount and fee) is credited back, once. The requester may reject
 * (withdraw) their own payout; `invalid_state` (409) when it is not awaiting approval. The audit log records it in the same transaction.
 */
export async function rejectPayout(context: CoreContext, id: string, review: PayoutReview): Promise<PayoutRecord> {
  const by = checkReviewer(review);
  if (review.reason !== undefined && typeof review.reason !== "string") throw new TypeError("rejectPayout: reason must be a string");
  const rejected = await withOutbox(context, async (tx) => {
    const current = await lockHeld(tx, id, by, false);
    const now = context.now();
    await tx.postLedgerEntries([payoutDebitReturn(current, now)]);
    const payout: PayoutRecord = { ...current, status: "REJECTED", reviewedBy: by, failureReason: review.reason?.trim() || "rejected", updatedAt: now };
    await tx.updatePayout(payout);
    await recordEvents(context, tx, [payoutEvent(context, payout, "rejected")]);
    await tx.insertAuditEntry(auditEntry(context, { actor: by, action: "payout.rejected", recordId: id, merchantId: current.merchantId, mode: current.mode }));
    return payout;
  });
  const decimals = context.currencies.decimalsOf(rejected.coin) ?? 0;
  context.logger.info?.(`payout ${rejected.id} rejected: ${formatDecimal(rejected.amount + rejected.fee, decimals)} ${rejected.coin} returned to the balance`, {
    event: rejected.refundOf === null ? "payout.rejected" : "refund.rejected",
    payoutId: rejected.id,
    merchantId: rejected.merchantId,
    mode: rejected.mode,
  });
  return rejected;
}

function checkReviewer(review: PayoutReview): string {
  if (typeof review?.by !== "string" || review.by.trim() === "") throw new TypeError("a payout review needs `by`: who approves or rejects it");
  return review.by;
}

/**
 * The payout locked, if it is held for approval and, for an approval, `by` did not ask for it
 * (the requester may withdraw their own payout by rejecting it: that only gives money back).
 */
async function lockHeld(tx: StorageTransaction, id: string, by: string, approving: boolean): Promise<PayoutRecord> {
  const current = await tx.lockPayout(id);
  if (!current) throw notFound("payout", id);
  if (current.status !== "AWAITING_APPROVAL") {
    throw new PaymentError("invalid_state", `Payout ${id} is not awaiting approval (it is ${current.status}).`);
  }
  if (approving && current.requestedBy !== null && current.requestedBy === by) {
    throw new PaymentError("approval_by_requester", `Payout ${id} was asked for by ${by}; someone else must approve or reject it.`);
  }
  return current;
}
