import { fanOut } from "../../../core/ports/fan-out";
import type { WebhookDeliveryRecord } from "../../../core/webhooks/records";
import type { DeliveryFilter, PageQuery, Scope, WebhookOutboxReads, WebhookOutboxStore } from "../../../core/ports/storage/index";
import { copy, copyEvent } from "./copy";
import { pick, scoped } from "./query";
import { conflict, missing, pushIn, type Run, type StoredDelivery, scopeKey, setIn, type Tables, type Undo, type Writes } from "./tables";
import { endpointsOf } from "./webhook-endpoints";

/** Earliest due first, then the oldest inserted: the order claims take an endpoint's candidates in. */
const byDue = (a: StoredDelivery, b: StoredDelivery): number => a.record.nextAttemptAt! - b.record.nextAttemptAt! || a.position - b.position;

/** The event log, the delivery log and attempts: reads. */
export function webhookOutboxReads(t: Tables, run: Run): WebhookOutboxReads {
  return {
    listEvents: (scope, options) =>
      run("listEvents", () => {
        const invoiceId = options?.invoiceId;
        return (t.eventsByScope.get(scopeKey(scope.merchantId, scope.mode)) ?? [])
          .filter((event) => invoiceId === undefined || event.invoiceId === invoiceId)
          .map(copyEvent);
      }),
    // A position is how many of the scope's events were read: the log is only ever appended to.
    readEventLog: (scope, position, limit) =>
      run("readEventLog", () => {
        const events = t.eventsByScope.get(scopeKey(scope.merchantId, scope.mode)) ?? [];
        const from = position === null ? 0 : Number(position);
        const page = events.slice(from, from + Math.max(0, limit)).map(copyEvent);
        return { events: page, position: String(from + page.length) };
      }),
    eventLogEnd: (scope) => run("eventLogEnd", () => String((t.eventsByScope.get(scopeKey(scope.merchantId, scope.mode)) ?? []).length)),
    getWebhookDelivery: (scope, id) => run("getWebhookDelivery", () => scoped(t.deliveries.get(id)?.record, scope, copy)),
    listWebhookDeliveries: (scope, filter, query) => run("listWebhookDeliveries", () => deliveryPage(t, scope, filter, query)),
    listWebhookAttempts: (deliveryId) => run("listWebhookAttempts", () => (t.attemptsByDelivery.get(deliveryId) ?? []).map(copy)),
  };
}

/** The event log, the delivery log and attempts: writes, and claiming work. */
export function webhookOutboxWrites(t: Tables, run: Run, undo: Undo[]): Writes<WebhookOutboxStore, WebhookOutboxReads> {
  return {
    appendEvents: (events) =>
      run("appendEvents", () => {
        for (const event of events) {
          pushIn(t.eventsByScope, scopeKey(event.merchantId, event.mode), copyEvent(event), undo);
        }
      }),
    queueWebhookDeliveries: (events, now) =>
      run("queueWebhookDeliveries", () => {
        for (const delivery of fanOut(events, (scope) => endpointsOf(t, scope), now)) insertDelivery(t, delivery, undo);
      }),
    insertWebhookDeliveries: (deliveries) =>
      run("insertWebhookDeliveries", () => {
        for (const delivery of deliveries) insertDelivery(t, delivery, undo);
      }),
    lockWebhookDelivery: (id) => run("lockWebhookDelivery", () => pick(t.deliveries.get(id)?.record, copy)),
    updateWebhookDelivery: (delivery) => run("updateWebhookDelivery", () => updateDelivery(t, delivery, undo)),
    insertWebhookAttempt: (attempt) => run("insertWebhookAttempt", () => pushIn(t.attemptsByDelivery, attempt.deliveryId, copy(attempt), undo)),
    recordWebhookAttempt: (attempt, heldUntil, outcome) =>
      run("recordWebhookAttempt", () => {
        pushIn(t.attemptsByDelivery, attempt.deliveryId, copy(attempt), undo);
        const current = t.deliveries.get(attempt.deliveryId)?.record;
        if (!current) return;
        const noted = t.endpointOutcomes.get(current.endpointId);
        if (!noted || noted.at <= outcome.updatedAt)
          setIn(t.endpointOutcomes, current.endpointId, { at: outcome.updatedAt, succeeded: outcome.status === "succeeded" }, undo);
        const held = current.status === "pending" && current.leaseUntil === heldUntil;
        if (held || outcome.status === "succeeded") updateDelivery(t, { ...current, ...outcome, attempts: current.attempts + 1 }, undo);
      }),
    claimWebhookDeliveries: (now, limit, leaseMs, perEndpoint) =>
      run("claimWebhookDeliveries", () => claimDeliveries(t, now, limit, leaseMs, perEndpoint, undo)),
    failPendingWebhookDeliveries: (endpointId, error, now) =>
      run("failPendingWebhookDeliveries", () => {
        const pending = [...(t.pendingByEndpoint.get(endpointId) ?? [])];
        for (const id of pending) {
          const { record } = t.deliveries.get(id)!;
          updateDelivery(t, { ...record, status: "failed", nextAttemptAt: null, leaseUntil: null, lastError: error, updatedAt: now }, undo);
        }
        return pending.length;
      }),
  };
}

