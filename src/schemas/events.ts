import { z } from "zod";
import { CONVERSION_EVENT_TYPES } from "../core/exchanges/records";
import { EVENT_TYPES, type EventType } from "../core/webhooks/records";
import { PAYMENT_EVENT_TYPES, type PaymentEventType } from "../core/invoices/records";
import { PAYOUT_EVENT_TYPES } from "../core/payouts/records";
import { REFUND_EVENT_TYPES } from "../core/refunds/records";
import { SUBSCRIPTION_EVENT_TYPES } from "../core/subscriptions/records";
import { isoTime, paymentDataFields, RESOURCE_FIELDS, string, type Resource } from "./event-data";
import { isServiceEventType, type ServiceEvent, type WebhookEvent } from "./service-event";
import { field, isJsonObject, literal, oneOf, optional, shapeOf, testOf, type Field } from "./field-pair";

/**
 * Schemas of webhook event bodies, as a receiver checks them: `{ type, timestamp, data }`.
 * Objects are loose on purpose: a newer sender may add fields, and an older receiver must keep
 * accepting its events (unlike request schemas, where an unknown field is a caller's typo).
 *
 * And the other way round, a receiver of this version accepts the events of an older sender:
 * only what the service interface names is required. That is `type`, and `data` with its `id`
 * and `status` (what a handler is chosen and narrowed by; a status this version does not know
 * is accepted, so a sender may widen a type's statuses); `timestamp` and every other field of
 * `data` (`metadata` with its `orderId` included) may be missing, and are checked when present,
 * so a field of the wrong type is still a broken event. What the sender writes today, every
 * field present, is `paymentDataSchema` and the /v1 resource schemas (the OpenAPI document's).
 *
 * Each field is a schema with a predicate twin (field-pair.ts): verification runs the predicates
 * and falls back to zod only for a body they refuse, so zod reports what is wrong.
 */

const RESOURCE_LISTS: ReadonlyArray<[Resource, readonly string[]]> = [
  ["payment", PAYMENT_EVENT_TYPES],
  ["withdrawal", PAYOUT_EVENT_TYPES],
  ["refund", REFUND_EVENT_TYPES],
  ["conversion", CONVERSION_EVENT_TYPES],
  ["subscription", SUBSCRIPTION_EVENT_TYPES],
];
function resourceOf(type: EventType): Resource {
  return RESOURCE_LISTS.find(([, types]) => types.includes(type))![0];
}

/**
 * A resource's `status` as a receiver checks it: a string, any string. The statuses a type
 * carries today (EVENT_STATUSES) are what its handlers are typed with, but a newer sender may
 * widen them, and an event refused for a status its receiver did not expect would be retried
 * for days and never handled: so a status this version does not know is accepted, typed as
 * `string` beside the known ones, for the handler to decide.
 */
const anyStatus = field(z.string({ error: "must be a string" }), (value) => typeof value === "string");

/** The fields of a `T` event's data as a receiver checks them: id and status (a string) required, the rest when present. */
function dataFieldsOf(type: EventType): Record<string, Field<z.ZodType>> {
  const fields = Object.fromEntries(Object.entries(RESOURCE_FIELDS[resourceOf(type)]).map(([name, inner]) => [name, optional(inner)]));
  return { ...fields, id: string, status: anyStatus };
}

/** The fields of an event body: `type`, `data`, and `timestamp` when the sender wrote one. */
const bodyFields = (type: Field<z.ZodType>, data: Record<string, Field<z.ZodType>>) => ({
  type,
  timestamp: optional(isoTime),
  data: field(z.looseObject(shapeOf(data)), testOf(data)),
});

/** The zod schema and predicate of a `T` event body. */
function eventOf(type: EventType) {
  const fields = bodyFields(literal(type), dataFieldsOf(type));
  return { schema: z.looseObject(shapeOf(fields)), test: testOf(fields) };
}

// Built in a loop from the type lists, so a type appended to one of them gets its schema.
const events = Object.fromEntries(EVENT_TYPES.map((type) => [type, eventOf(type)])) as unknown as {
  readonly [K in EventType]: { schema: z.ZodType<ServiceEvent<K>>; test: (value: unknown) => boolean };
};

const paymentData = field(z.looseObject(shapeOf(paymentDataFields)), testOf(paymentDataFields));
const envelopeFields = {
  type: field(z.string().min(1, { error: "must not be empty" }), (value) => typeof value === "string" && value.length > 0),
  timestamp: optional(isoTime),
  data: field(z.unknown(), (value) => value !== undefined),
};
const anyPaymentFields = bodyFields(oneOf(PAYMENT_EVENT_TYPES), dataFieldsOf("payment.created"));

/**
 * The payment of today's events as the sender writes it: a `PaymentView`, every field present,
 * extra fields kept. (A receiver checks less: see `eventSchemas`.)
 */
export const paymentDataSchema = paymentData.schema;

/** Any event body: the envelope only, for types this version does not know. */
export const webhookEnvelopeSchema = z.looseObject(shapeOf(envelopeFields));

/**
 * What every payment event body has in common, as a receiver checks it: `type` one of
 * PAYMENT_EVENT_TYPES and a payment of any status with at least `id` and `status`.
 * Verification checks the stricter `eventSchemas[type]`.
 */
export const paymentEventSchema = z.looseObject(shapeOf(anyPaymentFields));

/**
 * The schema of each event body, by type, as verifyWebhook and webhookHandler check it: `data`
 * the type's resource with `id` and `status` (a string: EVENT_STATUSES[type] or one a newer
 * sender added) required, every other field checked when present.
 */
export const eventSchemas = Object.fromEntries(EVENT_TYPES.map((type) => [type, events[type].schema])) as {
  readonly [K in EventType]: z.ZodType<ServiceEvent<K>>;
};

/** `eventSchemas` of the payment event types. */
export const paymentEventSchemas = Object.fromEntries(PAYMENT_EVENT_TYPES.map((type) => [type, events[type].schema])) as {
  readonly [K in PaymentEventType]: z.ZodType<ServiceEvent<K>>;
};

/** The predicate twin of webhookEnvelopeSchema (see Field). @internal */
export const matchesEnvelope = testOf(envelopeFields);

/**
 * The predicate twin of `eventSchemas[json.type]`: false for a type this version does not know
 * (see Field). @internal
 */
export function matchesKnownEvent(json: unknown): boolean {
  return knownEvent(json)?.test(json) ?? false;
}

/** The schema and predicate of a body's type, when it is an event type this version knows. */
function knownEvent(json: unknown): (typeof events)[EventType] | undefined {
  const type = isJsonObject(json) ? json.type : undefined;
  return typeof type === "string" && isServiceEventType(type) ? events[type] : undefined;
}

/**
 * Checks a parsed body: its type's schema for a known type (`data` its resource, `status` any
 * string), the envelope alone for any other, so a known event with broken data is an
 * error and an unknown one passes untouched.
 */
export function parseWebhookEvent(json: unknown): { success: true; data: WebhookEvent } | { success: false; error: z.ZodError } {
  const known = knownEvent(json);
  // Valid bodies take the predicate path and are returned as parsed (zod would return an equal
  // copy); anything else goes through zod for its issues.
  if (known ? known.test(json) : matchesEnvelope(json)) return { success: true, data: json as unknown as WebhookEvent };
  const result = (known ? known.schema : webhookEnvelopeSchema).safeParse(json);
  return result.success ? { success: true, data: result.data as WebhookEvent } : { success: false, error: result.error };
}
