import type { CoreContext } from "../../core/context";
import * as endpoints from "../../core/webhook-endpoints";
import type { WebhookDeliveryRecord } from "../../core/types";
import * as schemas from "../../schemas/webhooks";
import type { RouteTable } from "../route-table";
import { deliveryView, endpointView } from "../webhook-views";

/** Webhook endpoint management and the delivery log, under /v1. */
export function webhookRoutes(routes: RouteTable, context: CoreContext, policy: endpoints.WebhookEndpointPolicy): void {
  const withAttempts = async (delivery: WebhookDeliveryRecord) => deliveryView(delivery, await context.storage.listWebhookAttempts(delivery.id));

  routes.post("/webhook-endpoints", schemas.webhookEndpointCreateRequest, async (body, { scope }) =>
    endpointView(await endpoints.createWebhookEndpoint(context, policy, scope, { url: body.url, events: body.events ?? null }), true),
  );

  routes.get("/webhook-endpoints", schemas.emptyQuery, async (_query, { scope }) => ({
    data: (await context.storage.listWebhookEndpoints(scope)).map((endpoint) => endpointView(endpoint)),
  }));

  routes.get("/webhook-endpoints/:id", schemas.emptyQuery, async (_query, { scope, params }) =>
    endpointView(await endpoints.getWebhookEndpoint(context, scope, params.id!)),
  );

  routes.delete("/webhook-endpoints/:id", schemas.emptyQuery, async (_query, { scope, params }) => {
    await endpoints.deleteWebhookEndpoint(context, scope, params.id!);
    return { id: params.id, object: "webhook_endpoint", deleted: true };
  });

  routes.post("/webhook-endpoints/:id/rotate-secret", schemas.emptyBody, async (_body, { scope, params }) =>
    endpointView(await endpoints.rotateWebhookSecret(context, policy, scope, params.id!), true),
  );

  routes.post("/webhook-endpoints/:id/test", schemas.emptyBody, async (_body, { scope, params }) =>
    withAttempts(await endpoints.sendTestEvent(context, scope, params.id!)),
  );

  routes.get("/webhook-deliveries", schemas.webhookDeliveryListQuery, async (query, { scope }) => {
    const page = await endpoints.listWebhookDeliveries(
      context,
      scope,
      { endpointId: query.endpointId, eventType: query.eventType, status: query.status },
      { limit: query.limit, after: query.cursor ?? null },
    );
    return { data: await Promise.all(page.data.map(withAttempts)), hasMore: page.hasMore, nextCursor: page.nextCursor };
  });

  routes.get("/webhook-deliveries/:id", schemas.emptyQuery, async (_query, { scope, params }) =>
    withAttempts(await endpoints.getWebhookDelivery(context, scope, params.id!)),
  );

  routes.post("/webhook-deliveries/:id/redeliver", schemas.emptyBody, async (_body, { scope, params }) =>
    withAttempts(await endpoints.redeliver(context, scope, params.id!)),
  );
}
