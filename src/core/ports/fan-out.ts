import { createHash } from "node:crypto";
import type { EventRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from "../webhooks/records";
import type { Scope } from "./storage/index";

/*
 * How an event becomes webhook deliveries: part of the storage contract, since a storage adapter
 * writes the deliveries in the same unit of work as the events, and every adapter must derive
 * the same ids and bytes.
 */

/**
 * The JSON body of a webhook: the same bytes on every attempt of a delivery. `dataJson`, when
 * the caller has it already, is `JSON.stringify(event.data)` (it spares a second serialization).
 */
export function webhookPayload(event: Pick<EventRecord, "type" | "createdAt" | "data">, dataJson = JSON.stringify(event.data)): string {
  return `{"type":${JSON.stringify(event.type)},"timestamp":"${new Date(event.createdAt).toISOString()}","data":${dataJson}}`;
}

/**
 * The id (and `webhook-id` header) of the delivery of one event to one endpoint: `msg_` and 32
 * hex digits of SHA-256 over `<eventId>:<endpointId>`. Derived rather than random so that a
 * storage adapter can fan an event out in one statement (PostgreSQL: `'msg_' ||
 * left(encode(sha256(...), 'hex'), 32)`), and the same event reaches an endpoint under one id.
 */
export function webhookDeliveryId(eventId: string, endpointId: string): string {
  return `msg_${createHash("sha256").update(`${eventId}:${endpointId}`).digest("hex").slice(0, 32)}`;
}

/** Whether an endpoint gets events of this type: enabled, and subscribed to all types or this one. */
export function subscribed(endpoint: WebhookEndpointRecord, type: string): boolean {
  return endpoint.status === "enabled" && (endpoint.events === null || (endpoint.events as string[]).includes(type));
}

/**
 * The endpoint id of deliveries to the host's own handlers (`createPaymentRouter({ on })`): not
 * a stored endpoint, one id for every merchant and mode, so the delivery log and the per-endpoint
 * concurrency treat the host's code as one more receiver.
 */
export const IN_PROCESS_ENDPOINT = "we_in_process";

/** A pending delivery, due now, with nothing tried yet. */
export function pendingDelivery(
  id: string,
  endpoint: Pick<WebhookEndpointRecord, "id" | "merchantId" | "mode">,
  event: Pick<EventRecord, "id" | "type">,
  payload: string,
  now: number,
): WebhookDeliveryRecord {
  return {
    id,
    merchantId: endpoint.merchantId,
    mode: endpoint.mode,
    endpointId: endpoint.id,
    eventId: event.id,
    eventType: event.type,
    payload,
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
 * The deliveries `queueWebhookDeliveries` stores, computed in process: for each event in order,
 * one per subscribed endpoint of its scope in (createdAt, id) order. For adapters that hold the
 * endpoints in memory; a SQL adapter does the same in one INSERT ... SELECT.
 */
export function fanOut(events: readonly EventRecord[], endpointsOf: (scope: Scope) => readonly WebhookEndpointRecord[], now: number): WebhookDeliveryRecord[] {
  const deliveries: WebhookDeliveryRecord[] = [];
  for (const event of events) {
    const endpoints = endpointsOf({ merchantId: event.merchantId, mode: event.mode })
      .filter((endpoint) => subscribed(endpoint, event.type))
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    // The body is built only for an event somebody gets (most merchants have no endpoint).
    const payload = endpoints.length > 0 ? webhookPayload(event) : "";
    for (const endpoint of endpoints) deliveries.push(pendingDelivery(webhookDeliveryId(event.id, endpoint.id), endpoint, event, payload, now));
  }
  return deliveries;
}
