import { z } from "zod";
import type { ConversionView, RefundView, WithdrawalView } from "../core/views/funds";
import type { PaymentView } from "../core/views/payment";
import {
  CONVERSION_EVENT_TYPES,
  EVENT_TYPES,
  INVOICE_STATUSES,
  PAYMENT_EVENT_TYPES,
  PAYOUT_EVENT_TYPES,
  REFUND_EVENT_TYPES,
  type ConversionEventType,
  type EventType,
  type InvoiceStatus,
  type PaymentEventType,
  type PayoutEventType,
  type PayoutStatus,
  type RefundEventType,
} from "../core/ports/records";

/**
 * Schemas of webhook event bodies, as a receiver checks them: `{ type, timestamp, data }`.
 * Objects are loose on purpose: a newer sender may add fields, and an older receiver must keep
 * accepting its events (unlike request schemas, where an unknown field is a caller's typo).
 *
 * And the other way round, a receiver of this version accepts the events of an older sender:
 * only what the service interface names is required. That is `type`, and `data` with its `id`
 * and `status` (what a handler is chosen and narrowed by); `timestamp` and every other field of
 * `data` (`metadata` with its `orderId` included) may be missing, and are checked when present,
 * so a field of the wrong type is still a broken event. What the sender writes today, every
 * field present, is `paymentDataSchema` and the /v1 resource schemas (the OpenAPI document's).
 */

/**
 * Each field is a zod schema paired with a plain predicate that accepts exactly the JSON values
 * the schema accepts (each pair is built from the same regex, set or literal). Verification runs
 * the predicates, about ten times cheaper than zod on a hot path measured in microseconds, and
 * falls back to zod whenever they say no, so zod stays the judge of what is wrong and how it is
 * reported. test/webhooks/events-schema.test.ts checks the two agree on generated bodies.
 */
interface Field<S extends z.ZodType> {
  schema: S;
  test: (value: unknown) => boolean;
}

const field = <S extends z.ZodType>(schema: S, test: (value: unknown) => boolean): Field<S> => ({ schema, test });
const nullable = <S extends z.ZodType>(inner: Field<S>) => field(inner.schema.nullable(), (value) => value === null || inner.test(value));
/** A field an older sender may have left out: absent passes, present is checked. */
const optional = <S extends z.ZodType>(inner: Field<S>) => field(inner.schema.optional(), (value) => value === undefined || inner.test(value));
/** A JSON object; zod's object and record checks accept exactly these among parsed JSON values. */
const isJsonObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

// Non-capturing groups: nothing reads the groups, and captures cost a third of the match time.
const DECIMAL = /^-?\d+(?:\.\d+)?$/;
const ISO_DATE_TIME = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;
const STATUSES: ReadonlySet<unknown> = new Set(INVOICE_STATUSES);
const PAYMENT_TYPES: ReadonlySet<string> = new Set(PAYMENT_EVENT_TYPES);
const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

const string = field(z.string(), (value) => typeof value === "string");
const boolean = field(z.boolean(), (value) => typeof value === "boolean");
/** A decimal string as the service writes amounts: exact, no exponent, no grouping. */
const decimal = field(z.string().regex(DECIMAL, { error: "must be a decimal string" }), (value) => typeof value === "string" && DECIMAL.test(value));
const isoTime = field(
  z.string().regex(ISO_DATE_TIME, { error: "must be an ISO 8601 date-time" }),
  (value) => typeof value === "string" && ISO_DATE_TIME.test(value),
);
const nullableString = nullable(string);
const stringList = field(z.array(z.string()), (value) => Array.isArray(value) && value.every((item) => typeof item === "string"));
const integer = field(z.int(), (value) => Number.isSafeInteger(value));
/** Documents a field in the OpenAPI document; the check is unchanged. */
const described = <S extends z.ZodType>(inner: Field<S>, description: string) => field(inner.schema.meta({ description }), inner.test);

const literal = <V extends string>(value: V) => field(z.literal(value), (candidate) => candidate === value);
const oneOf = <V extends string>(values: readonly [V, ...V[]]) => {
  const allowed: ReadonlySet<unknown> = new Set(values);
  return field(z.enum(values), (value) => allowed.has(value));
};

