import type { WebhookAttemptRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from "../webhooks/records";

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/**
 * A webhook endpoint as the /v1 API shows it. The secret appears only in the answers that
 * create it (endpoint creation and rotation): `withSecret` is set there and nowhere else.
 */
export function endpointView(endpoint: WebhookEndpointRecord, withSecret = false) {
  return {
    id: endpoint.id,
    object: "webhook_endpoint" as const,
    livemode: endpoint.mode === "live",
    url: endpoint.url,
    events: endpoint.events,
    status: endpoint.status,
    disabledReason: endpoint.disabledReason,
    ...(withSecret ? { secret: endpoint.secrets[0]!.secret } : {}),
    createdAt: iso(endpoint.createdAt),
    updatedAt: iso(endpoint.updatedAt),
  };
}

/** A delivery with its attempt log; `id` is the `webhook-id` the receiver saw. */
export function deliveryView(delivery: WebhookDeliveryRecord, attempts: readonly WebhookAttemptRecord[]) {
  return {
    id: delivery.id,
    object: "webhook_delivery" as const,
    livemode: delivery.mode === "live",
    endpointId: delivery.endpointId,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    status: delivery.status,
    attemptCount: attempts.length,
    nextAttemptAt: iso(delivery.nextAttemptAt),
    lastStatusCode: delivery.lastStatusCode,
    lastError: delivery.lastError,
    attempts: attempts.map((attempt) => ({
      at: iso(attempt.at),
      statusCode: attempt.statusCode,
      durationMs: attempt.durationMs,
      error: attempt.error,
    })),
    createdAt: iso(delivery.createdAt),
    updatedAt: iso(delivery.updatedAt),
  };
}
