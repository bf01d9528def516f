import type { ApiKeyRecord, MerchantRecord, PayoutApprovalRule } from "../../../../core/merchants/records";
import type { ApiKeyMatch } from "../../../../core/ports/storage/index";
import { type Row, bool, col, columns, epochMs, epochMsOrNull, jsonOrNull, textOrNull } from "./columns";
import { sql } from "./sql";
import type { Tables } from "./tables";

/** The columns of `merchants`. */
export const merchantColumns = columns<MerchantRecord>({
  id: col("id"),
  name: col("name"),
  settleCurrency: col("settle_currency", textOrNull),
  createdAt: col("created_at", epochMs),
  payoutApproval: col("payout_approval", jsonOrNull<PayoutApprovalRule>()),
  payoutAllowlist: col("payout_allowlist", bool),
});

/** The columns of `api_keys`. */
export const apiKeyColumns = columns<ApiKeyRecord>({
  id: col("id"),
  merchantId: col("merchant_id"),
  mode: col("mode"),
  hash: col("hash"),
  prefix: col("prefix"),
  createdAt: col("created_at", epochMs),
  revokedAt: col("revoked_at", epochMsOrNull),
});

/** A row of findApiKeyByHash: the key's columns, and its merchant's renamed `merchant_*` (`merchant_id` is the key's). */
export const readApiKeyMatch = (row: Row): ApiKeyMatch => ({ key: apiKeyColumns.read(row), merchant: merchantColumns.readRenamed(row, "merchant_") });

/** Merchants and their API keys. Inserts report a conflict by returning no row (see `buildStatements`). */
export function merchantStatements(t: Tables) {
  return {
    getMerchant: sql`
      SELECT ${merchantColumns.list}
      FROM ${t.merchants}
      WHERE id = $1
    `,
    insertMerchant: sql`
      INSERT INTO ${t.merchants} (${merchantColumns.list})
      VALUES (${merchantColumns.values})
      ON CONFLICT DO NOTHING
      RETURNING 1
    `,
    updateMerchant: sql`
      UPDATE ${t.merchants}
      SET ${merchantColumns.assignments}
      WHERE ${merchantColumns.keyMatch}
    `,

    // With the key's merchant: authentication needs both, and one statement is one round trip.
    findApiKeyByHash: sql`
      SELECT ${apiKeyColumns.qualified("k")}, ${merchantColumns.renamed("m", "merchant_", ["id"])}
      FROM ${t.apiKeys} k
      JOIN ${t.merchants} m ON m.id = k.merchant_id
      WHERE k.hash = $1
    `,
    getApiKey: sql`
      SELECT ${apiKeyColumns.list}
      FROM ${t.apiKeys}
      WHERE id = $1
    `,
    listApiKeys: sql`
      SELECT ${apiKeyColumns.list}
      FROM ${t.apiKeys}
      WHERE merchant_id = $1
      ORDER BY created_at, seq
    `,
    insertApiKey: sql`
      INSERT INTO ${t.apiKeys} (${apiKeyColumns.list})
      VALUES (${apiKeyColumns.values})
      ON CONFLICT DO NOTHING
      RETURNING 1
    `,
    revokeApiKey: sql`
      UPDATE ${t.apiKeys}
      SET revoked_at = $2
      WHERE id = $1 AND revoked_at IS NULL
    `,
  };
}
