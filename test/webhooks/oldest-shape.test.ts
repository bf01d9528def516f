import { describe, expect, it } from "vitest";
import { PAYMENT_EVENT_TYPES } from "../../src/core/invoices/records";
import { PAYMENT_EVENT_STATUSES, type PaymentEvent } from "../../src/schemas/service-event";
import { verifyWebhook } from "../../src/webhooks/verify";
import { NOW_MS, paymentData, SECRET, signedHeaders } from "./fixtures";
import { deliver, receiver } from "./handler-harness";

/**
 * Receivers stay compatible: today's verifyWebhook and webhookHandler accept events in the
 * oldest shapes a sender wrote, lacking every field a later version added.
 */

/** The interface's own event: `type`, and `data` with the payment's id, status and `metadata.orderId`; no timestamp. */
function interfaceShape(type: PaymentEvent["type"]) {
  return { type, data: { id: "inv_7Qm2a9XkLp0RtY4sW1cE3vBn", status: PAYMENT_EVENT_STATUSES[type][0], metadata: { orderId: "order-1042" } } };
}

/** The first version of this library's payment data: before acceptedCoins, rateAt, rateSources, settleCurrency and overpaidAmount. */
function firstSenderShape(type: PaymentEvent["type"]) {
  const {
    acceptedCoins: _a,
    rateAt: _b,
    rateSources: _c,
    settleCurrency: _d,
    overpaidAmount: _e,
    ...data
  } = { ...paymentData({ status: PAYMENT_EVENT_STATUSES[type][0] }) };
  return { type, timestamp: "2026-03-01T11:55:00.000Z", data };
}

describe("events in the oldest shapes", () => {
  it("pass verifyWebhook, every payment event type, with the body as sent", () => {
    for (const type of PAYMENT_EVENT_TYPES) {
      for (const shape of [interfaceShape(type), firstSenderShape(type)]) {
        const body = JSON.stringify(shape);
        expect(Object.keys(shape.data)).not.toContain("rateAt");
        expect(verifyWebhook(body, signedHeaders(body), SECRET, { now: () => NOW_MS })).toEqual(shape);
      }
    }
  });

  it("run webhookHandler's narrowed handlers, orderId in hand", async () => {
    const orders: string[] = [];
    const { app, logger } = receiver({
      on: {
        "payment.completed": (event) =>
          void orders.push(`paid ${String(event.data.metadata?.orderId)} ${event.data.status} ${event.timestamp ?? "no timestamp"}`),
        "payment.failed": (event) => void orders.push(`failed ${String(event.data.metadata?.orderId)}`),
      },
    });
    for (const [index, body] of [interfaceShape("payment.completed"), firstSenderShape("payment.completed"), interfaceShape("payment.failed")]
      .map((shape) => JSON.stringify(shape))
      .entries()) {
      const response = await deliver(app, body, signedHeaders(body, { id: `msg_old_${index}` }));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ received: true });
    }
    expect(orders).toEqual(["paid order-1042 PAID no timestamp", "paid order-1042 PAID 2026-03-01T11:55:00.000Z", "failed order-1042"]);
    expect(logger.lines).toEqual([]);
  });

  it("still refuse a known event without the id or the string status its handlers are chosen and narrowed by (40014)", async () => {
    const { app } = receiver({ on: { "payment.completed": () => undefined } });
    for (const [index, data] of [{ status: "PAID" }, { id: "inv_1" }, { id: "inv_1", status: 7 }, { id: "inv_1", status: "PAID", rateAt: 5 }].entries()) {
      const body = JSON.stringify({ type: "payment.completed", data });
      const response = await deliver(app, body, signedHeaders(body, { id: `msg_bad_${index}` }));
      expect(response.status).toBe(400);
      expect(response.body.error).toBe(40014);
    }
  });
});
