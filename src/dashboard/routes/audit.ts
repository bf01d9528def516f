import type { Router } from "express";
import type { RecordRef } from "../../core/ledger/entries";
import type { Mode } from "../../core/merchants/records";
import { asyncHandler } from "../../express/async-handler";
import type { DashboardKit } from "../kit";
import { auditBody } from "../pages/audit";

const PAGE_SIZE = 25;

/** The merchant's audit log, read-only (viewers see it too). */
export function auditRoutes(router: Router, kit: DashboardKit): void {
  const { admin } = kit.backend;
  /** The payout an entry names, in the entry's mode of the merchant; null when it is not there. */
  const payoutRef = async (merchantId: string, mode: Mode, id: string): Promise<RecordRef | null> => {
    const payout = await admin.findPayout(merchantId, id);
    if (!payout || payout.mode !== mode) return null;
    return payout.refundOf === null ? { type: "payout", id } : { type: "refund", id, paymentId: payout.refundOf };
  };
  router.get(
    "/m/:merchantId/audit",
    asyncHandler(async (req, res) => {
      const merchant = kit.merchant(req);
      // This merchant's entries only, whatever the cursor names: a cursor only says where to start.
      const page = await admin.listAuditLog({ merchantId: merchant.id, limit: PAGE_SIZE, cursor: kit.text(req, "cursor") ?? null });
      const entries = await Promise.all(
        page.entries.map(async (entry) => ({
          ...entry,
          record: entry.action.startsWith("payout.") && entry.mode ? await payoutRef(merchant.id, entry.mode, entry.recordId) : null,
        })),
      );
      const base = kit.merchantBase(req);
      const nextHref = page.nextCursor ? `${base}/audit?${new URLSearchParams({ cursor: page.nextCursor })}` : null;
      await kit.send(req, res, 200, { title: "Audit log", body: auditBody({ base, entries, nextHref }), section: "audit" });
    }),
  );
}
