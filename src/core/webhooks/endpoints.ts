import type { PageQuery, Scope } from "../ports/storage/index";
import { notFound, PaymentError } from "../../errors";
import { generateWebhookSecret } from "../../webhook-secret";
import type { CoreContext } from "../context";
import { newId } from "../../ids";
import type { CommitHook } from "../idempotency/idempotency";
import { newDelivery, withOutbox } from "./outbox";
import { IN_PROCESS_ENDPOINT } from "../ports/fan-out";
import type { AuditAction, AuditEntryRecord } from "../audit/records";
import type { EventType, WebhookDeliveryRecord, WebhookEndpointRecord } from "./records";
import { auditEntry } from "../audit/audit-log";

/** Limits and rules for webhook endpoints: where they may point (in both modes), and rotation. */
export interface WebhookEndpointPolicy {
  /** How long a rotated-out secret keeps signing, in ms. */
  rotationOverlapMs: number;
  /**
   * Whether webhooks may be sent to `url`: the URL to store, or why not ("must use http or
   * https"). The sender's address rules decide (the host wires them in), so the endpoint is
   * refused at registration by the same rules every delivery is checked against again.
   */
  screenUrl(url: string): Promise<URL | string>;
}

/**
 * Registers an endpoint and returns it with its first secret (the only time it is shown). Each
 * change of an endpoint is in the audit log under `by` (the API key or user who asked; "host"
 * when null), in the transaction of the change.
 */
export async function createWebhookEndpoint(
  context: CoreContext,
  policy: WebhookEndpointPolicy,
  scope: Scope,
  input: { url: string; events: EventType[] | null },
  by: string | null,
  onCommit?: CommitHook<WebhookEndpointRecord>,
): Promise<WebhookEndpointRecord> {
  const url = await policy.screenUrl(input.url);
  if (typeof url === "string") throw new PaymentError("validation_error", `Invalid request: url: ${url}.`);
  const now = context.now();
  const endpoint: WebhookEndpointRecord = {
    id: newId("we"),
    merchantId: scope.merchantId,
    mode: scope.mode,
    url: url.toString(),
    events: input.events && [...new Set(input.events)],
    secrets: [{ secret: generateWebhookSecret(), createdAt: now, expiresAt: null }],
    status: "enabled",
    disabledReason: null,
    createdAt: now,
    updatedAt: now,
  };
  await context.storage.transaction(async (tx) => {
    await tx.insertWebhookEndpoint(endpoint);
    await tx.insertAuditEntry(endpointAudit(context, endpoint, "webhook_endpoint.created", by));
    await onCommit?.(tx, endpoint);
  });
  return endpoint;
}

/** The audit entry of a change of `endpoint`: never its URL or secrets, only its id. */
function endpointAudit(context: CoreContext, endpoint: WebhookEndpointRecord, action: AuditAction, by: string | null): AuditEntryRecord {
  return auditEntry(context, { actor: by ?? "host", action, recordId: endpoint.id, merchantId: endpoint.merchantId, mode: endpoint.mode });
}

/** The endpoint with this id in `scope`, or a 404. */
export async function getWebhookEndpoint(context: CoreContext, scope: Scope, id: string): Promise<WebhookEndpointRecord> {
  const endpoint = await context.storage.getWebhookEndpoint(scope, id);
  if (!endpoint) throw notFound("webhook endpoint", id);
  return endpoint;
}

/** Deletes an endpoint; its queued deliveries are settled as failed (the log keeps them). */
export async function deleteWebhookEndpoint(context: CoreContext, scope: Scope, id: string, by: string | null): Promise<void> {
  await context.storage.transaction(async (tx) => {
    const endpoint = await tx.lockWebhookEndpoint(id);
    if (!endpoint || endpoint.merchantId !== scope.merchantId || endpoint.mode !== scope.mode) throw notFound("webhook endpoint", id);
    await tx.failPendingWebhookDeliveries(id, "the endpoint was deleted", context.now());
    await tx.deleteWebhookEndpoint(id);
    await tx.insertAuditEntry(endpointAudit(context, endpoint, "webhook_endpoint.deleted", by));
  });
}

