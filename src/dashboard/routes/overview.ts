import type { Router } from "express";
import { asyncHandler } from "../../express/async-handler";
import { listPayments, MODES } from "../data";
import type { DashboardKit } from "../kit";
import { overviewBody, type BalanceRow } from "../pages/overview";
import { approvalQueue } from "../payouts-data";

/** The merchant's front page: balances, what needs attention, the latest payments. */
export function overviewRoutes(router: Router, kit: DashboardKit): void {
  const { deps } = kit;
  router.get(
    "/m/:merchantId",
    asyncHandler(async (req, res) => {
      const merchant = kit.merchant(req);
      const [balances, recent, endpoints, reports, health, held] = await Promise.all([
        Promise.all(MODES.map(async (mode) => ({ mode, rows: ((await deps.v1(merchant, mode, "GET", "/balances", {})) as { data: BalanceRow[] }).data }))),
        listPayments(deps, merchant, {}, undefined, 10),
        Promise.all(
          MODES.map(async (mode) =>
            (
              (await deps.v1(merchant, mode, "GET", "/webhook-endpoints", {})) as {
                data: Array<{ id: string; url: string; status: string; disabledReason: string | null }>;
              }
            ).data
              .filter((endpoint) => endpoint.status !== "enabled")
              .map((endpoint) => ({ mode, id: endpoint.id, url: endpoint.url, reason: endpoint.disabledReason })),
          ),
        ),
        Promise.all(MODES.map((mode) => deps.operatorReport({ mode }))),
        deps.health().catch(() => null),
        approvalQueue(deps, merchant),
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
