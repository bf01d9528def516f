import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { ConversionView, WithdrawalView } from "../../src/core/views/funds";
import type { PaymentView } from "../../src/core/views/payment";
import { EVENT_TYPES, type EventType } from "../../src/core/webhooks/records";
import { INVOICE_STATUSES, PAYMENT_EVENT_TYPES } from "../../src/core/invoices/records";
import {
  eventSchemas,
  matchesEnvelope,
  matchesKnownEvent,
  parseWebhookEvent,
  paymentDataSchema,
  paymentEventSchema,
  paymentEventSchemas,
  webhookEnvelopeSchema,
} from "../../src/schemas/events";
import {
  EVENT_STATUSES,
  isPaymentEvent,
  isServiceEvent,
  PAYMENT_EVENT_STATUSES,
  type EventData,
  type OrOtherStatus,
  type PaymentEvent,
  type PaymentEventData,
  type PaymentEventStatus,
  type ServiceEvent,
  type WebhookEvent,
} from "../../src/schemas/service-event";
import { eventData, paymentData } from "./fixtures";

const event = (type: string, data: unknown = paymentData()) => ({ type, timestamp: "2026-03-01T11:55:00.000Z", data });

describe("event schemas", () => {
  it("accept every payment view the service renders, for every event type and each status it carries", () => {
    for (const type of PAYMENT_EVENT_TYPES) {
      for (const status of PAYMENT_EVENT_STATUSES[type]) {
        const views = [
          paymentData({ status }),
          paymentData({ status, coin: null, network: null, address: null, rate: null, payAmount: null, txHash: null, receivedAmount: 0n }),
          paymentData({ status, metadata: null, returnUrl: null, failureReason: status === "FAILED" ? "underpaid" : null, mode: "live" }),
        ];
        for (const data of views) {
          const body = JSON.parse(JSON.stringify(event(type, data)));
          expect(paymentEventSchemas[type].safeParse(body).success).toBe(true);
          expect(paymentEventSchema.safeParse(body).success).toBe(true);
          expect(parseWebhookEvent(body)).toEqual({ success: true, data: body });
        }
      }
    }
  });

  it("accept a payment whose status its event type does not list today (a newer sender may widen it), and refuse one that is not a string", () => {
    for (const type of PAYMENT_EVENT_TYPES) {
      const allowed: readonly string[] = PAYMENT_EVENT_STATUSES[type];
      for (const status of [...INVOICE_STATUSES.filter((candidate) => !allowed.includes(candidate)), "SETTLED_LATER"]) {
        const body = event(type, paymentData({ status: status as never }));
        expect(parseWebhookEvent(body), `${type} ${status}`).toEqual({ success: true, data: body });
        expect(eventSchemas[type].safeParse(body).success).toBe(true);
      }
      for (const status of [7, null, true, { value: "PAID" }]) {
        const result = parseWebhookEvent(event(type, paymentData({ status: status as never })));
        expect(result.success).toBe(false);
        if (result.success) continue;
        expect(result.error.issues).toHaveLength(1);
        expect(result.error.issues[0]!.path).toEqual(["data", "status"]);
        expect(result.error.issues[0]!.message).toBe("must be a string");
      }
    }
    // The shared schema of all payment events takes any status too.
    expect(paymentEventSchema.safeParse(event("payment.completed", paymentData({ status: "PENDING" }))).success).toBe(true);
  });

  it("accept every withdrawal, refund and conversion view, for each event type, of the status it carries or another string, and refuse a status that is not a string", () => {
    const otherStatuses = ["PROCESSING", "COMPLETED", "FAILED", "SUCCESS", "PAID", "active", "past_due", "cancelled"];
    for (const type of EVENT_TYPES.filter((name) => !(PAYMENT_EVENT_TYPES as readonly string[]).includes(name))) {
      const allowed: readonly string[] = EVENT_STATUSES[type];
      for (const status of allowed) {
        const body = JSON.parse(JSON.stringify(event(type, eventData(type, status))));
        expect(eventSchemas[type].safeParse(body).success, `${type} ${status}`).toBe(true);
        expect(parseWebhookEvent(body)).toEqual({ success: true, data: body });
      }
      // A status the type does not carry today is a newer sender's: accepted, as a string.
      for (const status of otherStatuses.filter((candidate) => !allowed.includes(candidate))) {
        const body = event(type, { ...eventData(type, allowed[0]!), status });
        expect(parseWebhookEvent(body), `${type} ${status}`).toEqual({ success: true, data: body });
      }
      const result = parseWebhookEvent(event(type, { ...eventData(type, allowed[0]!), status: 1 }));
      expect(result.success, `${type} status 1`).toBe(false);
      if (!result.success) expect(result.error.issues[0]!.path).toEqual(["data", "status"]);
    }
    // A payout event's data is a withdrawal: a payment under that type is refused.
    expect(parseWebhookEvent(event("payout.completed", paymentData())).success).toBe(false);
    expect(parseWebhookEvent(event("refund.completed", eventData("payout.completed", "COMPLETED"))).success).toBe(false);
  });

  it("derive each table from the type lists: every type has its statuses and schema", () => {
    expect(Object.keys(EVENT_STATUSES).sort()).toEqual([...EVENT_TYPES].sort());
    expect(Object.keys(eventSchemas).sort()).toEqual([...EVENT_TYPES].sort());
    expect(EVENT_STATUSES["payout.failed"]).toEqual(["FAILED"]);
    expect(EVENT_STATUSES["refund.processing"]).toEqual(["PROCESSING"]);
    expect(EVENT_STATUSES["conversion.completed"]).toEqual(["SUCCESS"]);
  });

  it("type each event's data by its type: status the type's known ones or another string, id sure, every other field a view's when present", () => {
    expectTypeOf<PaymentEvent<"payment.completed">["data"]["status"]>().toEqualTypeOf<OrOtherStatus<"PAID">>();
    expectTypeOf<PaymentEvent<"payment.created">["data"]["status"]>().toEqualTypeOf<OrOtherStatus<"PENDING">>();
    expectTypeOf<PaymentEvent<"payment.confirming">["data"]["status"]>().toEqualTypeOf<OrOtherStatus<"CONFIRMING">>();
    expectTypeOf<PaymentEvent<"payment.confirmed">["data"]["status"]>().toEqualTypeOf<OrOtherStatus<"PAID" | "UNDER_PAID" | "FAILED">>();
    expectTypeOf<PaymentEvent<"payment.failed">["data"]["status"]>().toEqualTypeOf<OrOtherStatus<"FAILED">>();
    expectTypeOf<PaymentEvent<"payment.expired">["data"]["status"]>().toEqualTypeOf<OrOtherStatus<"EXPIRED">>();
    expectTypeOf<PaymentEvent<"payment.completed">>().toEqualTypeOf<{
      type: "payment.completed";
      timestamp?: string;
      data: PaymentEventData<"payment.completed">;
    }>();
    // An older sender may leave any field out but id and status: the rest are a PaymentView's, optional.
    expectTypeOf<Omit<PaymentEventData<"payment.completed">, "status" | "id">>().toEqualTypeOf<Partial<Omit<PaymentView, "status" | "id">>>();
    expectTypeOf<PaymentEventData<"payment.completed">["id"]>().toEqualTypeOf<string>();
    // Today's payment is an event's data, of the type's status or of one a newer sender added.
    expectTypeOf<PaymentView & { status: "PAID" }>().toExtend<PaymentEventData<"payment.completed">>();
    expectTypeOf<PaymentView>().toExtend<PaymentEventData<"payment.completed">>();
    // The known statuses stay in the type (editors offer them); any string is accepted beside them.
    expectTypeOf<"PAID">().toExtend<PaymentEventData<"payment.completed">["status"]>();
    expectTypeOf<"SETTLED_LATER">().toExtend<PaymentEventData<"payment.completed">["status"]>();
    // The new event types, narrowed the same way, each with its resource's view.
    expectTypeOf<ServiceEvent<"payout.completed">["data"]["status"]>().toEqualTypeOf<OrOtherStatus<"COMPLETED">>();
    expectTypeOf<ServiceEvent<"refund.failed">["data"]["status"]>().toEqualTypeOf<OrOtherStatus<"FAILED">>();
    expectTypeOf<ServiceEvent<"refund.failed">["data"]["paymentId"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ServiceEvent<"conversion.completed">["data"]["status"]>().toEqualTypeOf<OrOtherStatus<"SUCCESS">>();
    expectTypeOf<Omit<EventData<"payout.processing">, "status" | "id">>().toEqualTypeOf<Partial<Omit<WithdrawalView, "status" | "id">>>();
    expectTypeOf<Omit<EventData<"conversion.completed">, "status" | "id">>().toEqualTypeOf<Partial<Omit<ConversionView, "status" | "id">>>();
    expectTypeOf<ServiceEvent["type"]>().toEqualTypeOf<EventType>();
    expectTypeOf<PaymentEventStatus<"payment.confirmed">>().toEqualTypeOf<(typeof PAYMENT_EVENT_STATUSES)["payment.confirmed"][number]>();
    expectTypeOf<PaymentEvent["type"]>().toEqualTypeOf<(typeof PAYMENT_EVENT_TYPES)[number]>();
  });

  it("narrow by type: a comparison on a PaymentEvent, isPaymentEvent on a verified WebhookEvent", () => {
    const anyPayment = event("payment.completed") as PaymentEvent;
    if (anyPayment.type === "payment.completed") {
      expectTypeOf(anyPayment.data.status).toEqualTypeOf<OrOtherStatus<"PAID">>();
      // Another status is a string a newer sender may send: comparing with it compiles.
      expect(anyPayment.data.status === "PENDING").toBe(false);
    }
    const verified = event("payment.failed", paymentData({ status: "FAILED", failureReason: "underpaid" })) as WebhookEvent;
    if (isPaymentEvent(verified, "payment.failed")) {
      expectTypeOf(verified.data.status).toEqualTypeOf<OrOtherStatus<"FAILED">>();
      expectTypeOf(verified.data.failureReason).toEqualTypeOf<string | null | undefined>();
    }
    if (isPaymentEvent(verified)) expectTypeOf(verified.type).toEqualTypeOf<(typeof PAYMENT_EVENT_TYPES)[number]>();
    const payout = event("payout.failed", eventData("payout.failed", "FAILED")) as WebhookEvent;
    expect(isPaymentEvent(payout)).toBe(false);
    expect(isServiceEvent(payout)).toBe(true);
    if (isServiceEvent(payout, "payout.failed")) {
      expectTypeOf(payout.data.status).toEqualTypeOf<OrOtherStatus<"FAILED">>();
      expectTypeOf(payout.data.object).toEqualTypeOf<"withdrawal" | undefined>();
    }
    if (isServiceEvent(payout)) expectTypeOf(payout.type).toEqualTypeOf<EventType>();
  });

  it("reject a known type whose data misses its id or status, or has a field of the wrong type", () => {
    const { id: _id, ...withoutId } = paymentData();
    const { status: _status, ...withoutStatus } = paymentData();
    for (const data of [
      withoutId,
      withoutStatus,
      { ...paymentData(), id: 42 },
      { ...paymentData(), livemode: "false" },
      { ...paymentData(), status: 0 },
      { ...paymentData(), expiresAt: "yesterday" },
      { ...paymentData(), metadata: [] },
      { ...paymentData(), rateAt: 1772366400 },
      { ...paymentData(), txHash: 7 },
    ]) {
      const result = parseWebhookEvent(event("payment.completed", data));
      expect(result.success).toBe(false);
    }
    expect(parseWebhookEvent({ type: "payment.completed", timestamp: "yesterday", data: paymentData() }).success).toBe(false);
  });

  it("accept a known type whose data lacks fields a newer version added, checking the ones present", () => {
    const { rateAt: _at, rateSources: _sources, txHash: _hash, ...older } = paymentData();
    expect(parseWebhookEvent(event("payment.completed", older)).success).toBe(true);
    const { timestamp: _timestamp, ...unstamped } = event("payment.completed");
    expect(parseWebhookEvent(unstamped).success).toBe(true);
    expect(parseWebhookEvent({ type: "payment.completed", data: { id: "inv_1", status: "PAID" } }).success).toBe(true);
    expect(parseWebhookEvent({ type: "payout.completed", data: { id: "po_1", status: "COMPLETED" } }).success).toBe(true);
    // The full shape the sender writes today is still required where the service documents it.
    expect(paymentDataSchema.safeParse(older).success).toBe(false);
    expect(paymentDataSchema.safeParse(paymentData()).success).toBe(true);
  });

  it("accept extra fields anywhere, for forward compatibility", () => {
    const body = { ...event("payment.completed", { ...paymentData(), newField: { nested: true } }), deliveryAttempt: 3 };
    const result = parseWebhookEvent(body);
    expect(result).toEqual({ success: true, data: body });
  });

  it("check only the envelope of an unknown type", () => {
    expect(parseWebhookEvent(event("invoice.refunded", "anything")).success).toBe(true);
    // The interface names no timestamp in the body: an event without one is still an event.
    expect(parseWebhookEvent({ type: "invoice.refunded", data: {} }).success).toBe(true);
    expect(parseWebhookEvent({ type: "invoice.refunded", timestamp: "today", data: {} }).success).toBe(false);
    expect(parseWebhookEvent({ type: "invoice.refunded", timestamp: "2026-03-01T11:55:00Z" }).success).toBe(false);
    expect(parseWebhookEvent({ type: "", timestamp: "2026-03-01T11:55:00Z", data: {} }).success).toBe(false);
  });
});

// The predicates are the fast path; zod is the reference. Generated bodies: a valid event with
// a few fields replaced by values chosen to sit on either side of each rule.
const edgeValues = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    25,
    "",
    "25",
    "-1.5",
    "1e5",
    "25.",
    ".5",
    "1,000",
    " 25",
    "payment",
    "Payment",
    ...INVOICE_STATUSES,
    "paid",
    ...EVENT_TYPES,
    "PROCESSING",
    "COMPLETED",
    "SUCCESS",
    "withdrawal",
    "refund",
    "2026-03-01T12:00:00Z",
    "2026-03-01T12:00:00.123456789+05:30",
    "2026-13-01T12:00:00Z",
    "2026-03-01 12:00:00Z",
    "2026-03-01T24:00:00Z",
    "2026-03-01",
    {},
    [],
    { orderId: "x" },
    ["a"],
  ),
  fc.jsonValue({ maxDepth: 2 }),
);
const fieldNames = [...new Set([...EVENT_TYPES.flatMap((type) => Object.keys(eventData(type, EVENT_STATUSES[type][0]))), "extra"])];
const mutation = fc.record({
  where: fc.constantFrom("type", "timestamp", "data", "extra", ...fieldNames.map((name) => `data.${name}`)),
  value: fc.option(edgeValues, { nil: undefined }),
});

