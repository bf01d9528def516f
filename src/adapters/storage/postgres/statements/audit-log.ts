import type { AuditEntryRecord } from "../../../../core/audit/records";
import { col, columns, epochMs } from "./columns";
import { sql } from "./sql";
import type { Tables } from "./tables";

/** The columns of `audit_log`. */
export const auditColumns = columns<AuditEntryRecord>({
  id: col("id"),
  actor: col("actor"),
  action: col("action"),
  recordId: col("record_id"),
  merchantId: col("merchant_id"),
  // Null for a merchant setting, which covers both modes: text passes null through as it is.
  mode: col("mode"),
  at: col("at", epochMs),
});

/**
 * The audit log, newest first by (at, id). Params: merchant id or null (every merchant),
 * limit, and the id of the last entry of the previous page or null; an `after` that names no
 * entry gives an empty page.
 */
export function auditLogStatements(t: Tables) {
  return {
    listAuditLog: sql`
      WITH last AS (
        SELECT at, id FROM ${t.auditLog} WHERE id = $3
      )
      SELECT ${auditColumns.qualified("a")}
      FROM ${t.auditLog} a
      WHERE ($1::text IS NULL OR a.merchant_id = $1)
        AND ($3::text IS NULL OR (a.at, a.id) < (SELECT at, id FROM last))
      ORDER BY a.at DESC, a.id DESC
      LIMIT $2
    `,
    insertAuditEntry: sql`
      INSERT INTO ${t.auditLog} (${auditColumns.list})
      VALUES (${auditColumns.values})
      ON CONFLICT DO NOTHING
      RETURNING 1
    `,
  };
}
