import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { PaymentView } from "../../src/core/payment-view";
import { INVOICE_STATUSES, PAYMENT_EVENT_TYPES } from "../../src/core/types";
import {
  isPaymentEvent,
  matchesEnvelope,
  matchesPaymentEvent,
  parseWebhookEvent,
  paymentEventSchema,
  webhookEnvelopeSchema,
  type PaymentEvent,
  type WebhookEvent,
} from "../../src/schemas/events";
import { paymentData } from "./fixtures";

const event = (type: string, data: unknown = paymentData()) => ({ type, timestamp: "2026-03-01T11:55:00.000Z", data });

describe("event schemas", () => {
  it("accept every payment view the service renders, for every event type and status", () => {
    for (const status of INVOICE_STATUSES) {
      const views = [
        paymentData({ status }),
        paymentData({ status, coin: null, network: null, address: null, rate: null, payAmount: null, txHash: null, receivedAmount: 0n }),
        paymentData({ status, metadata: null, returnUrl: null, failureReason: status === "FAILED" ? "underpaid" : null, mode: "live" }),
      ];
      for (const type of PAYMENT_EVENT_TYPES) {
        for (const data of views) {
          const body = JSON.parse(JSON.stringify(event(type, data)));
          expect(paymentEventSchema.safeParse(body).success).toBe(true);
          expect(parseWebhookEvent(body)).toEqual({ success: true, data: body });
        }
      }
    }
  });

  it("type the data as PaymentView, narrowed by event type", () => {
    expectTypeOf<PaymentEvent<"payment.completed">>().toEqualTypeOf<{ type: "payment.completed"; timestamp: string; data: PaymentView }>();
    expectTypeOf<PaymentEvent["type"]>().toEqualTypeOf<(typeof PAYMENT_EVENT_TYPES)[number]>();
    const verified = event("payment.failed") as WebhookEvent;
    if (isPaymentEvent(verified, "payment.failed")) expectTypeOf(verified.data.failureReason).toEqualTypeOf<string | null>();
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
    "PAID",
    "paid",
    "payment.completed",
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

describe("the fast predicates", () => {
  it("agree with the zod schemas on generated bodies", () => {
    const bases = PAYMENT_EVENT_TYPES.map((type) => event(type)).concat(event("some.future.type", { any: 1 }));
    fc.assert(
      fc.property(fc.constantFrom(...bases), fc.array(mutation, { minLength: 0, maxLength: 3 }), (base, changes) => {
        const body = mutate(base, changes);
        expect(matchesPaymentEvent(body)).toBe(paymentEventSchema.safeParse(body).success);
        expect(matchesEnvelope(body)).toBe(webhookEnvelopeSchema.safeParse(body).success);
      }),
      { numRuns: 3000 },
    );
  });
});
