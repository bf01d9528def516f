import type { Request, Response, Router } from "express";
import { IdempotencyError } from "../../api-errors";
import type { WebhookEndpointCreateParams, WebhookTestParams } from "../../client/resources";
import type { Mode } from "../../core/merchants/records";
import { asyncHandler } from "../../express/async-handler";
import type { DashboardKit, Notice } from "../kit";
import { deleteEndpointBody, endpointBody } from "../pages/webhook-endpoint";
import { endpointHref, type EndpointRow } from "../pages/webhooks";
import { findWebhookRecord, type WebhooksExtra } from "../webhook-data";

const PAGE_SIZE = 20;
const ENDPOINT = "/m/:merchantId/webhooks/endpoints/:endpointId";

/** What an endpoint's page shows besides the endpoint: a notice, and a secret just made. */
interface EndpointExtra {
  message?: Notice;
  secret?: { value: string; title: string };
}

/** An endpoint as an answer that creates a secret gives it: the secret apart from the rest. */
function withoutSecret(answer: EndpointRow & { secret?: string }): { endpoint: EndpointRow; secret: string | undefined } {
  const { secret, ...endpoint } = answer;
  return { endpoint, secret };
}

/**
 * How the resources refuse a replayed create (the same form sent twice): the first answer's
 * secret is not shown again, and the message names the endpoint that answer made.
 */
const REPLAYED_CREATE = /^Webhook endpoint (\S+) was created by an earlier request with this Idempotency-Key/;

/**
 * An endpoint's page and its actions (register, send a test event, rotate the secret, disable,
 * enable, delete), each through the endpoint's /v1 route in its own mode. A new secret is
 * written into the one answer that made it and nowhere else.
 */
