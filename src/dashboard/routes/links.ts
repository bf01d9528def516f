import type { Request, Response, Router } from "express";
import { asyncHandler } from "../../express/async-handler";
import { MODES } from "../data";
import type { DashboardKit, Notice } from "../kit";
import { readModeList } from "../mode-lists";
import { linksBody, type LinkRow } from "../pages/links";

/** The payment links of both modes; admins deactivate one. */
export function linkRoutes(router: Router, kit: DashboardKit): void {
  const { backend } = kit;

  const showLinks = async (req: Request, res: Response, status: number, message: Notice | null) => {
    const base = kit.merchantBase(req);
    const list = await readModeList<LinkRow>(kit, req, (api, query) => api.paymentLinks.list(query), {}, `${base}/links`);
    if (!list.ok) return kit.problem(req, res, list.status, list.notice.text, "links");
    await kit.send(req, res, status, { title: "Payment links", body: linksBody({ base, ...list.page, csrf: kit.formToken(req), message }), section: "links" });
  };

  router.get(
    "/m/:merchantId/links",
    asyncHandler((req, res) => showLinks(req, res, 200, null)),
  );

  router.post(
    "/m/:merchantId/links/:linkId/deactivate",
    asyncHandler(async (req, res) => {
      const merchant = kit.merchant(req);
      const id = String(req.params.linkId);
      // The link's mode is the one whose scope finds it; another merchant's id is found in neither.
      for (const mode of MODES) {
        const links = backend.forMerchant(merchant.id, mode).paymentLinks;
        const found = await kit.attempt(() => links.retrieve(id));
        if (!found.ok) continue;
        const done = await kit.attempt(() => links.deactivate(id));
        return showLinks(
          req,
          res,
          done.ok ? 200 : done.status,
          done.ok ? { tone: "ok", text: `Link ${String(req.params.linkId)} deactivated: its page no longer creates payments.` } : done.notice,
        );
      }
      await kit.notFound(req, res, "links");
    }),
  );
}
