import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { PaymentView } from "../../src/core/payment-view";
import { INVOICE_STATUSES, PAYMENT_EVENT_TYPES } from "../../src/core/types";
import {
  isPaymentEvent,
  matchesEnvelope,
  matchesPaymentEvent,
  parseWebhookEvent,
  PAYMENT_EVENT_STATUSES,
  paymentEventSchema,
  paymentEventSchemas,
  webhookEnvelopeSchema,
  type PaymentEvent,
  type PaymentEventData,
  type PaymentEventStatus,
  type WebhookEvent,
} from "../../src/schemas/events";
import { paymentData } from "./fixtures";

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

  it("reject a payment whose status its event type never carries, naming the allowed ones", () => {
    for (const type of PAYMENT_EVENT_TYPES) {
      const allowed: readonly string[] = PAYMENT_EVENT_STATUSES[type];
      for (const status of INVOICE_STATUSES.filter((candidate) => !allowed.includes(candidate))) {
        const result = parseWebhookEvent(event(type, paymentData({ status })));
        expect(result.success).toBe(false);
        if (result.success) continue;
        expect(result.error.issues).toHaveLength(1);
        expect(result.error.issues[0]!.path).toEqual(["data", "status"]);
        expect(result.error.issues[0]!.message).toBe(`a ${type} event carries a payment whose status is ${allowed.join(" or ")}`);
      }
    }
    // The shared schema of all payment events (the OpenAPI document's) still takes any status.
    expect(paymentEventSchema.safeParse(event("payment.completed", paymentData({ status: "PENDING" }))).success).toBe(true);
  });

  it("type each event's data by its type: status narrowed, every other field a PaymentView's", () => {
    expectTypeOf<PaymentEvent<"payment.completed">["data"]["status"]>().toEqualTypeOf<"PAID">();
    expectTypeOf<PaymentEvent<"payment.created">["data"]["status"]>().toEqualTypeOf<"PENDING">();
    expectTypeOf<PaymentEvent<"payment.confirming">["data"]["status"]>().toEqualTypeOf<"CONFIRMING">();
    expectTypeOf<PaymentEvent<"payment.confirmed">["data"]["status"]>().toEqualTypeOf<"PAID" | "UNDER_PAID" | "FAILED">();
    expectTypeOf<PaymentEvent<"payment.failed">["data"]["status"]>().toEqualTypeOf<"FAILED">();
    expectTypeOf<PaymentEvent<"payment.expired">["data"]["status"]>().toEqualTypeOf<"EXPIRED">();
    expectTypeOf<PaymentEvent<"payment.completed">>().toEqualTypeOf<{ type: "payment.completed"; timestamp: string; data: PaymentEventData<"payment.completed"> }>();
    expectTypeOf<Omit<PaymentEventData<"payment.completed">, "status">>().toEqualTypeOf<Omit<PaymentView, "status">>();
    // Each event's data is assignable where a PaymentView is expected, not the other way round.
    expectTypeOf<PaymentEventData>().toExtend<PaymentView>();
    expectTypeOf<PaymentView>().not.toExtend<PaymentEventData<"payment.completed">>();
    expectTypeOf<PaymentEventStatus<"payment.confirmed">>().toEqualTypeOf<(typeof PAYMENT_EVENT_STATUSES)["payment.confirmed"][number]>();
    expectTypeOf<PaymentEvent["type"]>().toEqualTypeOf<(typeof PAYMENT_EVENT_TYPES)[number]>();
  });

  it("narrow by type: a comparison on a PaymentEvent, isPaymentEvent on a verified WebhookEvent", () => {
    const anyPayment = event("payment.completed") as PaymentEvent;
    if (anyPayment.type === "payment.completed") {
      expectTypeOf(anyPayment.data.status).toEqualTypeOf<"PAID">();
      // @ts-expect-error -- a payment.completed never carries a PENDING payment
      expect(anyPayment.data.status === "PENDING").toBe(false);
    }
    const verified = event("payment.failed", paymentData({ status: "FAILED", failureReason: "underpaid" })) as WebhookEvent;
    if (isPaymentEvent(verified, "payment.failed")) {
      expectTypeOf(verified.data.status).toEqualTypeOf<"FAILED">();
      expectTypeOf(verified.data.failureReason).toEqualTypeOf<string | null>();
    }
    if (isPaymentEvent(verified)) expectTypeOf(verified.type).toEqualTypeOf<(typeof PAYMENT_EVENT_TYPES)[number]>();
  });

  it("reject a known type whose data misses a field or has one of the wrong type", () => {
    const { txHash: _dropped, ...withoutTxHash } = paymentData();
    for (const data of [withoutTxHash, { ...paymentData(), livemode: "false" }, { ...paymentData(), status: "paid" }, { ...paymentData(), expiresAt: "yesterday" }, { ...paymentData(), metadata: [] }]) {
      const result = parseWebhookEvent(event("payment.completed", data));
      expect(result.success).toBe(false);
    }
  });

  it("accept extra fields anywhere, for forward compatibility", () => {
    const body = { ...event("payment.completed", { ...paymentData(), newField: { nested: true } }), deliveryAttempt: 3 };
    const result = parseWebhookEvent(body);
    expect(result).toEqual({ success: true, data: body });
  });

  it("check only the envelope of an unknown type", () => {
    expect(parseWebhookEvent(event("invoice.refunded", "anything")).success).toBe(true);
    expect(parseWebhookEvent({ type: "invoice.refunded", data: {} }).success).toBe(false);
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
    ...PAYMENT_EVENT_TYPES,
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
const fieldNames = [...Object.keys(paymentData()), "extra"];
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

/** What zod says of a body: its type's schema for a known type; no payment event otherwise. */
function zodAcceptsAsPaymentEvent(body: unknown): boolean {
  const type = (body as { type?: unknown } | null)?.type;
  return typeof type === "string" && Object.hasOwn(paymentEventSchemas, type) && paymentEventSchemas[type as PaymentEvent["type"]].safeParse(body).success;
}

describe("the fast predicates", () => {
  it("agree with the zod schemas on generated bodies", () => {
    // One valid body per type and status it carries, and one of a type this version does not know.
    const bases = PAYMENT_EVENT_TYPES.flatMap((type) => PAYMENT_EVENT_STATUSES[type].map((status) => event(type, paymentData({ status })))).concat(
      event("some.future.type", { any: 1 }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...bases), fc.array(mutation, { minLength: 0, maxLength: 3 }), (base, changes) => {
        const body = mutate(base, changes);
        expect(matchesPaymentEvent(body)).toBe(zodAcceptsAsPaymentEvent(body));
        expect(matchesEnvelope(body)).toBe(webhookEnvelopeSchema.safeParse(body).success);
      }),
      { numRuns: 3000 },
    );
  });
});