const DEPOSIT_STATUSES = ["PENDING", "CONFIRMED", "DROPPED", "REVERSED"] as const;
const DEPOSIT_STATUS_SET: ReadonlySet<unknown> = new Set(DEPOSIT_STATUSES);

/** The fields of a `DepositView` (one entry of a payment's `deposits`). */
const depositFields = {
  id: string,
  object: field(z.literal("deposit"), (value) => value === "deposit"),
  txHash: string,
  outputIndex: integer,
  currency: described(string, "The coin received: the payment's, or another one sent to its address (a stray deposit)"),
  chain: string,
  amount: described(decimal, "What the payer sent, in currency"),
  fee: described(decimal, 'The 0.5% fee taken when it was credited ("0" before)'),
  status: described(
    field(z.enum(DEPOSIT_STATUSES), (value) => DEPOSIT_STATUS_SET.has(value)),
    "PENDING (seen), CONFIRMED (final and credited), DROPPED (left the chain before it was final), REVERSED (credited, then left the chain in a deep reorg: the credit was taken back)",
  ),
  countsTowardPayment: described(boolean, "False for a coin other than the payment's (a stray deposit) or a transfer after the payment's window closed"),
  confirmations: integer,
  reversals: described(integer, "How many times it left the chain after it was credited"),
  createdAt: described(isoTime, "When it was first seen"),
  creditedAt: described(nullable(isoTime), "When its standing credit was posted; null while not credited"),
};

// Function declarations below are hoisted: a deposit's predicate is built here, before the payment's fields use it.
const testDeposit = testOf(depositFields);

/** The fields of `PaymentView`, one by one; a compile-time check below keeps them in step. */
const paymentDataFields = {
  id: string,
  object: field(z.literal("payment"), (value) => value === "payment"),
  livemode: boolean,
  status: field(z.enum(INVOICE_STATUSES), (value) => STATUSES.has(value)),
  amount: decimal,
  amountCurrency: string,
  currency: nullableString,
  acceptedCoins: nullable(stringList),
  chain: nullableString,
  address: nullableString,
  rate: nullable(decimal),
  rateAt: described(nullable(isoTime), "When the locked rate was observed: for a rate combined from several sources, the oldest of their prices"),
  rateSources: described(nullable(stringList), 'The price sources the locked rate was combined from, e.g. ["coinbase","kraken"]; ["static"] for a fixed table'),
  payAmount: nullable(decimal),
  receivedAmount: decimal,
  overpaidAmount: described(decimal, 'What was received beyond payAmount, in the coin; "0" unless the payer sent too much'),
  txHash: nullableString,
  feePaidByPayer: boolean,
  underPaidCover: decimal,
  isWhiteLabel: boolean,
  checkoutUrl: string,
  returnUrl: nullableString,
  metadata: nullable(field(z.record(z.string(), z.unknown()), isJsonObject)),
  failureReason: nullableString,
  settleCurrency: nullableString,
  expiresAt: isoTime,
  createdAt: isoTime,
  updatedAt: isoTime,
  reversedAmount: described(
    optional(decimal),
    "Received in the payment's coin, then taken back because the deposit left the chain after it was credited; not part of receivedAmount",
  ),
  deposits: described(
    optional(field(z.array(z.object(shapeOf(depositFields))), (value) => Array.isArray(value) && value.every(testDeposit))),
    "Every deposit to the payment's address, counted or not (stray coins, transfers after the window)",
  ),
};

const PAYOUT_STATUSES = ["PROCESSING", "COMPLETED", "FAILED"] as const satisfies readonly PayoutStatus[];

/** The fields of `WithdrawalView` (a withdrawal event's data). */
const withdrawalDataFields = {
  id: string,
  object: literal("withdrawal"),
  livemode: boolean,
  status: oneOf(PAYOUT_STATUSES),
  currency: string,
  chain: string,
  amount: decimal,
  fee: decimal,
  address: string,
  txHash: nullableString,
  failureReason: nullableString,
  createdAt: isoTime,
  updatedAt: isoTime,
};

/** The fields of `RefundView`: a withdrawal's, with the payment refunded. */
const refundDataFields = {
  ...withdrawalDataFields,
  object: literal("refund"),
  paymentId: string,
  depositId: described(nullableString, "The deposit this refund gives back (a stray coin, say); null for a refund of the payment"),
};