export function webhookEndpointRoutes(
  router: Router,
  kit: DashboardKit,
  showWebhooks: (req: Request, res: Response, status: number, extra?: WebhooksExtra) => Promise<void>,
): void {
  /** The endpoints and deliveries of the opened merchant in `mode`, the dashboard user as the actor. */
  const api = (req: Request, mode: Mode) => kit.backend.forMerchant(kit.merchant(req).id, mode, { actor: kit.actor(req) });

  const showEndpoint = async (req: Request, res: Response, status: number, mode: Mode, endpoint: EndpointRow, extra: EndpointExtra = {}) => {
    const cursor = req.method === "GET" ? kit.text(req, "cursor") : undefined;
    const input = { endpointId: endpoint.id, limit: String(PAGE_SIZE), ...(cursor ? { cursor } : {}) };
    const read = await kit.attempt(async () => await api(req, mode).webhookDeliveries.list(input));
    if (!read.ok) return kit.problem(req, res, read.status, read.notice.text, "webhooks");
    const base = kit.merchantBase(req);
    const next = read.value.nextCursor;
    const body = endpointBody({
      base,
      endpoint,
      deliveries: read.value.data,
      nextHref: next ? `${endpointHref(base, endpoint.id)}?${new URLSearchParams({ cursor: next })}` : null,
      csrf: kit.formToken(req),
      message: extra.message ?? null,
      secret: extra.secret ?? null,
    });
    await kit.send(req, res, status, { title: `Endpoint ${endpoint.url}`, body, section: "webhooks" });
  };

  /** Finds the endpoint of the URL (in the form's mode for an action); null after answering 404. */
  const found = async (req: Request, res: Response) => {
    const endpoint = await findWebhookRecord<EndpointRow>(kit, req, (resources, id) => resources.webhookEndpoints.retrieve(id), String(req.params.endpointId));
    if (!endpoint) await kit.notFound(req, res, "webhooks");
    return endpoint;
  };

  router.post(
    "/m/:merchantId/webhooks/endpoints",
    asyncHandler(async (req, res) => {
      const form = req.body as Record<string, string | string[] | undefined>;
      const mode = form.mode === "live" ? "live" : "test";
      const draft = { url: typeof form.url === "string" ? form.url.trim() : "", mode, events: [form.events ?? []].flat() } as const;
      if (form.mode !== "test" && form.mode !== "live") {
        return showWebhooks(req, res, 400, { message: { tone: "error", text: 'Mode must be "test" or "live".' }, draft });
      }
      // No box ticked: every event type, including ones added later (the API's `events` left out).
      // The event types as ticked: the /v1 route checks each (an unknown one is refused with its message).
      const input = { url: draft.url, ...(draft.events.length ? { events: draft.events } : {}) } as WebhookEndpointCreateParams;
      const { idempotencyKey } = kit.creating(req);
      const done = await kit.attempt(async () => {
        try {
          return withoutSecret(await api(req, mode).webhookEndpoints.create(input, { idempotencyKey }));
        } catch (error) {
          // The same form sent again (a double click) replays the first answer, without its secret.
          const replayed = error instanceof IdempotencyError ? REPLAYED_CREATE.exec(error.message)?.[1] : undefined;
          if (replayed === undefined) throw error;
          return { endpoint: await api(req, mode).webhookEndpoints.retrieve(replayed), secret: undefined };
        }
      });
      if (!done.ok) return showWebhooks(req, res, done.status, { message: done.notice, draft });
      const { endpoint, secret } = done.value;
      if (secret === undefined) {
        return showEndpoint(req, res, 200, mode, endpoint, {
          message: {
            tone: "ok",
            text: "This form had already added the endpoint; its signing secret was shown on that answer only. Rotate the secret to get a new one.",
          },
        });
      }
      await showEndpoint(req, res, 200, mode, endpoint, {
        message: { tone: "ok", text: "Endpoint added. Its signing secret is below." },
        secret: { value: secret, title: "Signing secret" },
      });
    }),
  );

  router.get(
    ENDPOINT,
    asyncHandler(async (req, res) => {
      const endpoint = await found(req, res);
      if (endpoint) await showEndpoint(req, res, 200, endpoint.mode, endpoint.record);
    }),
  );

  router.post(
    `${ENDPOINT}/rotate`,
    asyncHandler(async (req, res) => {
      const endpoint = await found(req, res);
      if (!endpoint) return;
      const done = await kit.attempt(async () => withoutSecret(await api(req, endpoint.mode).webhookEndpoints.rotateSecret(endpoint.record.id)));
      if (!done.ok) return showEndpoint(req, res, done.status, endpoint.mode, endpoint.record, { message: done.notice });
      await showEndpoint(req, res, 200, endpoint.mode, done.value.endpoint, {
        message: {
          tone: "ok",
          text: "Secret rotated. The previous one keeps signing alongside it for the rotation overlap, so your receiver can switch without losing a delivery.",
        },
        secret: { value: done.value.secret ?? "", title: "New signing secret" },
      });
    }),
  );

  // Disable and enable answer the endpoint as it is now; either one again changes nothing.
  for (const [action, text] of [
    ["disable", "Endpoint disabled: it gets no events, and what was queued for it failed."],
    ["enable", "Endpoint enabled: new events are delivered to it again."],
  ] as const) {
    router.post(
      `${ENDPOINT}/${action}`,
      asyncHandler(async (req, res) => {
        const endpoint = await found(req, res);
        if (!endpoint) return;
        const done = await kit.attempt(() => api(req, endpoint.mode).webhookEndpoints[action](endpoint.record.id));
        if (!done.ok) return showEndpoint(req, res, done.status, endpoint.mode, endpoint.record, { message: done.notice });
        await showEndpoint(req, res, 200, endpoint.mode, done.value, { message: { tone: "ok", text } });
      }),
    );
  }

  router.post(
    `${ENDPOINT}/test`,
    asyncHandler(async (req, res) => {
      const endpoint = await found(req, res);
      if (!endpoint) return;
      // The type is checked by the /v1 route: an unknown one is refused with its message.
      const type = (req.body as Record<string, unknown>).type;
      const input = (typeof type === "string" && type !== "" ? { type } : {}) as WebhookTestParams;
      const { idempotencyKey } = kit.creating(req);
      const done = await kit.attempt(() => api(req, endpoint.mode).webhookEndpoints.sendTest(endpoint.record.id, input, { idempotencyKey }));
      const message: Notice = done.ok ? { tone: "ok", text: `Test event queued as delivery ${done.value.id}, listed below.` } : done.notice;
      await showEndpoint(req, res, done.ok ? 200 : done.status, endpoint.mode, endpoint.record, { message });
    }),
  );

  router.get(
    `${ENDPOINT}/delete`,
    asyncHandler(async (req, res) => {
      const endpoint = await found(req, res);
      if (!endpoint) return;
      const csrf = kit.formToken(req);
      if (!csrf) return kit.problem(req, res, 403, "Viewers cannot change anything.", "webhooks");
      const body = deleteEndpointBody(kit.merchantBase(req), endpoint.record, csrf);
      await kit.send(req, res, 200, { title: "Delete endpoint", body, section: "webhooks" });
    }),
  );

  router.post(
    `${ENDPOINT}/delete`,
    asyncHandler(async (req, res) => {
      const endpoint = await found(req, res);
      if (!endpoint) return;
      const { id, url } = endpoint.record;
      const done = await kit.attempt(() => api(req, endpoint.mode).webhookEndpoints.delete(id));
      if (!done.ok) return showEndpoint(req, res, done.status, endpoint.mode, endpoint.record, { message: done.notice });
      await showWebhooks(req, res, 200, { message: { tone: "ok", text: `Endpoint ${url} deleted.` } });
    }),
  );
}
