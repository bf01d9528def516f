import express from "express";
import { Webhook, WebhookVerificationError as PeerVerificationError } from "standardwebhooks";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret } from "../../src/webhooks/secret";
import { signWebhook, webhookHeaders } from "../../src/webhooks/sign";
import { verifyWebhook } from "../../src/webhooks/verify";
import { webhookHandler } from "../../src/webhooks/webhook-handler";
import type { WebhookEvent } from "../../src/schemas/events";
import { eventBody, OTHER_SECRET, paymentData, recordingLogger, SECRET } from "./fixtures";

/**
 * Both directions against the reference implementation, `standardwebhooks` (the peer, a dev
 * dependency only): what it signs we accept, what we sign it accepts.
 */

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Headers signed by the peer library, timestamped now (its verify reads the real clock). */
function peerHeaders(peer: Webhook, id: string, body: string) {
  const timestamp = new Date(nowSeconds() * 1000);
  return { "webhook-id": id, "webhook-timestamp": String(nowSeconds()), "webhook-signature": peer.sign(id, timestamp, body) };
}

describe("interoperability with the standardwebhooks package", () => {
  const bodies = [eventBody("payment.completed"), eventBody("payment.created", paymentData({ status: "PENDING", metadata: { orderId: "Größe-✓" } }))];

  it("produces the same signature for the same input", () => {
    const peer = new Webhook(SECRET);
    for (const body of bodies) {
      const timestamp = 1_772_366_400;
      expect(signWebhook({ id: "msg_1", timestamp, body }, SECRET)).toBe(peer.sign("msg_1", new Date(timestamp * 1000), body));
    }
  });

  it("accepts what the peer signs, as a string or as bytes", () => {
    const peer = new Webhook(SECRET);
    for (const body of bodies) {
      const headers = peerHeaders(peer, "msg_peer_1", body);
      expect(verifyWebhook(body, headers, SECRET).type).toBe(JSON.parse(body).type);
      expect(verifyWebhook(Buffer.from(body), headers, SECRET).type).toBe(JSON.parse(body).type);
    }
  });

  it("is accepted by the peer: our headers pass its verify", () => {
    const peer = new Webhook(SECRET);
    for (const body of bodies) {
      const headers = webhookHeaders({ id: "msg_ours_1", body }, SECRET);
      expect(peer.verify(body, headers)).toEqual(JSON.parse(body));
      expect(peer.verify(Buffer.from(body), headers)).toEqual(JSON.parse(body));
    }
  });

  it("agrees with the peer on freshly generated secrets", () => {
    for (let i = 0; i < 5; i++) {
      const secret = generateWebhookSecret();
      const peer = new Webhook(secret);
      const body = bodies[0]!;
      expect(verifyWebhook(body, peerHeaders(peer, `msg_${i}`, body), secret).type).toBe("payment.completed");
      expect(peer.verify(body, webhookHeaders({ id: `msg_${i}`, body }, secret))).toEqual(JSON.parse(body));
    }
  });

  it("agrees with the peer on raw key bytes", () => {
    const key = new Uint8Array(Buffer.from("a raw 32-byte key for the tests!"));
    const peer = new Webhook(key, { format: "raw" });
    const body = bodies[0]!;
    expect(verifyWebhook(body, peerHeaders(peer, "msg_raw", body), key).type).toBe("payment.completed");
    expect(peer.verify(body, webhookHeaders({ id: "msg_raw", body }, key))).toEqual(JSON.parse(body));
  });

  it("rotation: the peer accepts our two-secret header with either secret, and we accept its signature with either listed", () => {
    const body = bodies[0]!;
    const headers = webhookHeaders({ id: "msg_rot", body }, [SECRET, OTHER_SECRET]);
    expect(new Webhook(SECRET).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(OTHER_SECRET).verify(body, headers)).toEqual(JSON.parse(body));
    expect(verifyWebhook(body, peerHeaders(new Webhook(OTHER_SECRET), "msg_rot", body), [SECRET, OTHER_SECRET]).type).toBe("payment.completed");
  });

  it("both reject the same tampering", () => {
    const body = bodies[0]!;
    const headers = webhookHeaders({ id: "msg_t", body }, SECRET);
    const tampered = body.replace('"25"', '"2500"');
    expect(tampered).not.toBe(body);
    expect(() => new Webhook(SECRET).verify(tampered, headers)).toThrow(PeerVerificationError);
    expect(() => verifyWebhook(tampered, headers, SECRET)).toThrow(/No matching signature/);
  });

  it("webhookHandler answers 200 to a delivery the peer signed, and runs the handler once", async () => {
    const seen: WebhookEvent[] = [];
    const app = express();
    app.post("/hooks/pay", webhookHandler({ secret: SECRET, on: { "payment.completed": (event) => void seen.push(event) }, logger: recordingLogger() }));
    const body = bodies[0]!;
    const headers = peerHeaders(new Webhook(SECRET), "msg_handler_peer", body);
    const response = await request(app).post("/hooks/pay").set(headers).set("content-type", "application/json").send(body);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ received: true });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual(JSON.parse(body));
  });
});
