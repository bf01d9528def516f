import type { Router } from "express";
import { asyncHandler } from "../../express/async-handler";
import { listPayments, MODES } from "../data";
import type { DashboardKit } from "../kit";
import { overviewBody } from "../pages/overview";
import { approvalQueue } from "../payouts-data";

/** The merchant's front page: balances, what needs attention, the latest payments. */
export function overviewRoutes(router: Router, kit: DashboardKit): void {
  const { backend } = kit;
  router.get(
    "/m/:merchantId",
    asyncHandler(async (req, res) => {
      const merchant = kit.merchant(req);
      const [balances, recent, endpoints, reports, health, held] = await Promise.all([
        Promise.all(MODES.map(async (mode) => ({ mode, rows: (await backend.forMerchant(merchant.id, mode).balances.retrieve()).data }))),
        listPayments(backend, merchant, {}, undefined, 10),
        Promise.all(
          MODES.map(async (mode) =>
            (await backend.forMerchant(merchant.id, mode).webhookEndpoints.list()).data
              .filter((endpoint) => endpoint.status !== "enabled")
              .map((endpoint) => ({ mode, id: endpoint.id, url: endpoint.url, reason: endpoint.disabledReason })),
          ),
        ),
        Promise.all(MODES.map((mode) => backend.admin.operatorReport({ mode }))),
        backend.health().catch(() => null),
        approvalQueue(backend, merchant.id),
      ]);
      // The operator report spans every merchant: keep this merchant's entries only.
      const own = reports.map((report) => ({
        ...report,
        reversedDeposits: report.reversedDeposits.filter((deposit) => deposit.merchantId === merchant.id),
        strayDeposits: report.strayDeposits.filter((deposit) => deposit.merchantId === merchant.id),
      }));
      const body = overviewBody({ base: kit.merchantBase(req), balances, recent: recent.rows, failingEndpoints: endpoints.flat(), reports: own, health, held });
      await kit.send(req, res, 200, { title: "Overview", body, section: "overview" });
    }),
  );
}
