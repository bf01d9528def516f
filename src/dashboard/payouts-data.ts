import type { MerchantRecord, Mode, PayoutRecord } from "../core/ports/records";
import { refundView, withdrawalView, type RefundView, type WithdrawalView } from "../core/views/funds";
import type { DashboardDeps } from "./data";
import { MODES } from "./data";
import type { DashboardUser } from "./options";

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

/** Most held payouts per mode the approval queue of every merchant lists. */
export const ALL_QUEUE_LIMIT = 100;

/** A held payout in the queue of every merchant: its row and its merchant. */
export interface HeldRow extends PayoutRow {
  merchant: { id: string; name: string };
}

/**
 * The payouts (withdrawals and refunds) AWAITING_APPROVAL of every merchant `user` may see,
 * both modes, the longest waiting first. A user who may see every merchant reads the held
 * payouts of each mode at once (up to {@link ALL_QUEUE_LIMIT} per mode); a user with a list
 * reads the queue of each of their merchants. `more` when a list was cut.
 */
export async function approvalQueueOfAll(deps: DashboardDeps, user: DashboardUser): Promise<{ rows: HeldRow[]; more: boolean }> {
  const { storage } = deps.context;
  const names = new Map<string, string>();
  let payouts: PayoutRecord[];
  let more: boolean;
  if (user.merchants === "all") {
    const lists = await Promise.all(MODES.map((mode) => storage.listPayoutsByStatus(mode, "AWAITING_APPROVAL", ALL_QUEUE_LIMIT + 1)));
    more = lists.some((list) => list.length > ALL_QUEUE_LIMIT);
    payouts = lists.flatMap((list) => list.slice(0, ALL_QUEUE_LIMIT));
  } else {
    const merchants = (await Promise.all(user.merchants.map((id) => storage.getMerchant(id)))).filter((merchant) => merchant !== null);
    for (const merchant of merchants) names.set(merchant.id, merchant.name);
    const lists = await Promise.all(
      merchants.flatMap((merchant) =>
        MODES.flatMap((mode) =>
          (["payout", "refund"] as const).map((kind) =>
            storage.listPayouts({ merchantId: merchant.id, mode }, { kind, status: "AWAITING_APPROVAL" }, { limit: QUEUE_LIMIT + 1 }),
          ),
        ),
      ),
    );
    more = lists.some((list) => list.length > QUEUE_LIMIT);
    payouts = lists.flatMap((list) => list.slice(0, QUEUE_LIMIT));
  }
  for (const id of new Set(payouts.map((payout) => payout.merchantId))) {
    if (!names.has(id)) names.set(id, (await storage.getMerchant(id))?.name ?? id);
  }
  const rows = payouts
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
    .map((payout) => ({ ...payoutRow(deps, payout), merchant: { id: payout.merchantId, name: names.get(payout.merchantId)! } }));
  return { rows, more };
}
