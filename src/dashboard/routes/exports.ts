import type { Request, Response, Router } from "express";
import type { CsvExport } from "../../core/exports/csv-export";
import type { ExportRequest } from "../../core/exports/request";
import { asyncHandler } from "../../express/async-handler";
import { sendExport } from "../../express/send-export";
import type { DashboardKit } from "../kit";
import { exportsBody, type ExportForm } from "../pages/exports";

/** The exports form, and its download: one kind of this merchant's records as CSV. */
export function exportRoutes(router: Router, kit: DashboardKit): void {
  const { backend } = kit;

  const formOf = (req: Request): ExportForm => {
    const today = new Date(backend.now()).toISOString().slice(0, 10);
    return {
      kind: kit.text(req, "kind") ?? "payments",
      from: kit.text(req, "from") ?? `${today.slice(0, 8)}01`,
      to: kit.text(req, "to") ?? today,
      mode: kit.text(req, "mode") ?? "",
    };
  };
  const showForm = (req: Request, res: Response, status: number, problem: string | null) =>
    kit.send(req, res, status, { title: "Exports", body: exportsBody({ base: kit.merchantBase(req), form: formOf(req), problem }), section: "exports" });

  router.get(
    "/m/:merchantId/exports",
    asyncHandler((req, res) => showForm(req, res, 200, null)),
  );

  // A GET: a download changes nothing, so viewers may take one too. The merchant is the one of
  // the URL, which the shell checked; nothing in the query can name another.
  router.get(
    "/m/:merchantId/exports/csv",
    asyncHandler(async (req, res) => {
      const merchant = kit.merchant(req);
      const mode = kit.text(req, "mode");
      let csv: CsvExport;
      try {
        // The query as it came: the export checks every field and throws a TypeError for a bad one.
        const request = {
          kind: kit.text(req, "kind"),
          from: kit.text(req, "from"),
          to: kit.text(req, "to"),
          merchantId: merchant.id,
          ...(mode ? { mode } : {}),
        };
        csv = backend.admin.export(request as ExportRequest);
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
        return showForm(req, res, 400, `No file: ${error.message.replace(/^export: /, "")}.`);
      }
      try {
        await sendExport(res, csv);
      } catch (error) {
        // Once the download began, sendExport cut it (the client sees an incomplete file); there is no page to answer with.
        if (!res.headersSent) throw error;
        backend.logger.error(`dashboard: export of ${csv.kind} for merchant ${merchant.id} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }),
  );
}
