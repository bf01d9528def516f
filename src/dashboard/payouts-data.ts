import type { Mode } from "../core/merchants/records";
import type { PayoutRecord } from "../core/payouts/records";
import { refundView, withdrawalView, type RefundView, type WithdrawalView } from "../core/views/funds";
import type { DashboardBackend } from "../service/dashboard-backend";
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
export function payoutRow(backend: DashboardBackend, payout: PayoutRecord): PayoutRow {
  const refund = payout.refundOf !== null;
  return {
    mode: payout.mode,
    kind: refund ? "refund" : "withdrawal",
    view: refund ? refundView(payout, backend.currencies) : withdrawalView(payout, backend.currencies),
    paymentId: payout.refundOf,
    requestedBy: payout.requestedBy,
    reviewedBy: payout.reviewedBy,
  };
}

/**
 * The approval queue of one merchant: its withdrawals and refunds AWAITING_APPROVAL in both
 * modes, newest first, at most {@link QUEUE_LIMIT} of each kind and mode; `more` when one of
 * those lists had more. Refunds are held like withdrawals (a refund is money leaving to an
 * address), and the /v1 refund list has no status filter, so the admin's lookup reads them.
 */
export async function approvalQueue(backend: DashboardBackend, merchantId: string): Promise<{ rows: PayoutRow[]; more: boolean }> {
  const held = await backend.admin.listHeldPayouts(merchantId, { limit: QUEUE_LIMIT });
  return { rows: held.payouts.map((payout) => payoutRow(backend, payout)), more: held.more };
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
export async function approvalQueueOfAll(backend: DashboardBackend, user: DashboardUser): Promise<{ rows: HeldRow[]; more: boolean }> {
  const { admin } = backend;
  const names = new Map<string, string>();
  let payouts: PayoutRecord[];
  let more: boolean;
  if (user.merchants === "all") {
    ({ payouts, more } = await admin.listAllHeldPayouts({ limit: ALL_QUEUE_LIMIT }));
  } else {
    const merchants = (await Promise.all(user.merchants.map((id) => admin.getMerchant(id)))).filter((merchant) => merchant !== null);
    for (const merchant of merchants) names.set(merchant.id, merchant.name);
    const queues = await Promise.all(merchants.map((merchant) => admin.listHeldPayouts(merchant.id, { limit: QUEUE_LIMIT })));
    more = queues.some((queue) => queue.more);
    payouts = queues.flatMap((queue) => queue.payouts);
  }
  for (const id of new Set(payouts.map((payout) => payout.merchantId))) {
    if (!names.has(id)) names.set(id, (await admin.getMerchant(id))?.name ?? id);
  }
  const rows = payouts
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
    .map((payout) => ({ ...payoutRow(backend, payout), merchant: { id: payout.merchantId, name: names.get(payout.merchantId)! } }));
  return { rows, more };
}
