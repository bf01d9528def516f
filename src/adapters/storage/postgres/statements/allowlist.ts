import type { AllowedAddressRecord } from "../../../../core/payouts/records";
import { col, columns, epochMs, epochMsOrNull, textOrNull } from "./columns";
import { sql } from "./sql";
import type { Tables } from "./tables";

/** The columns of `payout_addresses`. */
export const allowedAddressColumns = columns<AllowedAddressRecord>({
  id: col("id"),
  merchantId: col("merchant_id"),
  mode: col("mode"),
  network: col("network"),
  address: col("address"),
  addressKey: col("address_key"),
  label: col("label", textOrNull),
  proposedBy: col("proposed_by"),
  approvedBy: col("approved_by", textOrNull),
  approvedAt: col("approved_at", epochMsOrNull),
  usableAt: col("usable_at", epochMsOrNull),
  createdAt: col("created_at", epochMs),
});

/** The merchants' payout allowlists. Inserts report a conflict (id, or the address of a merchant, mode and network) by returning no row. */
export function allowlistStatements(t: Tables) {
  return {
    getAllowedAddress: sql`
      SELECT ${allowedAddressColumns.list}
      FROM ${t.payoutAddresses}
      WHERE id = $1
    `,
    // Params: merchant id, mode or null for both.
    listAllowedAddresses: sql`
      SELECT ${allowedAddressColumns.list}
      FROM ${t.payoutAddresses}
      WHERE merchant_id = $1 AND ($2::text IS NULL OR mode = $2)
      ORDER BY created_at, id
    `,
    findAllowedAddress: sql`
      SELECT ${allowedAddressColumns.list}
      FROM ${t.payoutAddresses}
      WHERE merchant_id = $1 AND mode = $2 AND network = $3 AND address_key = $4
    `,
    insertAllowedAddress: sql`
      INSERT INTO ${t.payoutAddresses} (${allowedAddressColumns.list})
      VALUES (${allowedAddressColumns.values})
      ON CONFLICT DO NOTHING
      RETURNING 1
    `,
    lockAllowedAddress: sql`
      SELECT ${allowedAddressColumns.list}
      FROM ${t.payoutAddresses}
      WHERE id = $1
      FOR UPDATE
    `,
    updateAllowedAddress: sql`
      UPDATE ${t.payoutAddresses}
      SET ${allowedAddressColumns.assignments}
      WHERE ${allowedAddressColumns.keyMatch}
    `,
    deleteAllowedAddress: sql`
      DELETE FROM ${t.payoutAddresses}
      WHERE id = $1
    `,
  };
}
