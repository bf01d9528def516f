import { z } from "zod";
import type { PaymentView } from "../core/payment-view";
import { INVOICE_STATUSES, PAYMENT_EVENT_TYPES, type InvoiceStatus, type PaymentEventType } from "../core/types";

/**
 * Schemas of webhook event bodies, as a receiver checks them: `{ type, timestamp, data }`.
 * Objects are loose on purpose: a newer sender may add fields, and an older receiver must keep
 * accepting its events (unlike request schemas, where an unknown field is a caller's typo).
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
/** A JSON object; zod's object and record checks accept exactly these among parsed JSON values. */
const isJsonObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

// Non-capturing groups: nothing reads the groups, and captures cost a third of the match time.
const DECIMAL = /^-?\d+(?:\.\d+)?$/;
const ISO_DATE_TIME = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;
const STATUSES: ReadonlySet<unknown> = new Set(INVOICE_STATUSES);
const KNOWN_TYPES: ReadonlySet<string> = new Set(PAYMENT_EVENT_TYPES);

const string = field(z.string(), (value) => typeof value === "string");
const boolean = field(z.boolean(), (value) => typeof value === "boolean");
/** A decimal string as the service writes amounts: exact, no exponent, no grouping. */
const decimal = field(z.string().regex(DECIMAL, { error: "must be a decimal string" }), (value) => typeof value === "string" && DECIMAL.test(value));
const isoTime = field(z.string().regex(ISO_DATE_TIME, { error: "must be an ISO 8601 date-time" }), (value) => typeof value === "string" && ISO_DATE_TIME.test(value));
const nullableString = nullable(string);
const stringList = field(z.array(z.string()), (value) => Array.isArray(value) && value.every((item) => typeof item === "string"));
const optional = <S extends z.ZodType>(inner: Field<S>) => field(inner.schema.optional(), (value) => value === undefined || inner.test(value));
const integer = field(z.int(), (value) => Number.isSafeInteger(value));
/** Documents a field in the OpenAPI document; the check is unchanged. */
const described = <S extends z.ZodType>(inner: Field<S>, description: string) => field(inner.schema.meta({ description }), inner.test);

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
  rateSources: described(
    nullable(stringList),
    'The price sources the locked rate was combined from, e.g. ["coinbase","kraken"]; ["static"] for a fixed table',
  ),
  payAmount: nullable(decimal),
  receivedAmount: decimal,
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
  reversedAmount: described(optional(decimal), "Received in the payment's coin, then taken back because the deposit left the chain after it was credited; not part of receivedAmount"),
  deposits: described(
    optional(field(z.array(z.object(shapeOf(depositFields))), (value) => Array.isArray(value) && value.every(testDeposit))),
    "Every deposit to the payment's address, counted or not (stray coins, transfers after the window)",
  ),
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

// If PaymentView gains, loses or retypes a field, this stops compiling until the schema follows.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemaMatchesPaymentView: Same<z.output<z.ZodObject<typeof paymentDataShape>>, PaymentView> = true;
void schemaMatchesPaymentView;

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

/** The statuses of the payment in a `T` event: `"PAID"` for `payment.completed`. */
export type PaymentEventStatus<T extends PaymentEventType = PaymentEventType> = (typeof PAYMENT_EVENT_STATUSES)[T][number];

/**
 * The `data` of a `T` event: a PaymentView whose `status` is one that `T` can carry. For a union
 * of types, the union of their data (each its own object type, so a check of `status` narrows).
 */
export type PaymentEventData<T extends PaymentEventType = PaymentEventType> = {
  // Mapped over PaymentView's keys (not `Omit & {}`) so editors show one plain object type.
  [K in T]: { [F in keyof PaymentView]: F extends "status" ? PaymentEventStatus<K> : PaymentView[F] };
}[T];

/** The fields of a `T` event's data: PaymentView's, with `status` limited to what `T` carries. */
function dataFieldsOf<T extends PaymentEventType>(type: T) {
  const statuses: readonly PaymentEventStatus<T>[] = PAYMENT_EVENT_STATUSES[type];
  const allowed: ReadonlySet<unknown> = new Set(statuses);
  const schema = z.enum(statuses as unknown as readonly [PaymentEventStatus<T>, ...PaymentEventStatus<T>[]], {
    error: `a ${type} event carries a payment whose status is ${statuses.join(" or ")}`,
  });
  return { ...paymentDataFields, status: field(schema, (value) => allowed.has(value)) };
}

/** The zod schema and predicate of a `T` event body. */
function eventOf<T extends PaymentEventType>(type: T) {
  const dataFields = dataFieldsOf(type);
  const fields = {
    type: field(z.literal(type), (value) => value === type),
    timestamp: isoTime,
    data: field(z.looseObject(shapeOf(dataFields)), testOf(dataFields)),
  };
  return { schema: z.looseObject(shapeOf(fields)), test: testOf(fields) };
}

