import type { CoreContext } from "../../core/context";
import * as endpoints from "../../core/webhooks/endpoints";
import type { StorageReads } from "../../core/ports/storage/index";
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from "../../core/webhooks/records";
import * as schemas from "../../schemas/webhooks";
import * as resources from "../../schemas/resources";
import type { RouteTable } from "../route-table";
import { deliveryView, endpointView } from "../../core/views/webhook-endpoints";
import { sampleEventData } from "../sample-events";

/** Webhook endpoint management and the delivery log, under /v1. */
export function webhookRoutes(routes: RouteTable, context: CoreContext, policy: endpoints.WebhookEndpointPolicy): void {
  const withAttempts = async (delivery: WebhookDeliveryRecord, reads: StorageReads = context.storage) =>
    deliveryView(delivery, await reads.listWebhookAttempts(delivery.id));

  // The secret is in this answer only: a replay of the create gets the endpoint without it.
  routes.post(
    "/webhook-endpoints",
    schemas.webhookEndpointCreateRequest,
    async (body, { scope, actor, commitAnswer }) =>
      endpointView(
        await endpoints.createWebhookEndpoint(
          context,
          policy,
          scope,
          { url: body.url, events: body.events ?? null },
          actor,
          commitAnswer?.((endpoint: WebhookEndpointRecord) => endpointView(endpoint)),
        ),
        true,
      ),
    {
      idempotent: true,
      docs: {
        summary: "Create a webhook endpoint",
        description:
          "Registers a URL to receive the events of this key's mode: every event type, or those in `events`. The answer carries the endpoint's `whsec_` signing `secret`, shown only here and on rotation: a replay of this request (same `Idempotency-Key`) returns the endpoint without it. In both modes the URL must be a public address: one that is, or resolves to, a loopback, private or reserved address is refused with 400 (unless the router allows private URLs), and every delivery checks it again.",
        response: resources.webhookEndpoint,
        tags: ["Webhook endpoints"],
      },
    },
  );

  routes.get(
    "/webhook-endpoints",
    schemas.emptyQuery,
    async (_query, { scope }) => ({
      data: (await context.storage.listWebhookEndpoints(scope)).map((endpoint) => endpointView(endpoint)),
    }),
    {
      docs: {
        summary: "List webhook endpoints",
        response: resources.webhookEndpointList,
        tags: ["Webhook endpoints"],
      },
    },
  );

  routes.get(
    "/webhook-endpoints/:id",
    schemas.emptyQuery,
    async (_query, { scope, params }) => endpointView(await endpoints.getWebhookEndpoint(context, scope, params.id!)),
    {
      docs: {
        summary: "Fetch a webhook endpoint",
        response: resources.webhookEndpoint,
        tags: ["Webhook endpoints"],
        errors: [404],
      },
    },
  );

  routes.delete(
    "/webhook-endpoints/:id",
    schemas.emptyQuery,
    async (_query, { scope, params, actor }) => {
      await endpoints.deleteWebhookEndpoint(context, scope, params.id!, actor);
      return { id: params.id, object: "webhook_endpoint", deleted: true };
    },
    {
      docs: {
        summary: "Delete a webhook endpoint",
        description: "Its pending deliveries are marked failed and no more are made.",
        response: resources.deletedWebhookEndpoint,
        tags: ["Webhook endpoints"],
        errors: [404],
      },
    },
  );

  routes.post(
    "/webhook-endpoints/:id/rotate-secret",
    schemas.emptyBody,
    async (_body, { scope, params, actor }) => endpointView(await endpoints.rotateWebhookSecret(context, policy, scope, params.id!, actor), true),
    {
      docs: {
        summary: "Rotate the signing secret",
        description:
          "Returns a new `secret`. The old one keeps signing alongside it (deliveries carry both signatures) for the router's `rotationOverlapMinutes` (default 24 h), so a receiver can switch without losing a delivery.",
        response: resources.webhookEndpoint,
        tags: ["Webhook endpoints"],
        errors: [404],
      },
    },
  );

  routes.post(
    "/webhook-endpoints/:id/enable",
    schemas.emptyBody,
    async (_body, { scope, params, actor }) => endpointView(await endpoints.enableWebhookEndpoint(context, scope, params.id!, actor)),
    {
      docs: {
        summary: "Re-enable a webhook endpoint",
        description:
          "Turns an endpoint that was disabled (it answered `410 Gone`) back on: events from now on are delivered to it again. Deliveries that failed while it was disabled stay failed; redeliver the ones you still want. Enabling an enabled endpoint changes nothing.",
        response: resources.webhookEndpoint,
        tags: ["Webhook endpoints"],
        errors: [404],
      },
    },
  );

  routes.post(
    "/webhook-endpoints/:id/disable",
    schemas.emptyBody,
    async (_body, { scope, params, actor }) => endpointView(await endpoints.disableWebhookEndpoint(context, scope, params.id!, actor)),
    {
      docs: {
        summary: "Disable a webhook endpoint",
        description:
          "Stops delivering to the endpoint: no new events are queued for it and its pending deliveries are marked failed now. `disabledReason` names who disabled it. `POST /v1/webhook-endpoints/:id/enable` turns it back on; redeliver what you still want. Disabling a disabled endpoint changes nothing.",
        response: resources.webhookEndpoint,
        tags: ["Webhook endpoints"],
        errors: [404],
      },
    },
  );

  routes.post(
    "/webhook-endpoints/:id/test",
    schemas.webhookTestRequest,
    async (body, { scope, params, commitAnswer }) => {
      const sample = (now: number) => sampleEventData(body.type, scope, now, context.currencies);
      return withAttempts(await endpoints.sendTestEvent(context, scope, params.id!, body.type, sample, commitAnswer?.(withAttempts)));
    },
    {
      idempotent: true,
      docs: {
        summary: "Send a test event",
        description:
          "Queues an event of `type` (default `payment.created`) to this endpoint through the normal delivery path, whatever event types it subscribes to. Its `data` is a sample of the type's resource (a payment, withdrawal, refund or conversion) in the status that type carries, marked `test: true`; nothing is stored but the delivery, and the event is not in the event log. To have the service produce a real event, drive the sandbox (`npx express-crypto-pay trigger <type>`).",
        response: resources.webhookDelivery,
        tags: ["Webhook endpoints"],
        errors: [404],
      },
    },
  );

  routes.get(
    "/webhook-deliveries",
    schemas.webhookDeliveryListQuery,
    async (query, { scope }) => {
      const page = await endpoints.listWebhookDeliveries(
        context,
        scope,
        { endpointId: query.endpointId, eventType: query.eventType, status: query.status },
        { limit: query.limit, after: query.cursor ?? null },
      );
      return { data: await Promise.all(page.data.map((delivery) => withAttempts(delivery))), hasMore: page.hasMore, nextCursor: page.nextCursor };
    },
    {
      docs: {
        summary: "List deliveries",
        description:
          "Newest first, filtered by `endpointId`, `eventType` and `status`. `limit` 1 to 100 (default 20); pass the previous page's `nextCursor` as `cursor` for the next.",
        response: resources.webhookDeliveryPage,
        tags: ["Webhook deliveries"],
      },
    },
  );

  routes.get(
    "/webhook-deliveries/:id",
    schemas.emptyQuery,
    async (_query, { scope, params }) => withAttempts(await endpoints.getWebhookDelivery(context, scope, params.id!)),
    {
      docs: {
        summary: "Fetch a delivery",
        response: resources.webhookDelivery,
        tags: ["Webhook deliveries"],
        errors: [404],
      },
    },
  );

  routes.post(
    "/webhook-deliveries/:id/redeliver",
    schemas.emptyBody,
    async (_body, { scope, params, commitAnswer }) => withAttempts(await endpoints.redeliver(context, scope, params.id!, commitAnswer?.(withAttempts))),
    {
      idempotent: true,
      docs: {
        summary: "Redeliver an event",
        description:
          "Queues the same body again with the same `webhook-id`, attempts starting over (a receiver that processed it already skips it). A pending delivery is left as it is; 409 when its endpoint is deleted or disabled.",
        response: resources.webhookDelivery,
        tags: ["Webhook deliveries"],
        errors: [404, 409],
      },
    },
  );
}
