import type { Request, Response, Router } from "express";
import { IN_PROCESS_ENDPOINT } from "../../core/ports/fan-out";
import { asyncHandler } from "../../http/async-handler";
import { mergeModes, MODES } from "../data";
import type { DashboardKit, Notice } from "../kit";
import { deliveryBody } from "../pages/webhook-delivery";
import { webhooksBody, type DeliveryRow, type EndpointRow } from "../pages/webhooks";
import { findWebhookRecord, type WebhooksExtra } from "../webhook-data";
import { webhookEndpointRoutes } from "./webhook-endpoints";

const PAGE_SIZE = 25;

/**
 * The webhooks section: endpoints of both modes and their deliveries, a delivery's page with
 * every attempt, and redelivery; the endpoints' own pages and actions are in webhook-endpoints.
 */
export function webhookRoutes(router: Router, kit: DashboardKit): void {
  const { deps } = kit;

  const showWebhooks = async (req: Request, res: Response, status: number, extra: WebhooksExtra = {}) => {
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
      message: extra.message ?? null,
      draft: extra.draft ?? null,
    });
    await kit.send(req, res, status, { title: "Webhooks", body, section: "webhooks" });
  };

  const showDelivery = async (req: Request, res: Response, status: number, message: Notice | null) => {
    const found = await findWebhookRecord<DeliveryRow>(kit, req, "webhook-deliveries", String(req.params.deliveryId));
    if (!found) return kit.notFound(req, res, "webhooks");
    const { mode, record: delivery } = found;
    const inProcess = delivery.endpointId === IN_PROCESS_ENDPOINT;
    // A deleted endpoint reads 404: the delivery's page then names it by id only.
    const endpoint = inProcess
      ? null
      : await kit.attempt(() => deps.v1(kit.merchant(req), mode, "GET", `/webhook-endpoints/${encodeURIComponent(delivery.endpointId)}`, {}));
    const body = deliveryBody({
      base: kit.merchantBase(req),
      delivery,
      endpoint: endpoint?.ok ? (endpoint.value as EndpointRow) : null,
      inProcess,
      csrf: kit.formToken(req),
      message,
    });
    await kit.send(req, res, status, { title: `Delivery of ${delivery.eventType}`, body, section: "webhooks" });
  };

  router.get(
    "/m/:merchantId/webhooks",
    asyncHandler((req, res) => showWebhooks(req, res, 200)),
  );

  router.get(
    "/m/:merchantId/webhooks/deliveries/:deliveryId",
    asyncHandler((req, res) => showDelivery(req, res, 200, null)),
  );

  router.post(
    "/m/:merchantId/webhooks/deliveries/:deliveryId/redeliver",
    asyncHandler(async (req, res) => {
      const found = await findWebhookRecord<DeliveryRow>(kit, req, "webhook-deliveries", String(req.params.deliveryId));
      if (!found) return kit.notFound(req, res, "webhooks");
      const id = encodeURIComponent(found.record.id);
      const done = await kit.attempt(() => deps.v1(kit.merchant(req), found.mode, "POST", `/webhook-deliveries/${id}/redeliver`, {}));
      const message: Notice = done.ok ? { tone: "ok", text: "The delivery was queued again." } : done.notice;
      // The delivery's own page sends its redeliver form back there; the list's, to the list.
      if ((req.body as Record<string, unknown>).back === "delivery") return showDelivery(req, res, done.ok ? 200 : done.status, message);
      await showWebhooks(req, res, done.ok ? 200 : done.status, { message });
    }),
  );

  webhookEndpointRoutes(router, kit, showWebhooks);
}