/** The fields of `ConversionView`. */
const conversionDataFields = {
  id: string,
  object: literal("conversion"),
  livemode: boolean,
  status: literal("SUCCESS"),
  fromCurrency: string,
  toCurrency: string,
  amount: decimal,
  rate: decimal,
  toAmount: decimal,
  paymentId: nullableString,
  createdAt: isoTime,
};

function shapeOf<F extends Record<string, Field<z.ZodType>>>(fields: F): { [K in keyof F]: F[K]["schema"] } {
  return Object.fromEntries(Object.entries(fields).map(([name, { schema }]) => [name, schema])) as { [K in keyof F]: F[K]["schema"] };
}

/** The predicate of a loose object: every listed field passes, extra fields are ignored. */
function testOf(fields: Record<string, Field<z.ZodType>>): (value: unknown) => boolean {
  const names = Object.keys(fields);
  const tests = names.map((name) => fields[name]!.test);
  try {
    // Written out, one literal property read per field: a loop over the names makes every read
    // a keyed lookup V8 cannot specialise, which costs more than the checks themselves. The
    // names are this file's own constants, quoted by JSON.stringify.
    const source = `return (value) => isObject(value)${names.map((name, i) => ` && t${i}(value[${JSON.stringify(name)}])`).join("")};`;
    return new Function("isObject", ...tests.map((_, i) => `t${i}`), source)(isJsonObject, ...tests) as (value: unknown) => boolean;
  } catch {
    // Code generation is disallowed (--disallow-code-generation-from-strings): same checks, looped.
    return (value) => isJsonObject(value) && names.every((name, i) => tests[i]!(value[name]));
  }
}

const paymentDataShape = shapeOf(paymentDataFields);

// If a view gains, loses or retypes a field, this stops compiling until its schema follows.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type OutputOf<F extends Record<string, Field<z.ZodType>>> = z.output<z.ZodObject<{ [K in keyof F]: F[K]["schema"] }>>;
const schemasMatchViews: [
  Same<OutputOf<typeof paymentDataFields>, PaymentView>,
  Same<OutputOf<typeof withdrawalDataFields>, WithdrawalView>,
  Same<OutputOf<typeof refundDataFields>, RefundView>,
  Same<OutputOf<typeof conversionDataFields>, ConversionView>,
] = [true, true, true, true];
void schemasMatchViews;

/**
 * The statuses the payment in each event's `data` can have. An event carries the payment as it
 * stands after the step that recorded it (core/events.ts, core/invoice-machine.ts), so each
 * type of the state machine has one status except `payment.confirmed`: the deposits are final
 * and the payment is PAID, short with its window still open (UNDER_PAID), or short with it
 * closed (FAILED). The deposit events (a stray coin credited, a credited deposit reversed, a
 * deposit not yet final dropped) can come at any status.
 * test/webhooks/event-statuses.test.ts drives the state machine to keep this table honest.
 */
export const PAYMENT_EVENT_STATUSES = {
  "payment.created": ["PENDING"],
  "payment.confirming": ["CONFIRMING"],
  "payment.confirmed": ["PAID", "UNDER_PAID", "FAILED"],
  "payment.completed": ["PAID"],
  "payment.failed": ["FAILED"],
  "payment.expired": ["EXPIRED"],
  // Sent by the deposit itself, whatever the payment's own status is (a stray coin arrives, or
  // a deposit leaves the chain, at any point of the payment's life).
  "payment.unexpected_deposit": INVOICE_STATUSES,
  "payment.reversed": INVOICE_STATUSES,
  "payment.deposit_dropped": INVOICE_STATUSES,
} as const satisfies { readonly [K in PaymentEventType]: readonly InvoiceStatus[] };

/** `payout.completed` -> `"COMPLETED"`: a withdrawal or refund event is named after the status it carries. */
type StepStatus<T extends string> = T extends `${string}.${infer Step}` ? Uppercase<Step> : never;
function stepStatuses<T extends PayoutEventType | RefundEventType>(types: readonly T[]): { readonly [K in T]: readonly [StepStatus<K>] } {
  return Object.fromEntries(types.map((type) => [type, [type.slice(type.indexOf(".") + 1).toUpperCase()]])) as unknown as {
    readonly [K in T]: readonly [StepStatus<K>];
  };
}