type EventOf<T extends PaymentEventType> = ReturnType<typeof eventOf<T>>;

// The guard above, per type: each schema's data is exactly the PaymentEventData of its type.
type DataShapeOf<T extends PaymentEventType> = EventOf<T>["schema"]["shape"]["data"]["shape"];
const schemasMatchEventData: { readonly [K in PaymentEventType]: true } = {} as { [K in PaymentEventType]: Same<z.output<z.ZodObject<DataShapeOf<K>>>, PaymentEventData<K>> };
void schemasMatchEventData;
// Built in a loop, typed per key: TypeScript cannot follow a type through Object.fromEntries.
const events = Object.fromEntries(PAYMENT_EVENT_TYPES.map((type) => [type, eventOf(type)])) as unknown as { readonly [K in PaymentEventType]: EventOf<K> };

const paymentData = field(z.looseObject(paymentDataShape), testOf(paymentDataFields));
const envelopeFields = { type: field(z.string().min(1, { error: "must not be empty" }), (value) => typeof value === "string" && value.length > 0), timestamp: isoTime, data: field(z.unknown(), (value) => value !== undefined) };
const paymentEventFields = { type: field(z.enum(PAYMENT_EVENT_TYPES), (value) => KNOWN_TYPES.has(value as string)), timestamp: isoTime, data: paymentData };

/** The `data` of every payment event: a `PaymentView`, extra fields kept. */
export const paymentDataSchema = paymentData.schema;

/** Any event body: the envelope only, for types this version does not know. */
export const webhookEnvelopeSchema = z.looseObject(shapeOf(envelopeFields));

/**
 * What every payment event body has in common: `type` one of PAYMENT_EVENT_TYPES and a
 * PaymentView of any status. Verification checks the stricter `paymentEventSchemas[type]`.
 */
export const paymentEventSchema = z.looseObject(shapeOf(paymentEventFields));

/**
 * The schema of each payment event body, by type: `data.status` limited to
 * PAYMENT_EVENT_STATUSES[type]. What verifyWebhook and webhookHandler check a known type against.
 */
export const paymentEventSchemas = Object.fromEntries(PAYMENT_EVENT_TYPES.map((type) => [type, events[type].schema])) as {
  readonly [K in PaymentEventType]: EventOf<K>["schema"];
};

/** The predicate twin of webhookEnvelopeSchema (see Field). @internal */
export const matchesEnvelope = testOf(envelopeFields);

/**
 * The predicate twin of `paymentEventSchemas[json.type]`: false for a type this version does
 * not know (see Field). @internal
 */
export function matchesPaymentEvent(json: unknown): boolean {
  return knownEvent(json)?.test(json) ?? false;
}

/** The schema and predicate of a body's type, when it is a payment event type this version knows. */
function knownEvent(json: unknown): (typeof events)[PaymentEventType] | undefined {
  const type = isJsonObject(json) ? json.type : undefined;
  return typeof type === "string" && isPaymentEventType(type) ? events[type] : undefined;
}

/**
 * A payment event, narrowed by its type: `PaymentEvent<"payment.completed">` has `data.status`
 * `"PAID"`. Without an argument, the union of all six, discriminated by `type`.
 */
export type PaymentEvent<T extends PaymentEventType = PaymentEventType> = {
  [K in T]: {
    type: K;
    /** When the change happened (ISO 8601); not the delivery time, which is `webhook-timestamp`. */
    timestamp: string;
    /** The payment right after the change. Fields added by a newer sender are kept but untyped. */
    data: PaymentEventData<K>;
  };
}[T];

/**
 * Handlers by payment event type, each given the event narrowed to its type and a context `C`
 * (whatever the caller passes besides the event). webhookHandler's `on` is this with
 * WebhookContext plus a `"*"`; an in-process subscriber can use it with its own context.
 */
export type PaymentEventHandlers<C> = {
  [K in PaymentEventType]?: (event: PaymentEvent<K>, context: C) => unknown;
};

/** An event of a type this version does not know (a newer sender): the envelope, data unchecked. */
export interface UnknownWebhookEvent {
  type: string;
  timestamp: string;
  data: unknown;
}

/**
 * What verification returns. Narrow with `isPaymentEvent(event, "payment.completed")`: a
 * comparison of `event.type` cannot narrow, since an unknown type is any string.
 */
export type WebhookEvent = PaymentEvent | UnknownWebhookEvent;

/** True when `type` is one of PAYMENT_EVENT_TYPES. */
export function isPaymentEventType(type: string): type is PaymentEventType {
  return KNOWN_TYPES.has(type);
}

/** Narrows a verified event to a payment event, optionally of one type. */
export function isPaymentEvent<T extends PaymentEventType = PaymentEventType>(event: WebhookEvent, type?: T): event is PaymentEvent<T> {
  return type === undefined ? KNOWN_TYPES.has(event.type) : event.type === type;
}

/**
 * Checks a parsed body: its type's schema for a known type (`data` a PaymentView with a status
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
