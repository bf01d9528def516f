import type { WebhookAttemptRecord, WebhookDeliveryRecord } from "../../../../core/webhooks/records";
import type { WebhookAttemptOutcome } from "../../../../core/ports/storage/index";
import { after, col, columns, epochMs, epochMsOrNull, int, intOrNull, textOrNull } from "./columns";
import { sql } from "./sql";
import type { Tables } from "./tables";

/** The columns of `webhook_deliveries`. */
export const deliveryColumns = columns<WebhookDeliveryRecord>({
  id: col("id"),
  merchantId: col("merchant_id"),
  mode: col("mode"),
  endpointId: col("endpoint_id"),
  eventId: col("event_id"),
  eventType: col("event_type"),
  payload: col("payload"),
  status: col("status"),
  attempts: col("attempts", int),
  nextAttemptAt: col("next_attempt_at", epochMsOrNull),
  leaseUntil: col("lease_until", epochMsOrNull),
  lastStatusCode: col("last_status_code", intOrNull),
  lastError: col("last_error", textOrNull),
  createdAt: col("created_at", epochMs),
  updatedAt: col("updated_at", epochMs),
});

/** The columns of `webhook_attempts`. */
export const attemptColumns = columns<WebhookAttemptRecord>({
  id: col("id"),
  deliveryId: col("delivery_id"),
  at: col("at", epochMs),
  statusCode: col("status_code", intOrNull),
  durationMs: col("duration_ms", int),
  error: col("error", textOrNull),
});

/** What recordWebhookAttempt takes after the attempt's parameters, in this order (see `recordAttemptParams`). */
const outcome = after(attemptColumns, ["heldUntil", "status", "nextAttemptAt", "leaseUntil", "lastStatusCode", "lastError", "updatedAt"]);

/** The parameters of recordWebhookAttempt. */
export function recordAttemptParams(attempt: WebhookAttemptRecord, heldUntil: number, o: WebhookAttemptOutcome): unknown[] {
  return [...attemptColumns.params(attempt), heldUntil, o.status, o.nextAttemptAt, o.leaseUntil, o.lastStatusCode, o.lastError, o.updatedAt];
}

