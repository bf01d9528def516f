import type { EventRecord } from "../../../../core/webhooks/records";
import { type Codec, col, columns, epochMs, json } from "./columns";
import { sql } from "./sql";
import type { Tables } from "./tables";

// An event's data as JSON, kept from its append for the payload of its deliveries (the outbox
// writes both in one unit of work): the payment view is serialized once, not twice.
const dataJson = new WeakMap<object, string>();

/** An event's data as JSON text, serialized once per data object. */
export function eventDataJson(data: Record<string, unknown>): string {
  if (typeof data !== "object" || data === null) return JSON.stringify(data);
  let text = dataJson.get(data);
  if (text === undefined) {
    text = JSON.stringify(data);
    dataJson.set(data, text);
  }
  return text;
}

/** An event's data: a `json` column, sent as its text from `eventDataJson`. */
const eventData: Codec<Record<string, unknown>> = { ...json<Record<string, unknown>>(), write: eventDataJson };

/** The columns of `events`. */
export const eventColumns = columns<EventRecord>({
  id: col("id"),
  merchantId: col("merchant_id"),
  mode: col("mode"),
  type: col("type"),
  invoiceId: col("invoice_id"),
  data: col("data", eventData),
  createdAt: col("created_at", epochMs),
});

/** The event log. Appends have no key to collide on: they are sent deferred. */
export function eventStatements(t: Tables) {
  return {
    listEvents: sql`
      SELECT ${eventColumns.list}
      FROM ${t.events}
      WHERE merchant_id = $1 AND mode = $2
      ORDER BY seq
    `,
    // A position is the (txid, seq) of the last event read. Only events below the oldest
    // running transaction are read: they all committed, and every later one sorts after them
    // (migration 15). Params: $3 txid, $4 seq, $5 limit.
    readEventLog: sql`
      SELECT txid::text AS txid, seq, ${eventColumns.list}
      FROM ${t.events}
      WHERE merchant_id = $1 AND mode = $2
        AND (txid, seq) > ($3::xid8, $4::bigint)
        AND txid < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY txid, seq
      LIMIT $5
    `,
    // The end as it stands: every event below the horizon counts as read.
    eventLogEnd: sql`
      SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS txid
    `,
    // A position of an earlier version (a seq alone): where that event now sorts.
    eventLogLegacyPosition: sql`
      SELECT txid::text AS txid
      FROM ${t.events}
      WHERE seq = $1
    `,
    listEventsOfInvoice: sql`
      SELECT ${eventColumns.list}
      FROM ${t.events}
      WHERE invoice_id = $3 AND merchant_id = $1 AND mode = $2
      ORDER BY seq
    `,
    insertEvent: sql`
      INSERT INTO ${t.events} (${eventColumns.list})
      VALUES (${eventColumns.values})
    `,
    // Several events: one array per column, inserted in the order given.
    insertEvents: sql`
      INSERT INTO ${t.events} (${eventColumns.list})
      SELECT ${eventColumns.unnested}
      FROM unnest(${eventColumns.arrays}) WITH ORDINALITY AS e(${eventColumns.list}, n)
      ORDER BY n
    `,
  };
}
