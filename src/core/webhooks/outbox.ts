import type { StorageTransaction } from "../ports/storage/index";
import type { CoreContext } from "../context";
import { newId } from "../../ids";
import { IN_PROCESS_ENDPOINT, pendingDelivery, webhookDeliveryId, webhookPayload } from "../ports/fan-out";
import type { EventRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from "./records";
import { reportCommittedEvents } from "./event-telemetry";

/**
 * The events each unit of work recorded, kept until it commits: telemetry hears of them only
 * then. Keyed weakly, so a unit of work that rolled back (or was retried) leaves nothing behind.
 */
const recorded = new WeakMap<StorageTransaction, EventRecord[]>();

/** A pending delivery of one event to one endpoint, due now (the test event: one endpoint, its own id). */
export function newDelivery(
  endpoint: WebhookEndpointRecord,
  event: Pick<EventRecord, "id" | "type" | "createdAt" | "data">,
  now: number,
): WebhookDeliveryRecord {
  return pendingDelivery(newId("msg"), endpoint, event, webhookPayload(event), now);
}

/**
 * Records events and their deliveries in the caller's unit of work (the transactional outbox):
 * if the state change commits, every subscribed endpoint will be sent every event, even across
 * a crash; if it rolls back, nothing is sent. Storage matches events to endpoints itself, so a
 * SQL adapter writes all of it without a read in between. Run the unit of work with
 * {@link withOutbox} so the sender hears of it once it committed.
 */
export async function recordEvents(context: CoreContext, tx: StorageTransaction, events: readonly EventRecord[]): Promise<void> {
  if (events.length === 0) return;
  await tx.appendEvents([...events]);
  if (context.telemetry) recorded.set(tx, [...(recorded.get(tx) ?? []), ...events]);
  const now = context.now();
  await tx.queueWebhookDeliveries([...events], now);
  const handled = context.inProcessEventTypes;
  if (!handled || handled.size === 0) return;
  const inProcess = events
    .filter((event) => handled.has(event.type))
    .map((event) =>
      pendingDelivery(
        webhookDeliveryId(event.id, IN_PROCESS_ENDPOINT),
        { id: IN_PROCESS_ENDPOINT, merchantId: event.merchantId, mode: event.mode },
        event,
        webhookPayload(event),
        now,
      ),
    );
  if (inProcess.length > 0) await tx.insertWebhookDeliveries(inProcess);
}

/**
 * Runs a unit of work that may queue webhook deliveries, then wakes the sender: after the
 * commit, because a sender looking earlier would not see them yet (on a server database the
 * commit is still on its way).
 */
export async function withOutbox<T>(context: CoreContext, work: (tx: StorageTransaction) => Promise<T>): Promise<T> {
  if (!context.telemetry) {
    const result = await context.storage.transaction(work);
    context.onDeliveriesRecorded?.();
    return result;
  }
  let last: StorageTransaction | null = null;
  const result = await context.storage.transaction((tx) => {
    last = tx;
    return work(tx);
  });
  context.onDeliveriesRecorded?.();
  const events = last ? recorded.get(last) : undefined;
  if (events) reportCommittedEvents(context, events);
  return result;
}