/**
 * Turns a disabled endpoint (a 410 disables one) back on: events from now on are delivered to it
 * again. Deliveries that failed meanwhile stay failed; redeliver the ones still wanted. Enabling
 * an enabled endpoint changes nothing.
 */
export async function enableWebhookEndpoint(context: CoreContext, scope: Scope, id: string, by: string | null): Promise<WebhookEndpointRecord> {
  return context.storage.transaction(async (tx) => {
    const endpoint = await tx.lockWebhookEndpoint(id);
    if (!endpoint || endpoint.merchantId !== scope.merchantId || endpoint.mode !== scope.mode) throw notFound("webhook endpoint", id);
    if (endpoint.status === "enabled") return endpoint;
    const enabled: WebhookEndpointRecord = { ...endpoint, status: "enabled", disabledReason: null, updatedAt: context.now() };
    await tx.updateWebhookEndpoint(enabled);
    await tx.insertAuditEntry(endpointAudit(context, enabled, "webhook_endpoint.enabled", by));
    return enabled;
  });
}

/**
 * Turns an endpoint off by the merchant's choice: it gets no new events, and what was queued for
 * it fails now (as a 410 or a delete does) rather than waiting for its next attempt, so the log
 * says why at once; redeliver what is still wanted after enabling it again. `by` names who
 * asked, for `disabledReason`. Disabling a disabled endpoint changes nothing (its reason stays).
 */
export async function disableWebhookEndpoint(context: CoreContext, scope: Scope, id: string, by: string | null): Promise<WebhookEndpointRecord> {
  return context.storage.transaction(async (tx) => {
    const endpoint = await tx.lockWebhookEndpoint(id);
    if (!endpoint || endpoint.merchantId !== scope.merchantId || endpoint.mode !== scope.mode) throw notFound("webhook endpoint", id);
    if (endpoint.status === "disabled") return endpoint;
    const now = context.now();
    const disabled: WebhookEndpointRecord = {
      ...endpoint,
      status: "disabled",
      disabledReason: by ? `disabled by ${by}` : "disabled by the merchant",
      updatedAt: now,
    };
    await tx.updateWebhookEndpoint(disabled);
    await tx.failPendingWebhookDeliveries(id, "the endpoint was disabled", now);
    await tx.insertAuditEntry(endpointAudit(context, disabled, "webhook_endpoint.disabled", by));
    return disabled;
  });
}

/**
 * Starts using a new secret. The old one keeps signing alongside it for the overlap, so a
 * receiver can deploy the new secret without losing a delivery; then it stops. Returns the
 * endpoint with the new secret (shown only here).
 */
export async function rotateWebhookSecret(
  context: CoreContext,
  policy: WebhookEndpointPolicy,
  scope: Scope,
  id: string,
  by: string | null,
): Promise<WebhookEndpointRecord> {
  return context.storage.transaction(async (tx) => {
    const endpoint = await tx.lockWebhookEndpoint(id);
    if (!endpoint || endpoint.merchantId !== scope.merchantId || endpoint.mode !== scope.mode) throw notFound("webhook endpoint", id);
    const now = context.now();
    const expiresAt = now + policy.rotationOverlapMs;
    const kept = endpoint.secrets
      .filter((secret) => secret.expiresAt === null || secret.expiresAt > now)
      .map((secret) => ({ ...secret, expiresAt: secret.expiresAt === null ? expiresAt : Math.min(secret.expiresAt, expiresAt) }));
    const rotated: WebhookEndpointRecord = {
      ...endpoint,
      secrets: [{ secret: generateWebhookSecret(), createdAt: now, expiresAt: null }, ...kept],
      updatedAt: now,
    };
    await tx.updateWebhookEndpoint(rotated);
    await tx.insertAuditEntry(endpointAudit(context, rotated, "webhook_endpoint.secret_rotated", by));
    return rotated;
  });
}

