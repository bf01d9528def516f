import type { EventRecord, WebhookAttemptRecord, WebhookDeliveryRecord, WebhookDeliveryStatus } from "../../webhooks/records";
import type { PageQuery, Scope } from "./scope";

/** Filters of the webhook delivery log. */
export interface DeliveryFilter {
  endpointId?: string;
  /** Only the deliveries of this event (one per endpoint it went to). */
  eventId?: string;
  eventType?: string;
  status?: WebhookDeliveryStatus;
}

/** What one attempt leads to for its delivery (see `recordWebhookAttempt`); `attempts` goes up by one. */
export type WebhookAttemptOutcome = Pick<WebhookDeliveryRecord, "status" | "nextAttemptAt" | "leaseUntil" | "lastStatusCode" | "lastError" | "updatedAt">;

/** One page of an event log (see `readEventLog`). */
export interface EventLogPage {
  /** The events, in the order appended. */
  events: EventRecord[];
  /** The position after the last of them (the one given when there are none): where the next read starts. */
  position: string;
}

/**
 * Reads of the outbox: the event log, the delivery log (one delivery per event and endpoint)
 * and each delivery's attempts. A read given a `Scope` never answers another merchant's or
 * mode's events or deliveries.
 */
export interface WebhookOutboxReads {
  /** Events of `scope`, in the order appended (oldest first), optionally those of one resource only (`invoiceId`: an invoice, payout or exchange id). */
  listEvents(scope: Scope, options?: { invoiceId?: string }): Promise<EventRecord[]>;
  /**
   * Up to `limit` events of `scope` after `position` (null: from the start), and the position
   * after the last. A position is an opaque string this adapter returned (from here or
   * `eventLogEnd`): decimal digits, or two runs of digits joined by `_`; one beyond the end
   * answers no events and itself.
   *
   * The log is read in commit-safe order: a reader that pages forward from the positions it is
   * given sees every event exactly once, even when transactions commit in another order than
   * they appended (one that appended first may commit last). An adapter whose transactions run
   * one at a time reads in the order appended; one with concurrent transactions answers only
   * events that no still-running transaction can come before (PostgreSQL: below the oldest
   * running transaction), so an event may be listed a moment after it committed, never skipped.
   */
  readEventLog(scope: Scope, position: string | null, limit: number): Promise<EventLogPage>;
  /**
   * The position at the end of `scope`'s event log now: reading after it answers every event
   * committed later. It may also answer a few that committed just before (those a reader could
   * not yet be sure of), never miss one.
   */
  eventLogEnd(scope: Scope): Promise<string>;
  /** The delivery with this id in `scope`, or null. */
  getWebhookDelivery(scope: Scope, id: string): Promise<WebhookDeliveryRecord | null>;
  /** Deliveries of `scope` matching `filter`, newest first (by insertion), one page of them. */
  listWebhookDeliveries(scope: Scope, filter: DeliveryFilter, page: PageQuery): Promise<WebhookDeliveryRecord[]>;
  /** The attempts of one delivery, in the order appended (oldest first); empty for an unknown delivery. */
  listWebhookAttempts(deliveryId: string): Promise<WebhookAttemptRecord[]>;
}

/**
 * The transactional outbox, as a transaction sees it: events are appended, and queued to the
 * subscribed endpoints, in the same transaction as the state change that caused them, so an
 * event is sent if and only if its change committed. Delivery workers then claim deliveries
 * under leases, record each attempt and its outcome, and settle them. Delivery ids are
 * unique; a delivery keeps its place in insertion order whatever happens to it.
 */
