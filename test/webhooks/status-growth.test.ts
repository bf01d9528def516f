import express from "express";
import { Webhook } from "standardwebhooks";
import request from "supertest";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { OrOtherStatus } from "../../src/schemas/service-event";
import { isServiceEvent } from "../../src/schemas/service-event";
import { verifyWebhook } from "../../src/webhooks/verify";
import { webhookHandler } from "../../src/webhooks/webhook-handler";
import { eventBody, eventData, SECRET } from "./fixtures";

/**
 * A newer sender may widen the statuses a known event type carries. A receiver of this version
 * checks only what it chooses and narrows a handler by (`type`, `data.id`, `data.status` a
 * string) and hands an unknown status to the handler, typed as a string beside the known ones,
 * instead of refusing the event (which the sender would retry for days). Deliveries are signed
 * by the reference implementation, the `standardwebhooks` package, on the real clock.
 */

/** Headers the peer library signs for `body`, timestamped now. */
function peerSigned(id: string, body: string) {
  const seconds = Math.floor(Date.now() / 1000);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(seconds),
    "webhook-signature": new Webhook(SECRET).sign(id, new Date(seconds * 1000), body),
  };
}

/** A refund claim link's `refund.created`, with another status than today's AWAITING_CLAIM, and a field added. */
const grownRefund = () => eventBody("refund.created", { ...eventData("refund.created", "AWAITING_CLAIM"), status: "AWAITING_REVIEW", reviewQueue: "fraud" });

describe("receivers and statuses a newer sender adds", () => {
  it("webhookHandler runs the handler of a known type whose status it does not know, with the status as sent", async () => {
    const seen: string[] = [];
    const app = express();
    app.post(
      "/hooks",
      webhookHandler({
        secret: SECRET,
        on: {
          "refund.created": (event) => {
            expectTypeOf(event.data.status).toEqualTypeOf<OrOtherStatus<"AWAITING_CLAIM">>();
            seen.push(`${event.type} ${event.data.id} ${event.data.status} ${event.data.amount} ${(event.data as Record<string, unknown>).reviewQueue}`);
          },
          "payment.completed": (event) => void seen.push(`${event.type} ${event.data.status}`),
        },
      }),
    );
    const refund = grownRefund();
    const answer = await request(app).post("/hooks").set(peerSigned("msg_grown_1", refund)).set("content-type", "application/json").send(refund);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ received: true });
    const payment = eventBody("payment.completed", { ...eventData("payment.completed", "PAID"), status: "PAID_PENDING_REVIEW" });
    expect((await request(app).post("/hooks").set(peerSigned("msg_grown_2", payment)).set("content-type", "application/json").send(payment)).status).toBe(200);
    const { id, amount } = JSON.parse(refund).data;
    expect(seen).toEqual([`refund.created ${id} AWAITING_REVIEW ${amount} fraud`, "payment.completed PAID_PENDING_REVIEW"]);
  });

  it("verifyWebhook returns such an event as sent, added fields kept", () => {
    const body = grownRefund();
    const event = verifyWebhook(body, peerSigned("msg_grown_3", body), SECRET);
    expect(event).toEqual(JSON.parse(body));
    expect(isServiceEvent(event, "refund.created") && event.data.status).toBe("AWAITING_REVIEW");
  });

  it("still refuses a known event without type, data.id, or a string data.status, with 40014", async () => {
    const app = express();
    app.post("/hooks", webhookHandler({ secret: SECRET, on: { "*": () => undefined } }));
    const data: Record<string, unknown> = { ...eventData("refund.created", "AWAITING_CLAIM"), status: "AWAITING_REVIEW" };
    const { id: _id, ...withoutId } = data;
    const { status: _status, ...withoutStatus } = data;
    const broken = [
      JSON.stringify({ data }),
      eventBody("refund.created", withoutId),
      eventBody("refund.created", withoutStatus),
      eventBody("refund.created", { ...data, status: 3 }),
      eventBody("refund.created", { ...data, status: null }),
    ];
    for (const [index, body] of broken.entries()) {
      const headers = peerSigned(`msg_broken_${index}`, body);
      const answer = await request(app).post("/hooks").set(headers).set("content-type", "application/json").send(body);
      expect(answer.status, body).toBe(400);
      expect(answer.body.error).toBe(40014);
      expect(() => verifyWebhook(body, headers, SECRET)).toThrow();
    }
  });
});