/** The webhook outbox: deliveries, queued with their events, and the attempts to send them (the claim: `webhook-claim.ts`). */
export function webhookDeliveryStatements(t: Tables) {
  const a = attemptColumns.param;
  return {
    getWebhookDelivery: sql`
      SELECT ${deliveryColumns.list}
      FROM ${t.deliveries}
      WHERE id = $1
    `,
    // Params: merchant, mode, then the filters (null: any) endpoint, event type, status, and
    // after, limit. An `after` that names no delivery of the scope gives an empty page (the
    // comparison is null).
    listWebhookDeliveries: sql`
      SELECT ${deliveryColumns.list}
      FROM ${t.deliveries}
      WHERE merchant_id = $1 AND mode = $2
        AND ($3::text IS NULL OR endpoint_id = $3)
        AND ($4::text IS NULL OR event_type = $4)
        AND ($5::text IS NULL OR status = $5)
        AND ($6::text IS NULL OR seq < (SELECT seq FROM ${t.deliveries} WHERE id = $6 AND merchant_id = $1 AND mode = $2))
        AND ($8::text IS NULL OR event_id = $8)
      ORDER BY seq DESC
      LIMIT $7
    `,
    insertWebhookDelivery: sql`
      INSERT INTO ${t.deliveries} (${deliveryColumns.list})
      VALUES (${deliveryColumns.values})
      ON CONFLICT DO NOTHING
      RETURNING 1
    `,
    // Several deliveries: one array per column, inserted in the order given.
    insertWebhookDeliveries: sql`
      INSERT INTO ${t.deliveries} (${deliveryColumns.list})
      SELECT ${deliveryColumns.unnested}
      FROM unnest(${deliveryColumns.arrays}) WITH ORDINALITY AS d(${deliveryColumns.list}, n)
      ORDER BY n
      ON CONFLICT DO NOTHING
      RETURNING 1
    `,
    // The outbox's fan-out (see queueWebhookDeliveries): each event joined to the subscribed
    // endpoints of its scope, ids as webhookDeliveryId computes them, in event then endpoint
    // order, every delivery pending and due at once. One event (the usual case) takes plain
    // values: $1 id, $2 merchant, $3 mode, $4 type, $5 payload; $6 now.
    queueWebhookDelivery: sql`
      INSERT INTO ${t.deliveries} (
        id, merchant_id, mode, endpoint_id, event_id, event_type, payload,
        status, attempts, next_attempt_at, lease_until, last_status_code, last_error, created_at, updated_at
      )
      SELECT
        'msg_' || left(encode(sha256(convert_to($1 || ':' || e.id, 'UTF8')), 'hex'), 32), $2, $3, e.id, $1, $4, $5,
        'pending', 0, $6::bigint, NULL, NULL, NULL, $6::bigint, $6::bigint
      FROM ${t.endpoints} e
      WHERE e.merchant_id = $2 AND e.mode = $3 AND e.status = 'enabled' AND (e.events IS NULL OR e.events::jsonb ? $4)
      ORDER BY e.created_at, e.id
    `,
    // Several events: the same, with one array per event column ($1 to $5) and $6 now.
    queueWebhookDeliveries: sql`
      INSERT INTO ${t.deliveries} (
        id, merchant_id, mode, endpoint_id, event_id, event_type, payload,
        status, attempts, next_attempt_at, lease_until, last_status_code, last_error, created_at, updated_at
      )
      SELECT
        'msg_' || left(encode(sha256(convert_to(v.id || ':' || e.id, 'UTF8')), 'hex'), 32), v.merchant_id, v.mode, e.id, v.id, v.type, v.payload,
        'pending', 0, $6::bigint, NULL, NULL, NULL, $6::bigint, $6::bigint
      FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS v(id, merchant_id, mode, type, payload, n)
      JOIN ${t.endpoints} e ON e.merchant_id = v.merchant_id AND e.mode = v.mode
      WHERE e.status = 'enabled' AND (e.events IS NULL OR e.events::jsonb ? v.type)
      ORDER BY v.n, e.created_at, e.id
    `,
    lockWebhookDelivery: sql`
      SELECT ${deliveryColumns.list}
      FROM ${t.deliveries}
      WHERE id = $1
      FOR UPDATE
    `,
    updateWebhookDelivery: sql`
      UPDATE ${t.deliveries}
      SET ${deliveryColumns.assignments}
      WHERE ${deliveryColumns.keyMatch}
    `,
    // Params: endpoint, error, now.
    failPendingWebhookDeliveries: sql`
      UPDATE ${t.deliveries}
      SET status = 'failed', next_attempt_at = NULL, lease_until = NULL, last_error = $2, updated_at = $3
      WHERE endpoint_id = $1 AND status = 'pending'
    `,

    listWebhookAttempts: sql`
      SELECT ${attemptColumns.list}
      FROM ${t.attempts}
      WHERE delivery_id = $1
      ORDER BY seq
    `,
    insertWebhookAttempt: sql`
      INSERT INTO ${t.attempts} (${attemptColumns.list})
      VALUES (${attemptColumns.values})
    `,
    // One statement: the attempt goes in whatever happens; the delivery changes only while the
    // claim holds it (its lease is still the one the claim set, heldUntil), or for a success.
    // The attempt is logged, its outcome noted as its endpoint's latest unless a later one is
    // (by the outcome's time), and the delivery settled while the claim holds it.
    recordWebhookAttempt: sql`
      WITH logged AS (
        INSERT INTO ${t.attempts} (${attemptColumns.list})
        VALUES (${attemptColumns.values})
      ), noted AS (
        INSERT INTO ${t.endpointOutcomes} AS o (endpoint_id, at, succeeded)
        SELECT endpoint_id, ${outcome.updatedAt}, ${outcome.status} = 'succeeded'
        FROM ${t.deliveries}
        WHERE id = ${a.deliveryId}
        ON CONFLICT (endpoint_id) DO UPDATE SET at = excluded.at, succeeded = excluded.succeeded
        WHERE o.at <= excluded.at
      )
      UPDATE ${t.deliveries}
      SET status = ${outcome.status}, next_attempt_at = ${outcome.nextAttemptAt}, lease_until = ${outcome.leaseUntil},
        last_status_code = ${outcome.lastStatusCode}, last_error = ${outcome.lastError}, updated_at = ${outcome.updatedAt},
        attempts = attempts + 1
      WHERE id = ${a.deliveryId}
        AND ((status = 'pending' AND lease_until = ${outcome.heldUntil}) OR ${outcome.status} = 'succeeded')
    `,
  };
}
