import { sql } from "./sql";
import type { Tables } from "./tables";

/**
 * The outbox's backlog across every merchant. Params: $1 now, $2 the most each count goes to.
 * Every part reads an index over pending deliveries only (migration 8), never the delivery log:
 *
 * - `due` counts pending deliveries due and not leased, from `webhook_deliveries_pending_due`
 *   (a range scan on next_attempt_at, stopped at $2 rows);
 * - `oldest` is the first of them in that index's order: leased ones (at most the workers'
 *   slots) are the only rows passed over;
 * - `retrying` counts pending deliveries attempted before, from `webhook_deliveries_retrying`
 *   (only deliveries that failed an attempt are in it);
 * - `failing` walks that index's distinct endpoints (one probe each, a loose index scan),
 *   keeps those whose latest attempt did not succeed (one primary-key probe of
 *   `webhook_endpoint_outcomes` each; none noted counts as failing), stopped at $2 endpoints.
 */
export function webhookBacklog(t: Tables): string {
  return sql`
    WITH RECURSIVE failing AS (
      (SELECT endpoint_id FROM ${t.deliveries} WHERE status = 'pending' AND attempts > 0 ORDER BY endpoint_id LIMIT 1)
      UNION ALL
      SELECT (
        SELECT p.endpoint_id FROM ${t.deliveries} p
        WHERE p.status = 'pending' AND p.attempts > 0 AND p.endpoint_id > f.endpoint_id
        ORDER BY p.endpoint_id
        LIMIT 1
      )
      FROM failing f
      WHERE f.endpoint_id IS NOT NULL
    )
    SELECT
      (SELECT count(*)::int FROM (
        SELECT 1 FROM ${t.deliveries}
        WHERE status = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
        LIMIT $2::int
      ) d) AS due,
      (SELECT next_attempt_at FROM ${t.deliveries}
        WHERE status = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
        ORDER BY next_attempt_at
        LIMIT 1) AS oldest_due_at,
      (SELECT count(*)::int FROM (
        SELECT 1 FROM ${t.deliveries} WHERE status = 'pending' AND attempts > 0 LIMIT $2::int
      ) r) AS retrying,
      (SELECT count(*)::int FROM (
        SELECT f.endpoint_id FROM failing f
        WHERE f.endpoint_id IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM ${t.endpointOutcomes} o WHERE o.endpoint_id = f.endpoint_id AND o.succeeded)
        LIMIT $2::int
      ) e) AS failing_endpoints
  `;
}