/** The status the conversion of a conversion event has (conversions are atomic: SUCCESS). */
const CONVERSION_EVENT_STATUSES = { "conversion.completed": ["SUCCESS"] } as const satisfies {
  readonly [K in ConversionEventType]: readonly ConversionView["status"][];
};

/**
 * The statuses the resource in each event's `data` can have, by type: PAYMENT_EVENT_STATUSES
 * for payments; a withdrawal or refund event's step is its status (`refund.failed` carries a
 * FAILED refund); a conversion is SUCCESS. What verification narrows and checks `data.status` by.
 */
export const EVENT_STATUSES = {
  ...PAYMENT_EVENT_STATUSES,
  ...stepStatuses(PAYOUT_EVENT_TYPES),
  ...stepStatuses(REFUND_EVENT_TYPES),
  ...CONVERSION_EVENT_STATUSES,
} as const satisfies {
  readonly [K in EventType]: readonly (K extends PaymentEventType ? InvoiceStatus : K extends ConversionEventType ? ConversionView["status"] : PayoutStatus)[];
};

/** The statuses of the resource in a `T` event: `"COMPLETED"` for `payout.completed`. */
export type EventStatus<T extends EventType = EventType> = (typeof EVENT_STATUSES)[T][number];

/** The statuses of the payment in a `T` event: `"PAID"` for `payment.completed`. */
export type PaymentEventStatus<T extends PaymentEventType = PaymentEventType> = EventStatus<T>;

/** The /v1 view each event type carries as its `data`, by the list the type is in. */
interface ViewOf {
  payment: PaymentView;
  withdrawal: WithdrawalView;
  refund: RefundView;
  conversion: ConversionView;
}
type ResourceOf<T extends EventType> = T extends PaymentEventType
  ? "payment"
  : T extends PayoutEventType
    ? "withdrawal"
    : T extends RefundEventType
      ? "refund"
      : "conversion";

const RESOURCE_FIELDS: { readonly [R in keyof ViewOf]: Record<string, Field<z.ZodType>> } = {
  payment: paymentDataFields,
  withdrawal: withdrawalDataFields,
  refund: refundDataFields,
  conversion: conversionDataFields,
};
const RESOURCE_LISTS: ReadonlyArray<[keyof ViewOf, readonly string[]]> = [
  ["payment", PAYMENT_EVENT_TYPES],
  ["withdrawal", PAYOUT_EVENT_TYPES],
  ["refund", REFUND_EVENT_TYPES],
  ["conversion", CONVERSION_EVENT_TYPES],
];
function resourceOf(type: EventType): keyof ViewOf {
  return RESOURCE_LISTS.find(([, types]) => types.includes(type))![0];
}

/** One plain object type from an intersection, so editors show the fields. */
type Flat<T> = { [K in keyof T]: T[K] };

/**
 * The `data` of a `T` event: its resource's /v1 view (a PaymentView for `payment.*`, a
 * WithdrawalView for `payout.*`, a RefundView for `refund.*`, a ConversionView for
 * `conversion.*`), with `status` one that `T` carries. Only `id` and `status` are sure to be
 * there: an older sender may have left the other fields out (each is the view's type when
 * present). For a union of types, the union of their data, so a check of `status` narrows.
 */
export type EventData<T extends EventType = EventType> = {
  [K in T]: Flat<{ id: string; status: EventStatus<K> } & { [F in Exclude<keyof ViewOf[ResourceOf<K>], "id" | "status">]?: ViewOf[ResourceOf<K>][F] }>;
}[T];

/** The `data` of a payment event `T`: a PaymentView whose `status` is one `T` carries (see EventData). */
export type PaymentEventData<T extends PaymentEventType = PaymentEventType> = EventData<T>;

