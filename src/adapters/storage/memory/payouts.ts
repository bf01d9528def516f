import type { PayoutRecord } from "../../../core/payouts/records";
import type { PayoutFilter, PayoutReads, PayoutStore } from "../../../core/ports/storage/index";
import { copyPayout } from "./copy";
import { compareCreated, page, pick, scoped } from "./query";
import { conflict, missing, type Run, scopeKey, setIn, type Tables, type Undo, type Writes } from "./tables";

function matchesPayout(payout: PayoutRecord, filter: PayoutFilter): boolean {
  return (
    (filter.kind === "refund" ? payout.refundOf !== null : payout.refundOf === null) &&
    (filter.refundOf === undefined || payout.refundOf === filter.refundOf) &&
    (filter.status === undefined || payout.status === filter.status)
  );
}

/** Payouts and refunds: reads. */
export function payoutReads(t: Tables, run: Run): PayoutReads {
  return {
    getPayout: (scope, id) => run("getPayout", () => scoped(t.payouts.get(id), scope, copyPayout)),
    listPayouts: (scope, filter, query) =>
      run("listPayouts", () => page(t.payoutOrder, t.payouts, scope, query, (payout) => (matchesPayout(payout, filter) ? copyPayout(payout) : null))),
    listPayoutsByStatus: (mode, status, limit, after) =>
      run("listPayoutsByStatus", () => {
        const last = after ? t.payouts.get(after) : undefined;
        return [...t.payouts.values()]
          .filter((payout) => payout.mode === mode && payout.status === status && (!last || compareCreated(payout, last) > 0))
          .sort(compareCreated)
          .slice(0, Math.max(0, limit))
          .map(copyPayout);
      }),
    listRefunds: (invoiceId) =>
      run("listRefunds", () =>
        [...t.payouts.values()]
          .filter((payout) => payout.refundOf === invoiceId)
          .sort(compareCreated)
          .map(copyPayout),
      ),
  };
}

/** Payouts and refunds: writes. */
export function payoutWrites(t: Tables, run: Run, undo: Undo[]): Writes<PayoutStore, PayoutReads> {
  return {
    insertPayout: (payout) =>
      run("insertPayout", () => {
        if (t.payouts.has(payout.id)) conflict(`payout ${payout.id}`);
        setIn(t.payouts, payout.id, copyPayout(payout), undo);
        undo.push(t.payoutOrder.add(scopeKey(payout.merchantId, payout.mode), payout));
      }),
    lockPayout: (id) => run("lockPayout", () => pick(t.payouts.get(id), copyPayout)),
    updatePayout: (payout) =>
      run("updatePayout", () => {
        if (!t.payouts.has(payout.id)) missing(`payout ${payout.id}`);
        setIn(t.payouts, payout.id, copyPayout(payout), undo);
      }),
  };
}
