import type { Router } from "express";
import { asyncHandler } from "../../express/async-handler";
import type { DashboardKit } from "../kit";
import { approvalsBody } from "../pages/approvals";
import { approvalQueueOfAll } from "../payouts-data";

/**
 * The approval queue across merchants, outside any one merchant's pages: what the signed-in user
 * may see only. It reads and links; approving and rejecting happen on the merchant's payout
 * page, under that merchant's checks.
 */
export function approvalRoutes(router: Router, kit: DashboardKit): void {
  router.get(
    "/approvals",
    asyncHandler(async (req, res) => {
      const queue = await approvalQueueOfAll(kit.backend, kit.user(req));
      await kit.send(req, res, 200, { title: "Approval queue", body: approvalsBody(req.baseUrl, queue.rows, queue.more) });
    }),
  );
}
