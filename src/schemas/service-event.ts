import type { ConversionView, RefundView, WithdrawalView } from "../core/views/funds";
import type { PaymentView } from "../core/views/payment";
import type { SubscriptionView } from "../core/views/subscription";
import { EVENT_TYPES, type EventType } from "../core/webhooks/records";
import { INVOICE_STATUSES, PAYMENT_EVENT_TYPES, type InvoiceStatus, type PaymentEventType } from "../core/invoices/records";
import { PAYOUT_EVENT_TYPES, type PayoutEventType, type PayoutStatus } from "../core/payouts/records";
import { type REFUND_CLAIM_EVENT_TYPES, REFUND_PAYOUT_EVENT_TYPES, type RefundEventType } from "../core/refunds/records";
import type { ConversionEventType } from "../core/exchanges/records";
import type { SubscriptionEventType, SubscriptionStatus } from "../core/subscriptions/records";

/**
 * What a webhook event is, in types: the statuses each event type carries, the event and its
 * `data` narrowed by type, the handler maps, and the guards that narrow a verified event. The
 * schemas that check a body against these are in events.ts.
 */

const PAYMENT_TYPES: ReadonlySet<string> = new Set(PAYMENT_EVENT_TYPES);
const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

/**
 * The statuses the payment in each event's `data` can have. An event carries the payment as it
 * stands after the step that recorded it (core/webhooks/events.ts, core/invoices/machine.ts), so each
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

/** The statuses a refund claim link's events carry: `refund.claimed` has the payout's first status. */
const REFUND_CLAIM_EVENT_STATUSES = {
  "refund.created": ["AWAITING_CLAIM"],
  "refund.claimed": ["PROCESSING", "AWAITING_APPROVAL"],
  "refund.cancelled": ["CANCELLED"],
  "refund.expired": ["EXPIRED"],
} as const satisfies { readonly [K in (typeof REFUND_CLAIM_EVENT_TYPES)[number]]: readonly PayoutStatus[] };

/** The status the conversion of a conversion event has (conversions are atomic: SUCCESS). */
const CONVERSION_EVENT_STATUSES = { "conversion.completed": ["SUCCESS"] } as const satisfies {
  readonly [K in ConversionEventType]: readonly ConversionView["status"][];
};

/**
 * The status of the subscription a subscription event carries: each event is sent by the change
 * to that status (created and renewed leave it active).
 */
const SUBSCRIPTION_EVENT_STATUSES = {
  "subscription.created": ["active"],
  "subscription.renewed": ["active"],
  "subscription.past_due": ["past_due"],
  "subscription.cancelled": ["cancelled"],
} as const satisfies { readonly [K in SubscriptionEventType]: readonly SubscriptionStatus[] };

/**
 * The statuses the resource in each event's `data` can have, by type: PAYMENT_EVENT_STATUSES
 * for payments; a withdrawal or refund event's step is its status (`refund.failed` carries a
 * FAILED refund); a conversion is SUCCESS. What verification narrows and checks `data.status` by.
 */
export const EVENT_STATUSES = {
  ...PAYMENT_EVENT_STATUSES,
  ...stepStatuses(PAYOUT_EVENT_TYPES),
  ...stepStatuses(REFUND_PAYOUT_EVENT_TYPES),
  ...REFUND_CLAIM_EVENT_STATUSES,
  ...CONVERSION_EVENT_STATUSES,
  ...SUBSCRIPTION_EVENT_STATUSES,
} as const satisfies {
  readonly [K in EventType]: readonly (K extends PaymentEventType
    ? InvoiceStatus
    : K extends ConversionEventType
      ? ConversionView["status"]
      : K extends SubscriptionEventType
        ? SubscriptionStatus
        : PayoutStatus)[];
};

/** The statuses of the resource in a `T` event: `"COMPLETED"` for `payout.completed`. */
export type EventStatus<T extends EventType = EventType> = (typeof EVENT_STATUSES)[T][number];

/**
 * A status as a receiver types it: one this version knows (`Known`), or any other string a
 * newer sender may have added. `(string & {})` keeps editors offering the known ones while
 * accepting the rest, so a handler compares with the known statuses and decides what to do
 * with another.
 */
export type OrOtherStatus<Known extends string> = Known | (string & {});

/** The statuses of the payment in a `T` event: `"PAID"` for `payment.completed`. */
export type PaymentEventStatus<T extends PaymentEventType = PaymentEventType> = EventStatus<T>;

/** The /v1 view each event type carries as its `data`, by the list the type is in. */
interface ViewOf {
  payment: PaymentView;
  withdrawal: WithdrawalView;
  refund: RefundView;
  conversion: ConversionView;
  subscription: SubscriptionView;
}
type ResourceOf<T extends EventType> = T extends PaymentEventType
  ? "payment"
  : T extends PayoutEventType
    ? "withdrawal"
    : T extends RefundEventType
      ? "refund"
      : T extends SubscriptionEventType
        ? "subscription"
        : "conversion";

/** One plain object type from an intersection, so editors show the fields. */
type Flat<T> = { [K in keyof T]: T[K] };

/**
 * The `data` of a `T` event: its resource's /v1 view (a PaymentView for `payment.*`, a
 * WithdrawalView for `payout.*`, a RefundView for `refund.*`, a ConversionView for
 * `conversion.*`), with `status` one that `T` carries today or another string (a newer sender
 * may widen a type's statuses; receivers accept it). Only `id` and `status` are sure to be
 * there: an older sender may have left the other fields out (each is the view's type when
 * present). For a union of types, the union of their data.
 */
export type EventData<T extends EventType = EventType> = {
  [K in T]: Flat<
    { id: string; status: OrOtherStatus<EventStatus<K>> } & { [F in Exclude<keyof ViewOf[ResourceOf<K>], "id" | "status">]?: ViewOf[ResourceOf<K>][F] }
  >;
}[T];

/** The `data` of a payment event `T`: a PaymentView whose `status` is one `T` carries (see EventData). */
export type PaymentEventData<T extends PaymentEventType = PaymentEventType> = EventData<T>;

/**
 * An event this service sends, narrowed by its type: `ServiceEvent<"payout.completed">` has a
 * WithdrawalView `data` with `status` `"COMPLETED"` (or a status a newer sender added). Without an argument, the union of all
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
 * `"PAID"` (or a status a newer sender added). Without an argument, the union of all payment event types.
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
