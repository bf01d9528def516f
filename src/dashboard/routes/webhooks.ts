import type { Request, Response, Router } from "express";
import { IN_PROCESS_ENDPOINT } from "../../core/ports/fan-out";
import { asyncHandler } from "../../express/async-handler";
import { MODES } from "../data";
import { readModeList } from "../mode-lists";
import type { DashboardKit, Notice } from "../kit";
import { deliveryBody } from "../pages/webhook-delivery";
import { webhooksBody, type DeliveryRow, type EndpointRow } from "../pages/webhooks";
import { findWebhookRecord, type WebhooksExtra } from "../webhook-data";
import { webhookEndpointRoutes } from "./webhook-endpoints";

/**
 * The webhooks section: endpoints of both modes and their deliveries, a delivery's page with
 * every attempt, and redelivery; the endpoints' own pages and actions are in webhook-endpoints.
 */
export function webhookRoutes(router: Router, kit: DashboardKit): void {
  const { backend } = kit;

  const showWebhooks = async (req: Request, res: Response, status: number, extra: WebhooksExtra = {}) => {
    const merchant = kit.merchant(req);
    const deliveryStatus = kit.text(req, "status");
    const base = kit.merchantBase(req);
    const endpoints = await Promise.all(
      MODES.map(async (mode): Promise<EndpointRow[]> => (await backend.forMerchant(merchant.id, mode).webhookEndpoints.list()).data),
    );
    // The deliveries of both modes, newest first, as every list of the dashboard reads them.
    const list = await readModeList<DeliveryRow>(kit, req, (api, query) => api.webhookDeliveries.list(query), { status: deliveryStatus }, `${base}/webhooks`);
    if (!list.ok) return kit.problem(req, res, list.status, list.notice.text, "webhooks");
    const body = webhooksBody({
      base,
      endpoints: endpoints.flat(),
      deliveries: list.page.rows,
      status: deliveryStatus,
      nextHref: list.page.nextHref,
      csrf: kit.formToken(req),
      message: extra.message ?? null,
      draft: extra.draft ?? null,
    });
    await kit.send(req, res, status, { title: "Webhooks", body, section: "webhooks" });
  };

  const showDelivery = async (req: Request, res: Response, status: number, message: Notice | null) => {
    const found = await findWebhookRecord<DeliveryRow>(kit, req, (api, id) => api.webhookDeliveries.retrieve(id), String(req.params.deliveryId));
    if (!found) return kit.notFound(req, res, "webhooks");
    const { mode, record: delivery } = found;
    const inProcess = delivery.endpointId === IN_PROCESS_ENDPOINT;
    // A deleted endpoint reads 404: the delivery's page then names it by id only.
    const endpoint = inProcess ? null : await kit.attempt(() => backend.forMerchant(kit.merchant(req).id, mode).webhookEndpoints.retrieve(delivery.endpointId));
    const body = deliveryBody({
      base: kit.merchantBase(req),
      delivery,
      endpoint: endpoint?.ok ? endpoint.value : null,
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
      const found = await findWebhookRecord<DeliveryRow>(kit, req, (api, id) => api.webhookDeliveries.retrieve(id), String(req.params.deliveryId));
      if (!found) return kit.notFound(req, res, "webhooks");
      const done = await kit.attempt(() => backend.forMerchant(kit.merchant(req).id, found.mode).webhookDeliveries.redeliver(found.record.id));
      const message: Notice = done.ok ? { tone: "ok", text: "The delivery was queued again." } : done.notice;
      // The delivery's own page sends its redeliver form back there; the list's, to the list.
      if ((req.body as Record<string, unknown>).back === "delivery") return showDelivery(req, res, done.ok ? 200 : done.status, message);
      await showWebhooks(req, res, done.ok ? 200 : done.status, { message });
    }),
  );

  webhookEndpointRoutes(router, kit, showWebhooks);
}
