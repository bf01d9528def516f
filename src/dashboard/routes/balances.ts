import type { Router } from "express";
import type { LedgerLine } from "../../core/ledger/entries";
import { asyncHandler } from "../../express/async-handler";
import { mergeModes, MODES } from "../data";
import type { DashboardKit } from "../kit";
import { balancesBody } from "../pages/balances";

const PAGE_SIZE = 25;

/** Balances per coin and mode, and the ledger entries behind them, newest first. */
export function balanceRoutes(router: Router, kit: DashboardKit): void {
  const { backend } = kit;
  router.get(
    "/m/:merchantId/balances",
    asyncHandler(async (req, res) => {
      const merchant = kit.merchant(req);
      const asked = kit.text(req, "mode");
      const mode = asked === "live" || asked === "test" ? asked : undefined;
      const currency = kit.text(req, "currency")?.toUpperCase();
      const balances = await Promise.all(
        MODES.map(async (each) => ({ mode: each, rows: (await backend.forMerchant(merchant.id, each).balances.retrieve()).data })),
      );
      // Read through core in this merchant's scope only: no id in the query can reach another merchant's ledger.
      const page = await mergeModes<LedgerLine>(mode, kit.text(req, "cursor"), PAGE_SIZE, (each, after) =>
        backend.admin.listLedgerEntries(merchant.id, each, { after, limit: PAGE_SIZE, currency }),
      );
      const base = kit.merchantBase(req);
      const nextQuery = new URLSearchParams({ ...(mode ? { mode } : {}), ...(currency ? { currency } : {}) });
      if (page.next) nextQuery.set("cursor", page.next);
      const body = balancesBody({ base, balances, entries: page.rows, mode, currency, nextHref: page.next ? `${base}/balances?${nextQuery}` : null });
      await kit.send(req, res, 200, { title: "Balances and ledger", body, section: "balances" });
    }),
  );
}