/** The fields of a `T` event's data as a receiver checks them: id and status required, the rest when present. */
function dataFieldsOf(type: EventType): Record<string, Field<z.ZodType>> {
  const resource = resourceOf(type);
  const statuses: readonly string[] = EVENT_STATUSES[type];
  const allowed: ReadonlySet<unknown> = new Set(statuses);
  const status = field(
    z.enum(statuses as [string, ...string[]], { error: `a ${type} event carries a ${resource} whose status is ${statuses.join(" or ")}` }),
    (value) => allowed.has(value),
  );
  const fields = Object.fromEntries(Object.entries(RESOURCE_FIELDS[resource]).map(([name, inner]) => [name, optional(inner)]));
  return { ...fields, id: string, status };
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

const paymentData = field(z.looseObject(paymentDataShape), testOf(paymentDataFields));
const envelopeFields = {
  type: field(z.string().min(1, { error: "must not be empty" }), (value) => typeof value === "string" && value.length > 0),
  timestamp: optional(isoTime),
  data: field(z.unknown(), (value) => value !== undefined),
};
const anyPaymentFields = bodyFields(oneOf(PAYMENT_EVENT_TYPES), {
  ...dataFieldsOf("payment.created"),
  status: paymentDataFields.status,
});

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
 * the type's resource with `status` limited to EVENT_STATUSES[type], `id` and `status`
 * required, every other field checked when present.
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
 * An event this service sends, narrowed by its type: `ServiceEvent<"payout.completed">` has a
 * WithdrawalView `data` with `status` `"COMPLETED"`. Without an argument, the union of all
 * types, discriminated by `type`.
 */
export type ServiceEvent<T extends EventType = EventType> = {
  [K in T]: {
    type: K;
    /** When the change happened (ISO 8601); not the delivery time, which is `webhook-timestamp`. Absent from an older sender's events. */
    timestamp?: string;
    /** The resource right after the change. Fields added by a newer sender are kept but untyped. */
    data: EventData<K>;
  };
}[T];

/**
 * A payment event, narrowed by its type: `PaymentEvent<"payment.completed">` has `data.status`
 * `"PAID"`. Without an argument, the union of all payment event types.
 */
export type PaymentEvent<T extends PaymentEventType = PaymentEventType> = ServiceEvent<T>;

/**
 * Handlers by event type, each given the event narrowed to its type and a context `C`
 * (whatever the caller passes besides the event). webhookHandler's `on` is this with
 * WebhookContext plus a `"*"`; `createPaymentRouter({ on })` is this with its own context.
 */
export type ServiceEventHandlers<C> = {
  [K in EventType]?: (event: ServiceEvent<K>, context: C) => unknown;
};

/** ServiceEventHandlers of the payment event types only. */
export type PaymentEventHandlers<C> = {
  [K in PaymentEventType]?: (event: PaymentEvent<K>, context: C) => unknown;
};

/** An event of a type this version does not know (a newer sender): the envelope, data unchecked. */
export interface UnknownWebhookEvent {
  type: string;
  timestamp?: string;
  data: unknown;
}

/**
 * What verification returns. Narrow with `isServiceEvent(event, "payout.completed")` or
 * `isPaymentEvent(event, "payment.completed")`: a comparison of `event.type` cannot narrow,
 * since an unknown type is any string.
 */
export type WebhookEvent = ServiceEvent | UnknownWebhookEvent;

/** True when `type` is one of PAYMENT_EVENT_TYPES. */
export function isPaymentEventType(type: string): type is PaymentEventType {
  return PAYMENT_TYPES.has(type);
}

/** True when `type` is one of EVENT_TYPES (payments, withdrawals, refunds, conversions). */
export function isServiceEventType(type: string): type is EventType {
  return KNOWN_TYPES.has(type);
}

/** Narrows a verified event to a payment event, optionally of one type. */
export function isPaymentEvent<T extends PaymentEventType = PaymentEventType>(event: WebhookEvent, type?: T): event is PaymentEvent<T> {
  return type === undefined ? PAYMENT_TYPES.has(event.type) : event.type === type;
}

/** Narrows a verified event to an event of a type this version knows, optionally of one type. */
export function isServiceEvent<T extends EventType = EventType>(event: WebhookEvent, type?: T): event is ServiceEvent<T> {
  return type === undefined ? KNOWN_TYPES.has(event.type) : event.type === type;
}

/**
 * Checks a parsed body: its type's schema for a known type (`data` its resource, with a status
 * that type carries), the envelope alone for any other, so a known event with broken data is an
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