function insertDelivery(t: Tables, delivery: WebhookDeliveryRecord, undo: Undo[]): void {
  if (t.deliveries.has(delivery.id)) conflict(`webhook delivery ${delivery.id}`);
  const position = t.deliveryPosition++;
  setIn(t.deliveries, delivery.id, { record: copy(delivery), position }, undo);
  pushIn(t.deliveryIdsByScope, scopeKey(delivery.merchantId, delivery.mode), delivery.id, undo);
  if (delivery.status === "pending") pushIn(t.pendingByEndpoint, delivery.endpointId, delivery.id, undo);
}

function updateDelivery(t: Tables, delivery: WebhookDeliveryRecord, undo: Undo[]): void {
  const stored = t.deliveries.get(delivery.id);
  if (!stored) missing(`webhook delivery ${delivery.id}`);
  setIn(t.deliveries, delivery.id, { record: copy(delivery), position: stored.position }, undo);
  const wasPending = stored.record.status === "pending";
  const isPending = delivery.status === "pending";
  if (wasPending === isPending) return;
  // The order of an endpoint's pending list does not matter: claims sort by due time and
  // insertion position (byDue).
  const queue = t.pendingByEndpoint.get(delivery.endpointId) ?? [];
  setIn(t.pendingByEndpoint, delivery.endpointId, isPending ? [...queue, delivery.id] : queue.filter((id) => id !== delivery.id), undo);
}

function claimDeliveries(t: Tables, now: number, limit: number, leaseMs: number, perEndpoint: number, undo: Undo[]): WebhookDeliveryRecord[] {
  // Per endpoint: what its leases leave of perEndpoint, filled by its earliest due candidates.
  const byMerchant = new Map<string, Array<{ stored: StoredDelivery; rank: number }>>();
  for (const queue of t.pendingByEndpoint.values()) {
    let free = perEndpoint;
    const due: StoredDelivery[] = [];
    for (const id of queue) {
      const stored = t.deliveries.get(id)!;
      const { leaseUntil, nextAttemptAt } = stored.record;
      if (leaseUntil !== null && leaseUntil > now) free--;
      else if (nextAttemptAt !== null && nextAttemptAt <= now) due.push(stored);
    }
    if (free <= 0 || due.length === 0) continue;
    due.sort(byDue);
    for (const [i, stored] of due.slice(0, free).entries()) {
      const list = byMerchant.get(stored.record.merchantId) ?? [];
      list.push({ stored, rank: i + 1 });
      byMerchant.set(stored.record.merchantId, list);
    }
  }
  // Turns: each merchant's first, then each one's second..., a merchant's own going round its endpoints.
  const chosen: Array<{ stored: StoredDelivery; turn: number }> = [];
  for (const candidates of byMerchant.values()) {
    candidates.sort((a, b) => a.rank - b.rank || byDue(a.stored, b.stored));
    for (const [i, { stored }] of candidates.entries()) chosen.push({ stored, turn: i + 1 });
  }
  chosen.sort((a, b) => a.turn - b.turn || byDue(a.stored, b.stored));
  return chosen.slice(0, Math.max(0, limit)).map(({ stored }) => {
    const claimed = { ...stored.record, leaseUntil: now + leaseMs };
    updateDelivery(t, claimed, undo);
    return copy(claimed);
  });
}

/** One newest-first page of a scope's delivery log, by insertion order. */
function deliveryPage(t: Tables, scope: Scope, filter: DeliveryFilter, query: PageQuery): WebhookDeliveryRecord[] {
  const ids = t.deliveryIdsByScope.get(scopeKey(scope.merchantId, scope.mode)) ?? [];
  let start = ids.length - 1;
  if (query.after) {
    const index = ids.lastIndexOf(query.after);
    if (index === -1) return [];
    start = index - 1;
  }
  const out: WebhookDeliveryRecord[] = [];
  for (let i = start; i >= 0 && out.length < query.limit; i--) {
    const { record } = t.deliveries.get(ids[i]!)!;
    if (filter.endpointId !== undefined && record.endpointId !== filter.endpointId) continue;
    if (filter.eventType !== undefined && record.eventType !== filter.eventType) continue;
    if (filter.eventId !== undefined && record.eventId !== filter.eventId) continue;
    if (filter.status !== undefined && record.status !== filter.status) continue;
    out.push(copy(record));
  }
  return out;
}