export interface WebhookOutboxStore extends WebhookOutboxReads {
  /** Appends events (the event log), in the order given. */
  appendEvents(events: EventRecord[]): Promise<void>;
  /**
   * The outbox's fan-out: for each event, in the order given, stores one pending delivery per
   * webhook endpoint of the event's (merchantId, mode) that is enabled and subscribed to its type
   * (`events` null, or naming the type), in the endpoints' (createdAt, id) order, as this
   * transaction sees them. Each delivery: id `webhookDeliveryId(event.id, endpoint.id)`, payload
   * `webhookPayload(event)`, status pending, attempts 0, nextAttemptAt, createdAt and updatedAt
   * `now`, no lease, status code or error. No matching endpoint: nothing is stored. (`fanOut`
   * computes exactly these records.) Matching inside storage lets an adapter do it without
   * reading the endpoints back first. Throws if a delivery id exists (the same event queued to
   * the same endpoint twice).
   */
  queueWebhookDeliveries(events: EventRecord[], now: number): Promise<void>;
  /**
   * Stores new deliveries. Their insertion order is kept: the delivery log lists by it, and
   * `claimWebhookDeliveries` breaks ties on it. Throws if an id exists.
   */
  insertWebhookDeliveries(deliveries: WebhookDeliveryRecord[]): Promise<void>;
  /** Locks and returns the delivery with this id (any merchant), or null. */
  lockWebhookDelivery(id: string): Promise<WebhookDeliveryRecord | null>;
  /** Replaces the stored delivery with the same id (which must exist: throws otherwise), keeping its place in the log. */
  updateWebhookDelivery(delivery: WebhookDeliveryRecord): Promise<void>;
  /** Appends one attempt to a delivery's log. */
  insertWebhookAttempt(attempt: WebhookAttemptRecord): Promise<void>;
  /**
   * Records one attempt of a claimed delivery and what it leads to, as one atomic step: appends
   * `attempt` to the log of delivery `attempt.deliveryId`, and applies `outcome` to that
   * delivery (its fields, and `attempts` one up) when the claim that leased it until
   * `heldUntil` still holds it (it is pending with exactly that `leaseUntil`), or, whoever holds
   * it now, when `outcome.status` is "succeeded" (the message arrived). Otherwise (the lease ran
   * out and another worker took the delivery over, or it was settled meanwhile) only the attempt
   * is appended. Either way the outcome becomes its endpoint's latest (whether it succeeded, at
   * `outcome.updatedAt`) unless one recorded at a later time is noted already: what
   * `webhookBacklog` counts an endpoint failing or healthy by. Nothing is returned, so an
   * adapter may send it with the commit.
   */
  recordWebhookAttempt(attempt: WebhookAttemptRecord, heldUntil: number, outcome: WebhookAttemptOutcome): Promise<void>;
  /**
   * Claims work for a delivery worker. Every delivery is on its own schedule: a candidate is
   * any pending delivery with `nextAttemptAt <= now` and no live lease (`leaseUntil` null or
   * `<= now`), whatever else is pending for its endpoint. Per endpoint, at most `perEndpoint`
   * deliveries are leased at once: its pending deliveries with `leaseUntil > now` count against
   * that, and of its candidates the earliest due (then the oldest inserted) fill what is left.
   * Of all those, at most `limit` are claimed, shared out in turns so that no endpoint's or
   * merchant's backlog crowds the others out: a delivery's turn is its rank among its
   * merchant's chosen candidates, ranked by (rank within its endpoint, nextAttemptAt,
   * insertion); lower turns first, ties by (nextAttemptAt, insertion). Claimed deliveries get
   * `leaseUntil = now + leaseMs` and are returned in that order. Two workers claiming at once
   * never get the same delivery and together never lease more than `perEndpoint` of one
   * endpoint; a worker that dies leaves its claims to expire and be claimed again.
   */
  claimWebhookDeliveries(now: number, limit: number, leaseMs: number, perEndpoint: number): Promise<WebhookDeliveryRecord[]>;
  /**
   * Settles every pending delivery of an endpoint as failed with `error` (the endpoint was
   * deleted or disabled): no next attempt, no lease, `updatedAt` `now`. Returns how many there were.
   */
  failPendingWebhookDeliveries(endpointId: string, error: string, now: number): Promise<number>;
}
