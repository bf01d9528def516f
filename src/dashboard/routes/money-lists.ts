import type { Router } from "express";
import type { ConversionView, RefundView } from "../../core/views/funds";
import { asyncHandler } from "../../express/async-handler";
import type { DashboardKit } from "../kit";
import { readModeList } from "../mode-lists";
import { conversionsBody, refundsBody } from "../pages/money-lists";

/** The refunds and the conversions of both modes: read-only lists (a held refund is decided on its payout page). */
export function moneyListRoutes(router: Router, kit: DashboardKit): void {
  router.get(
    "/m/:merchantId/refunds",
    asyncHandler(async (req, res) => {
      const base = kit.merchantBase(req);
      const paymentId = kit.text(req, "paymentId")?.trim() || undefined;
      const list = await readModeList<RefundView>(kit, req, (api, query) => api.refunds.list(query), { paymentId }, `${base}/refunds`);
      if (!list.ok) return kit.problem(req, res, list.status, list.notice.text, "refunds");
      await kit.send(req, res, 200, { title: "Refunds", body: refundsBody({ base, ...list.page, paymentId }), section: "refunds" });
    }),
  );

  router.get(
    "/m/:merchantId/conversions",
    asyncHandler(async (req, res) => {
      const base = kit.merchantBase(req);
      const list = await readModeList<ConversionView>(kit, req, (api, query) => api.conversions.list(query), {}, `${base}/conversions`);
      if (!list.ok) return kit.problem(req, res, list.status, list.notice.text, "conversions");
      await kit.send(req, res, 200, { title: "Conversions", body: conversionsBody({ base, ...list.page }), section: "conversions" });
    }),
  );
}
