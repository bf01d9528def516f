import { sql } from "./sql";
import type { Tables } from "./tables";
import { deliveryColumns } from "./webhook-deliveries";

/**
 * The claim of due webhook deliveries. Params: $1 now, $2 limit, $3 the lease's end, $4 most
 * leased at once per endpoint. Each delivery is on its own schedule, at most $4 leased per
 * endpoint:
 *
 * - `endpoints` walks the distinct endpoints with pending deliveries (a loose index scan: one
 *   probe per endpoint);
 * - `open` counts each one's live leases: what is left of $4 is how many it may take now;
 * - `chosen` takes each endpoint's earliest due unleased deliveries, up to what is left. It
 *   takes `LIMIT $4` and then tests the rank, rather than `LIMIT free`: a LIMIT the planner can
 *   read keeps its row estimates (and so its choice of plan, and of JIT) right;
 * - `turns` ranks them within their merchant, by rank within their endpoint, so a claim goes
 *   round merchants and endpoints rather than emptying one backlog first;
 * - `picked` keeps the first in claim order, a few times the limit (rows other claimers hold
 *   right now are skipped below): a LIMIT of a parameter tells the planner how few they are, so
 *   the rows are fetched by primary key rather than by scanning the table;
 * - `due` locks them. The due and lease tests are repeated on the locked row, so PostgreSQL
 *   re-checks them against its newest version once the lock is held (a lease taken meanwhile by
 *   another worker excludes it); SKIP LOCKED passes over rows another worker is claiming right
 *   now instead of waiting.
 *
 * Two claimers see the same leases and pick from the same earliest deliveries of an endpoint,
 * so together they never lease more than $4. The cost of a claim grows with the endpoints that
 * have due deliveries (up to $4 rows each are ranked), not with how many deliveries are queued.
 * RETURNING has no order: each row comes with its `seq` and `turn` for the caller to sort by.
 */
export function claimWebhookDeliveries(t: Tables): string {
  return sql`
    WITH RECURSIVE endpoints AS (
      (SELECT endpoint_id FROM ${t.deliveries} WHERE status = 'pending' ORDER BY endpoint_id LIMIT 1)
      UNION ALL
      SELECT (
        SELECT p.endpoint_id FROM ${t.deliveries} p
        WHERE p.status = 'pending' AND p.endpoint_id > e.endpoint_id
        ORDER BY p.endpoint_id
        LIMIT 1
      )
      FROM endpoints e
      WHERE e.endpoint_id IS NOT NULL
    ),
    open AS (
      SELECT endpoint_id, $4 - (
        SELECT count(*) FROM ${t.deliveries} b
        WHERE b.endpoint_id = e.endpoint_id AND b.status = 'pending' AND b.lease_until > $1
      ) AS free
      FROM endpoints e
      WHERE e.endpoint_id IS NOT NULL
    ),
    chosen AS (
      SELECT c.id, c.merchant_id, c.next_attempt_at, c.seq, c.rank
      FROM open o
      CROSS JOIN LATERAL (
        SELECT x.id, x.merchant_id, x.next_attempt_at, x.seq, row_number() OVER (ORDER BY x.next_attempt_at, x.seq) AS rank
        FROM (
          SELECT id, merchant_id, next_attempt_at, seq FROM ${t.deliveries}
          WHERE endpoint_id = o.endpoint_id AND status = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
          ORDER BY next_attempt_at, seq
          LIMIT $4::int
        ) x
      ) c
      WHERE o.free > 0 AND c.rank <= o.free
    ),
    turns AS (
      SELECT id, next_attempt_at, seq, row_number() OVER (PARTITION BY merchant_id ORDER BY rank, next_attempt_at, seq) AS turn
      FROM chosen
    ),
    picked AS (
      SELECT id, row_number() OVER (ORDER BY turn, next_attempt_at, seq) AS n
      FROM turns
      ORDER BY n
      LIMIT 4 * $2::int
    ),
    due AS MATERIALIZED (
      SELECT d.id, p.n AS turn
      FROM picked p
      JOIN ${t.deliveries} d ON d.id = p.id
      WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1)
      ORDER BY p.n
      LIMIT $2
      FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE ${t.deliveries} d
    SET lease_until = $3
    FROM due
    WHERE d.id = due.id
    RETURNING ${deliveryColumns.qualified("d")}, d.seq, due.turn
  `;
}
