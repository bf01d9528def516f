import type { Request, Response, Router } from "express";
import { asyncHandler } from "../../http/async-handler";
import { mergeModes, MODES } from "../data";
import type { DashboardKit, Notice } from "../kit";
import { webhooksBody, type DeliveryRow, type EndpointRow } from "../pages/webhooks";

const PAGE_SIZE = 25;

/** The webhook endpoints of both modes and their deliveries; admins redeliver. */
export function webhookRoutes(router: Router, kit: DashboardKit): void {
  const { deps } = kit;

  const showWebhooks = async (req: Request, res: Response, status: number, message: Notice | null) => {
    const merchant = kit.merchant(req);
    const deliveryStatus = kit.text(req, "status");
    const read = await kit.attempt(async () => {
      const endpoints = await Promise.all(
        MODES.map(async (mode) => ((await deps.v1(merchant, mode, "GET", "/webhook-endpoints", {})) as { data: EndpointRow[] }).data),
      );
      const page = await mergeModes<DeliveryRow>(undefined, kit.text(req, "cursor"), PAGE_SIZE, async (mode, after) => {
        const input = Object.fromEntries(Object.entries({ status: deliveryStatus, limit: String(PAGE_SIZE), cursor: after }).filter(([, value]) => value));
        return (await deps.v1(merchant, mode, "GET", "/webhook-deliveries", input)) as { data: DeliveryRow[]; hasMore: boolean };
      });
      return { endpoints: endpoints.flat(), page };
    });
    if (!read.ok) return kit.problem(req, res, read.status, read.notice.text, "webhooks");
    const { endpoints, page } = read.value;
    const nextQuery = new URLSearchParams(deliveryStatus ? { status: deliveryStatus } : {});
    if (page.next) nextQuery.set("cursor", page.next);
    const base = kit.merchantBase(req);
    const body = webhooksBody({
      base,
      endpoints,
      deliveries: page.rows,
      status: deliveryStatus,
      nextHref: page.next ? `${base}/webhooks?${nextQuery}` : null,
      csrf: kit.formToken(req),
      message,
    });
    await kit.send(req, res, status, { title: "Webhooks", body, section: "webhooks" });
  };

  router.get(
    "/m/:merchantId/webhooks",
    asyncHandler((req, res) => showWebhooks(req, res, 200, null)),
  );

  router.post(
    "/m/:merchantId/webhooks/deliveries/:deliveryId/redeliver",
    asyncHandler(async (req, res) => {
      const merchant = kit.merchant(req);
      const id = encodeURIComponent(String(req.params.deliveryId));
      // The delivery's mode is the one whose scope finds it; another merchant's id is found in neither.
      for (const mode of MODES) {
        const found = await kit.attempt(() => deps.v1(merchant, mode, "GET", `/webhook-deliveries/${id}`, {}));
        if (!found.ok) continue;
        const done = await kit.attempt(() => deps.v1(merchant, mode, "POST", `/webhook-deliveries/${id}/redeliver`, {}));
        return showWebhooks(req, res, done.ok ? 200 : done.status, done.ok ? { tone: "ok", text: "The delivery was queued again." } : done.notice);
      }
      await kit.notFound(req, res, "webhooks");
    }),
  );
}
