import type { StorageTransaction } from "../adapters/storage/types";
import type { CoreContext } from "./context";
import { newId } from "./ids";
import type { EventRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from "./types";

/** The JSON body of a webhook: the same bytes on every attempt of a delivery. */
export function webhookPayload(event: Pick<EventRecord, "type" | "createdAt" | "data">): string {
  return JSON.stringify({ type: event.type, timestamp: new Date(event.createdAt).toISOString(), data: event.data });
}

function subscribed(endpoint: WebhookEndpointRecord, type: string): boolean {
  return endpoint.status === "enabled" && (endpoint.events === null || (endpoint.events as string[]).includes(type));
}

/** A pending delivery of one event to one endpoint, due now. */
export function newDelivery(endpoint: WebhookEndpointRecord, event: Pick<EventRecord, "id" | "type" | "createdAt" | "data">, now: number): WebhookDeliveryRecord {
  return {
    id: newId("msg"),
    merchantId: endpoint.merchantId,
    mode: endpoint.mode,
    endpointId: endpoint.id,
    eventId: event.id,
    eventType: event.type,
    payload: webhookPayload(event),
    status: "pending",
    attempts: 0,
    nextAttemptAt: now,
    leaseUntil: null,
    lastStatusCode: null,
    lastError: null,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Records events and their deliveries in the caller's unit of work (the transactional outbox):
 * if the state change commits, every subscribed endpoint will be sent every event, even across
 * a crash; if it rolls back, nothing is sent.
 */
export async function recordEvents(context: CoreContext, tx: StorageTransaction, events: readonly EventRecord[]): Promise<void> {
  if (events.length === 0) return;
  await tx.appendEvents([...events]);
  const endpointsByScope = new Map<string, WebhookEndpointRecord[]>();
  const deliveries: WebhookDeliveryRecord[] = [];
  for (const event of events) {
    const key = `${event.merchantId}:${event.mode}`;
    let endpoints = endpointsByScope.get(key);
    if (!endpoints) {
      endpoints = await tx.listWebhookEndpoints({ merchantId: event.merchantId, mode: event.mode });
      endpointsByScope.set(key, endpoints);
    }
    for (const endpoint of endpoints) {
      if (subscribed(endpoint, event.type)) deliveries.push(newDelivery(endpoint, event, context.now()));
    }
  }
  if (deliveries.length > 0) {
    await tx.insertWebhookDeliveries(deliveries);
    context.onDeliveriesRecorded?.();
  }
}
