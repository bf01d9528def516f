import type { MerchantRecord, Mode, PayoutRecord } from "../core/ports/records";
import { refundView, withdrawalView, type RefundView, type WithdrawalView } from "../core/views/funds";
import type { DashboardDeps } from "./data";
import { MODES } from "./data";

/** A payout as the dashboard shows it: the /v1 view, with who asked for it and who decided. */
export interface PayoutRow {
  mode: Mode;
  kind: "withdrawal" | "refund";
  view: WithdrawalView | RefundView;
  /** For a refund, the payment it gives money back for. */
  paymentId: string | null;
  requestedBy: string | null;
  reviewedBy: string | null;
}

/** Most held payouts of one kind and mode the queue lists; past that the page says there are more. */
export const QUEUE_LIMIT = 50;

/** How a stored payout is shown: its /v1 view (withdrawal or refund) and the names the views leave out. */
export function payoutRow(deps: DashboardDeps, payout: PayoutRecord): PayoutRow {
  const refund = payout.refundOf !== null;
  return {
    mode: payout.mode,
    kind: refund ? "refund" : "withdrawal",
    view: refund ? refundView(payout, deps.context.currencies) : withdrawalView(payout, deps.context.currencies),
    paymentId: payout.refundOf,
    requestedBy: payout.requestedBy,
    reviewedBy: payout.reviewedBy,
  };
}

/**
 * The payout (withdrawal or refund) with this id in either mode of the merchant, or null: read
 * within the merchant's scope, so another merchant's payout is not found, as a missing one.
 */
export async function findPayout(deps: DashboardDeps, merchant: MerchantRecord, id: string): Promise<PayoutRecord | null> {
  for (const mode of MODES) {
    const payout = await deps.context.storage.getPayout({ merchantId: merchant.id, mode }, id);
    if (payout) return payout;
  }
  return null;
}

/**
 * The approval queue of one merchant: its withdrawals and refunds AWAITING_APPROVAL in both
 * modes, newest first, at most {@link QUEUE_LIMIT} of each kind and mode; `more` when one of
 * those lists had more. Refunds are held like withdrawals (a refund is money leaving to an
 * address), and the /v1 refund list has no status filter, so both are read as the /v1 lists
 * read them.
 */
export async function approvalQueue(deps: DashboardDeps, merchant: MerchantRecord): Promise<{ rows: PayoutRow[]; more: boolean }> {
  const lists = await Promise.all(
    MODES.flatMap((mode) =>
      (["payout", "refund"] as const).map((kind) =>
        deps.context.storage.listPayouts({ merchantId: merchant.id, mode }, { kind, status: "AWAITING_APPROVAL" }, { limit: QUEUE_LIMIT + 1 }),
      ),
    ),
  );
  const more = lists.some((list) => list.length > QUEUE_LIMIT);
  const rows = lists
    .flatMap((list) => list.slice(0, QUEUE_LIMIT))
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
    .map((payout) => payoutRow(deps, payout));
  return { rows, more };
}