/**
 * Sends a test event of `type` to one endpoint (whatever it subscribes to): `sample(now)` is its
 * data, a made-up resource of the type (the API layer draws it from the public schemas, which
 * the domain does not import), marked `test: true`, through the normal delivery path. It is not
 * in the event log.
 */
export async function sendTestEvent(
  context: CoreContext,
  scope: Scope,
  id: string,
  type: EventType,
  sample: (now: number) => Record<string, unknown>,
  onCommit?: CommitHook<WebhookDeliveryRecord>,
): Promise<WebhookDeliveryRecord> {
  return withOutbox(context, async (tx) => {
    const endpoint = await tx.lockWebhookEndpoint(id);
    if (!endpoint || endpoint.merchantId !== scope.merchantId || endpoint.mode !== scope.mode) throw notFound("webhook endpoint", id);
    if (endpoint.status !== "enabled") throw new PaymentError("invalid_state", `Webhook endpoint ${id} is disabled (${endpoint.disabledReason}).`);
    const now = context.now();
    const data = sample(now);
    const delivery = newDelivery(endpoint, { id: newId("evt"), type, createdAt: now, data }, now);
    await tx.insertWebhookDeliveries([delivery]);
    await onCommit?.(tx, delivery);
    return delivery;
  });
}

/** The delivery with this id in `scope`, or a 404. */
export async function getWebhookDelivery(context: CoreContext, scope: Scope, id: string): Promise<WebhookDeliveryRecord> {
  const delivery = await context.storage.getWebhookDelivery(scope, id);
  if (!delivery) throw notFound("webhook delivery", id);
  return delivery;
}

/** One page of the delivery log, newest first; `page.after` must be a delivery of this scope. */
export async function listWebhookDeliveries(
  context: CoreContext,
  scope: Scope,
  filter: { endpointId?: string; eventType?: string; status?: WebhookDeliveryRecord["status"] },
  page: PageQuery,
): Promise<{ data: WebhookDeliveryRecord[]; hasMore: boolean; nextCursor: string | null }> {
  if (page.after && !(await context.storage.getWebhookDelivery(scope, page.after))) {
    throw new PaymentError("validation_error", "Invalid request: cursor: not a cursor this list returned.");
  }
  const rows = await context.storage.listWebhookDeliveries(scope, filter, { limit: page.limit + 1, after: page.after ?? null });
  const data = rows.slice(0, page.limit);
  const hasMore = rows.length > page.limit;
  return { data, hasMore, nextCursor: hasMore ? data.at(-1)!.id : null };
}

/**
 * Queues a delivery again, with the same `webhook-id` (it is the same message: a receiver that
 * did process it will skip it). Its attempts start over; a disabled endpoint is refused.
 */
export async function redeliver(context: CoreContext, scope: Scope, id: string, onCommit?: CommitHook<WebhookDeliveryRecord>): Promise<WebhookDeliveryRecord> {
  return withOutbox(context, async (tx) => {
    const delivery = await tx.lockWebhookDelivery(id);
    if (!delivery || delivery.merchantId !== scope.merchantId || delivery.mode !== scope.mode) throw notFound("webhook delivery", id);
    // The host's own handlers have no endpoint record to check.
    if (delivery.endpointId !== IN_PROCESS_ENDPOINT) {
      const endpoint = await tx.lockWebhookEndpoint(delivery.endpointId);
      if (!endpoint) throw new PaymentError("invalid_state", `The endpoint of delivery ${id} was deleted.`);
      if (endpoint.status !== "enabled") throw new PaymentError("invalid_state", `The endpoint of delivery ${id} is disabled (${endpoint.disabledReason}).`);
    }
    if (delivery.status === "pending") {
      await onCommit?.(tx, delivery);
      return delivery;
    }
    const now = context.now();
    const queued: WebhookDeliveryRecord = { ...delivery, status: "pending", attempts: 0, nextAttemptAt: now, leaseUntil: null, updatedAt: now };
    await tx.updateWebhookDelivery(queued);
    await onCommit?.(tx, queued);
    return queued;
  });
}
