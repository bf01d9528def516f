import type { EventType, WebhookEndpointRecord } from "../../../../core/webhooks/records";
import { col, columns, epochMs, json, jsonOrNull, textOrNull } from "./columns";
import { sql } from "./sql";
import type { Tables } from "./tables";

/** The columns of `webhook_endpoints`. */
export const endpointColumns = columns<WebhookEndpointRecord>({
  id: col("id"),
  merchantId: col("merchant_id"),
  mode: col("mode"),
  url: col("url"),
  events: col("events", jsonOrNull<EventType[]>()),
  secrets: col("secrets", json<WebhookEndpointRecord["secrets"]>()),
  status: col("status"),
  disabledReason: col("disabled_reason", textOrNull),
  createdAt: col("created_at", epochMs),
  updatedAt: col("updated_at", epochMs),
});

/** A merchant's webhook endpoints. */
export function webhookEndpointStatements(t: Tables) {
  return {
    getWebhookEndpoint: sql`
      SELECT ${endpointColumns.list}
      FROM ${t.endpoints}
      WHERE id = $1
    `,
    listWebhookEndpoints: sql`
      SELECT ${endpointColumns.list}
      FROM ${t.endpoints}
      WHERE merchant_id = $1 AND mode = $2
      ORDER BY created_at, id
    `,
    insertWebhookEndpoint: sql`
      INSERT INTO ${t.endpoints} (${endpointColumns.list})
      VALUES (${endpointColumns.values})
      ON CONFLICT DO NOTHING
      RETURNING 1
    `,
    lockWebhookEndpoint: sql`
      SELECT ${endpointColumns.list}
      FROM ${t.endpoints}
      WHERE id = $1
      FOR UPDATE
    `,
    updateWebhookEndpoint: sql`
      UPDATE ${t.endpoints}
      SET ${endpointColumns.assignments}
      WHERE ${endpointColumns.keyMatch}
    `,
    deleteWebhookEndpoint: sql`
      DELETE FROM ${t.endpoints}
      WHERE id = $1
    `,
  };
}