function mutate(base: Record<string, unknown>, changes: Array<{ where: string; value: unknown }>): unknown {
  const body = structuredClone(base) as Record<string, unknown> & { data: Record<string, unknown> };
  for (const { where, value } of changes) {
    const [head, field] = where.split(".") as [string, string | undefined];
    const target: Record<string, unknown> = field === undefined ? body : typeof body.data === "object" && body.data !== null ? body.data : {};
    const key = field ?? head;
    if (value === undefined) delete target[key];
    else target[key] = structuredClone(value);
  }
  return JSON.parse(JSON.stringify(body));
}

/** What zod says of a body: its type's schema for a known type; no known event otherwise. */
function zodAcceptsAsKnownEvent(body: unknown): boolean {
  const type = (body as { type?: unknown } | null)?.type;
  return typeof type === "string" && Object.hasOwn(eventSchemas, type) && eventSchemas[type as EventType].safeParse(body).success;
}

describe("the fast predicates", () => {
  it("agree with the zod schemas on generated bodies", () => {
    // One valid body per type and status it carries, and one of a type this version does not know.
    const bases = EVENT_TYPES.flatMap((type) => EVENT_STATUSES[type].map((status: string) => event(type, eventData(type, status)))).concat(
      event("some.future.type", { any: 1 }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...bases), fc.array(mutation, { minLength: 0, maxLength: 3 }), (base, changes) => {
        const body = mutate(base, changes);
        expect(matchesKnownEvent(body)).toBe(zodAcceptsAsKnownEvent(body));
        expect(matchesEnvelope(body)).toBe(webhookEnvelopeSchema.safeParse(body).success);
      }),
      { numRuns: 3000 },
    );
  });
});
