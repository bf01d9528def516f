import type { IdempotencyRecord } from "../../../../core/idempotency/records";
import { after, col, columns, epochMs, intOrNull, textOrNull } from "./columns";
import { sql } from "./sql";
import type { Tables } from "./tables";

/**
 * The columns of `idempotency_keys`, one row per (merchant, mode, key). The table has one more,
 * `lease_until`: the end of a started request's lease on the server's clock, which only the
 * statements here read and write.
 */
export const idempotencyColumns = columns<IdempotencyRecord>(
  {
    merchantId: col("merchant_id"),
    mode: col("mode"),
    key: col("key"),
    requestHash: col("request_hash"),
    state: col("state"),
    responseStatus: col("response_status", intOrNull),
    responseBody: col("response_body", textOrNull),
    createdAt: col("created_at", epochMs),
    expiresAt: col("expires_at", epochMs),
    leaseToken: col("lease_token", textOrNull),
  },
  ["merchantId", "mode", "key"],
);

/** What claimIdempotencyKey takes after the record's parameters. */
const claim = after(idempotencyColumns, ["leaseMs"]);

/** Idempotency keys: the answer of a request kept for its repeats. */
export function idempotencyStatements(t: Tables) {
  return {
    // Stores the record, or replaces one whose time is up or whose request's lease lapsed (on the
    // server's clock, the one every instance shares); a live one is left alone (and locked: ON
    // CONFLICT locks the row it conflicts with) and read back by the next statement. A key
    // stored before leases existed has none: it counts as lapsed.
    claimIdempotencyKey: sql`
      INSERT INTO ${t.idempotency} AS k (${idempotencyColumns.list}, lease_until)
      VALUES (${idempotencyColumns.values}, clock_timestamp() + ${claim.leaseMs} * interval '1 millisecond')
      ON CONFLICT ON CONSTRAINT idempotency_key_once DO UPDATE
      SET ${idempotencyColumns.replacements}, lease_until = EXCLUDED.lease_until
      WHERE k.expires_at <= EXCLUDED.created_at
        OR (k.state = 'started' AND k.request_hash = EXCLUDED.request_hash AND coalesce(k.lease_until, '-infinity') <= clock_timestamp())
      RETURNING 1
    `,
    getIdempotencyKey: sql`
      SELECT ${idempotencyColumns.list}
      FROM ${t.idempotency}
      WHERE merchant_id = $1 AND mode = $2 AND key = $3
    `,
    // Params: merchant, mode, key, lease token, then the response's status and body.
    completeIdempotencyKey: sql`
      UPDATE ${t.idempotency}
      SET state = 'completed', response_status = $5, response_body = $6, lease_until = NULL
      WHERE merchant_id = $1 AND mode = $2 AND key = $3 AND lease_token = $4
      RETURNING 1
    `,
    deleteIdempotencyKey: sql`
      DELETE FROM ${t.idempotency}
      WHERE merchant_id = $1 AND mode = $2 AND key = $3 AND lease_token = $4
    `,
    // Params: now, limit. The victims are picked once (a materialized CTE): a subquery under IN
    // may be re-run per row, and with SKIP LOCKED each run can pick others, deleting more than
    // the limit.
    deleteExpiredIdempotencyKeys: sql`
      WITH doomed AS MATERIALIZED (
        SELECT merchant_id, mode, key FROM ${t.idempotency}
        WHERE expires_at <= $1
        LIMIT $2
        FOR UPDATE SKIP LOCKED
      )
      DELETE FROM ${t.idempotency} k
      USING doomed
      WHERE k.merchant_id = doomed.merchant_id AND k.mode = doomed.mode AND k.key = doomed.key
    `,
  };
}
