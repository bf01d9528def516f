import { merchantColumns } from "./merchants";
import { sql } from "./sql";
import type { Tables } from "./tables";
import { deliveryColumns } from "./webhook-deliveries";

/**
 * The operator's reads across merchants (the command line). An `after` that names no record
 * leaves its comparison null: an empty page.
 */
export function operatorListStatements(t: Tables) {
  return {
    // Params: limit, after.
    listMerchants: sql`
      SELECT ${merchantColumns.list}
      FROM ${t.merchants}
      WHERE ($2::text IS NULL OR (created_at, id) < (SELECT created_at, id FROM ${t.merchants} WHERE id = $2))
      ORDER BY created_at DESC, id DESC
      LIMIT $1
    `,
    // Params: merchant, mode (null: any), failing (failed, or pending after an attempt), after,
    // limit. Newest first by insertion, as the scoped log; the unique seq index serves the order.
    listAllWebhookDeliveries: sql`
      SELECT ${deliveryColumns.list}
      FROM ${t.deliveries}
      WHERE ($1::text IS NULL OR merchant_id = $1)
        AND ($2::text IS NULL OR mode = $2)
        AND (NOT $3::boolean OR status = 'failed' OR (status = 'pending' AND attempts > 0))
        AND ($4::text IS NULL OR seq < (SELECT seq FROM ${t.deliveries} WHERE id = $4))
      ORDER BY seq DESC
      LIMIT $5
    `,
  };
}
