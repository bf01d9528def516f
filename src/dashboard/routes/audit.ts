import type { Router } from "express";
import { listAuditLog } from "../../core/audit-log";
import { payoutRef } from "../../core/ledger-entries";
import { asyncHandler } from "../../express/async-handler";
import type { DashboardKit } from "../kit";
import { auditBody } from "../pages/audit";

const PAGE_SIZE = 25;

/** The merchant's audit log, read-only (viewers see it too). */
export function auditRoutes(router: Router, kit: DashboardKit): void {
  const { context } = kit.deps;
  router.get(
    "/m/:merchantId/audit",
    asyncHandler(async (req, res) => {
      const merchant = kit.merchant(req);
      // This merchant's entries only, whatever the cursor names: a cursor only says where to start.
      const page = await listAuditLog(context, { merchantId: merchant.id, limit: PAGE_SIZE, cursor: kit.text(req, "cursor") ?? null });
      const entries = await Promise.all(
        page.entries.map(async (entry) => ({
          ...entry,
          record:
            entry.action.startsWith("payout.") && entry.mode ? await payoutRef(context, { merchantId: merchant.id, mode: entry.mode }, entry.recordId) : null,
        })),
      );
      const base = kit.merchantBase(req);
      const nextHref = page.nextCursor ? `${base}/audit?${new URLSearchParams({ cursor: page.nextCursor })}` : null;
      await kit.send(req, res, 200, { title: "Audit log", body: auditBody({ base, entries, nextHref }), section: "audit" });
    }),
  );
}
