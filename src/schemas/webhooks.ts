import { z } from "zod";
import { EVENT_TYPES } from "../core/webhooks/records";
import { cursor, filterId, plainText } from "./fields";

/**
 * Request schemas of the webhook management endpoints under /v1. Strict objects, like the
 * merchant endpoints: an unknown field is an error.
 */

const eventType = z.enum(EVENT_TYPES, { error: `must be one of ${EVENT_TYPES.join(", ")}` });

/** POST /v1/webhook-endpoints */
export const webhookEndpointCreateRequest = z.strictObject({
  url: plainText(z.string({ error: "must be a string" }).min(1).max(2048)),
  /** Event types to receive; left out (or null) for all of them. */
  events: z
    .array(eventType, { error: "must be an array of event types" })
    .min(1, { error: "must name at least one event type, or be left out for all" })
    .nullable()
    .optional(),
});

/** Bodies of the action endpoints (rotate-secret, test, redeliver): nothing, or an empty object. */
export const emptyBody = z.strictObject({});

/** Query strings of list endpoints: `limit` 1..100 (default 20) and an opaque `cursor`. */
export const pageQuery = {
  limit: z.coerce
    .number({ error: "must be a number" })
    .int({ error: "must be a whole number" })
    .min(1, { error: "must be at least 1" })
    .max(100, { error: "must be at most 100" })
    .default(20),
  cursor: cursor.optional(),
};

/** GET /v1/webhook-deliveries */
export const webhookDeliveryListQuery = z.strictObject({
  ...pageQuery,
  endpointId: filterId.optional(),
  eventType: eventType.optional(),
  status: z.enum(["pending", "succeeded", "failed"], { error: "must be pending, succeeded or failed" }).optional(),
});

/** POST /v1/webhook-endpoints/:id/test: the event type to send, `payment.created` when left out. */
export const webhookTestRequest = z.strictObject({
  type: eventType.default("payment.created"),
});

/** Largest transaction id (PostgreSQL's xid8, 64 bits unsigned) and position (bigint, 63 bits) a cursor can name. */
const MAX_TXID = 2n ** 64n - 1n;
const MAX_SEQ = 2n ** 63n - 1n;

/** Whether a cursor's digits fit what the storage compares them as: a txid and a seq, or a seq alone (an earlier version's). */
function cursorInRange(value: string): boolean {
  // Not digits (or "now"): the pattern before says so; this check runs all the same.
  if (!/^[0-9]+(_[0-9]+)?$/.test(value)) return true;
  const [first, second] = value.split("_");
  return second === undefined ? BigInt(first!) <= MAX_SEQ : BigInt(first!) <= MAX_TXID && BigInt(second) <= MAX_SEQ;
}

/**
 * GET /v1/events: `after`, a position a previous answer returned as `nextCursor` (digits, or two
 * runs of digits joined by `_`), or `now` for the end of the log as it stands; `limit` 1..100
 * (default 20).
 */
export const eventListQuery = z.strictObject({
  after: z
    .string()
    .regex(/^(now|[0-9]{1,20}(_[0-9]{1,19})?)$/, { error: "not a cursor this list returned, nor now" })
    .refine(cursorInRange, { error: "not a cursor this list returned, nor now" })
    .optional()
    .meta({ description: "A `nextCursor` of a previous answer, or `now`: the end of the log as it stands. Left out: from the oldest event." }),
  limit: pageQuery.limit,
});

/** GET /v1/webhook-endpoints */
export const emptyQuery = z.strictObject({});
