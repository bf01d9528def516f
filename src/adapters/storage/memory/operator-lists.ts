import type { WebhookDeliveryRecord } from "../../../core/webhooks/records";
import type { OperatorDeliveryFilter, OperatorListReads } from "../../../core/ports/storage/index";
import { copy } from "./copy";
import { compareCreated } from "./query";
import type { Run, StoredDelivery, Tables } from "./tables";

/** Whether a delivery is failing: settled as failed, or waiting for a retry after an attempt. */
const failing = (record: WebhookDeliveryRecord): boolean => record.status === "failed" || (record.status === "pending" && record.attempts > 0);

/**
 * The operator's reads across merchants. They walk whole tables: they serve a command run by
 * hand, not requests, and an index kept for them would cost every write of the hot paths.
 */
export function operatorListReads(t: Tables, run: Run): OperatorListReads {
  return {
    listMerchants: (query) =>
      run("listMerchants", () => {
        const newest = [...t.merchants.values()].sort((a, b) => compareCreated(b, a));
        let start = 0;
        if (query.after) {
          start = newest.findIndex((merchant) => merchant.id === query.after) + 1;
          if (start === 0) return [];
        }
        return newest.slice(start, start + Math.max(0, query.limit)).map(copy);
      }),
    listAllWebhookDeliveries: (filter, query) => run("listAllWebhookDeliveries", () => deliveryPage(t, filter, query.limit, query.after ?? null)),
  };
}

function deliveryPage(t: Tables, filter: OperatorDeliveryFilter, limit: number, after: string | null): WebhookDeliveryRecord[] {
  let below = Number.POSITIVE_INFINITY;
  if (after) {
    const cursor = t.deliveries.get(after);
    if (!cursor) return [];
    below = cursor.position;
  }
  const stored: StoredDelivery[] = [...t.deliveries.values()].sort((a, b) => b.position - a.position);
  const out: WebhookDeliveryRecord[] = [];
  for (const { record, position } of stored) {
    if (out.length >= limit) break;
    if (position >= below) continue;
    if (filter.merchantId !== undefined && record.merchantId !== filter.merchantId) continue;
    if (filter.mode !== undefined && record.mode !== filter.mode) continue;
    if (filter.failing && !failing(record)) continue;
    out.push(copy(record));
  }
  return out;
}
