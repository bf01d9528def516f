import express from "express";
import { Webhook, WebhookVerificationError as PeerVerificationError } from "standardwebhooks";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret } from "../../src/webhook-secret";
import { signWebhook, webhookHeaders } from "../../src/webhooks/sign";
import { verifyWebhook } from "../../src/webhooks/verify";
import { webhookHandler } from "../../src/webhooks/webhook-handler";
import type { WebhookEvent } from "../../src/schemas/service-event";
import { eventBody, OTHER_SECRET, paymentData, recordingLogger, SECRET } from "./fixtures";

/**
 * Both directions against the reference implementation, `standardwebhooks` (the peer, a dev
 * dependency only): what it signs we accept, what we sign it accepts.
 */

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Headers signed by the peer library, timestamped now (its verify reads the real clock). */
function peerHeaders(peer: Webhook, id: string, body: string) {
  const seconds = nowSeconds();
  return { "webhook-id": id, "webhook-timestamp": String(seconds), "webhook-signature": peer.sign(id, new Date(seconds * 1000), body) };
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

/** The peer's delivery under Svix's header names: Svix signs the same way, only the names differ. */
function svixHeaders(peer: Webhook, id: string, body: string) {
  const standard = peerHeaders(peer, id, body);
  return { "svix-id": standard["webhook-id"], "svix-timestamp": standard["webhook-timestamp"], "svix-signature": standard["webhook-signature"] };
}

function reasonOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return (error as { reason?: string }).reason;
  }
  return undefined;
}

describe("deliveries with Svix's header names (svix-id, svix-timestamp, svix-signature)", () => {
  const body = eventBody("payment.completed");
  const peer = new Webhook(SECRET);

  it("verifies them as a plain object, in any case, and as a fetch Headers", () => {
    const svix = svixHeaders(peer, "msg_svix_1", body);
    expect(verifyWebhook(body, svix, SECRET)).toEqual(JSON.parse(body));
    const mixedCase = { "Svix-Id": svix["svix-id"], "SVIX-TIMESTAMP": svix["svix-timestamp"], "Svix-Signature": svix["svix-signature"] };
    expect(verifyWebhook(Buffer.from(body), mixedCase, SECRET).type).toBe("payment.completed");
    expect(verifyWebhook(body, new Headers(mixedCase), SECRET).type).toBe("payment.completed");
  });

  it("rejects them by the same rules: a wrong secret, a changed body, an old timestamp", () => {
    const svix = svixHeaders(peer, "msg_svix_2", body);
    expect(reasonOf(() => verifyWebhook(body, svix, OTHER_SECRET))).toBe("no_matching_signature");
    expect(reasonOf(() => verifyWebhook(body.replace('"25"', '"2500"'), svix, SECRET))).toBe("no_matching_signature");
    expect(reasonOf(() => verifyWebhook(body, svix, SECRET, { now: () => Date.now() + 301_000 }))).toBe("stale");
  });

  it("accepts both sets of names when they carry the same values", () => {
    const svix = svixHeaders(peer, "msg_svix_3", body);
    const both = { ...svix, "webhook-id": svix["svix-id"], "webhook-timestamp": svix["svix-timestamp"], "webhook-signature": svix["svix-signature"] };
    expect(verifyWebhook(body, both, SECRET).type).toBe("payment.completed");
  });

  it("refuses both sets of names when they disagree, even if one set alone would verify", () => {
    const svix = svixHeaders(peer, "msg_svix_4", body);
    const standard = peerHeaders(peer, "msg_other", body);
    for (const name of ["id", "timestamp", "signature"] as const) {
      const headers = { ...svix, [`webhook-${name}`]: name === "timestamp" ? String(Number(svix["svix-timestamp"]) - 1) : standard[`webhook-${name}`] };
      let error: unknown;
      try {
        verifyWebhook(body, headers, SECRET);
      } catch (caught) {
        error = caught;
      }
      expect(error).toMatchObject({ reason: "malformed_header", status: 400, code: 40012 });
      expect((error as Error).message).toContain(`both webhook-${name} and svix-${name}`);
    }
    // Names differing only in case are one header: two values of it are two headers.
    expect(reasonOf(() => verifyWebhook(body, { ...svix, "Svix-Id": "msg_else" }, SECRET))).toBe("malformed_header");
  });

  it("names both header sets when one is missing", () => {
    const { "svix-timestamp": _dropped, ...rest } = svixHeaders(peer, "msg_svix_5", body);
    let message = "";
    try {
      verifyWebhook(body, rest, SECRET);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("webhook-timestamp header (or svix-timestamp) is missing");
  });

  it("webhookHandler answers 200 to a Svix delivery, dedupes on svix-id, and refuses a disagreeing pair with 400", async () => {
    const seen: string[] = [];
    const app = express();
    app.post("/hooks/pay", webhookHandler({ secret: SECRET, on: { "payment.completed": (_event, { id }) => void seen.push(id) }, logger: recordingLogger() }));
    const post = (headers: Record<string, string>) => request(app).post("/hooks/pay").set(headers).set("content-type", "application/json").send(body);
    const svix = svixHeaders(peer, "msg_svix_handler", body);
    expect((await post(svix)).body).toEqual({ received: true });
    expect((await post(svixHeaders(peer, "msg_svix_handler", body))).body).toEqual({ received: true, duplicate: true });
    const conflicting = await post({ ...svixHeaders(peer, "msg_svix_other", body), "webhook-id": "msg_svix_handler" });
    expect(conflicting.status).toBe(400);
    expect(conflicting.body.error).toBe(40012);
    expect(seen).toEqual(["msg_svix_handler"]);
  });
});

describe("signature encodings", () => {
  it("accepts only the canonical base64 of the digest, as the peer does", () => {
    const body = eventBody("payment.completed");
    const headers = webhookHeaders({ id: "msg_canonical", body }, SECRET);
    const digest = headers["webhook-signature"].slice(3);
    // The 43rd character carries 4 digest bits and 2 padding bits; set a padding bit and the
    // text decodes to the same 32 bytes but is not what any signer writes.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const last = alphabet.indexOf(digest[42]!);
    expect(last % 4).toBe(0);
    const nonCanonical = `${digest.slice(0, 42)}${alphabet[last + 1]}=`;
    expect(Buffer.from(nonCanonical, "base64")).toEqual(Buffer.from(digest, "base64"));
    const altered = { ...headers, "webhook-signature": `v1,${nonCanonical}` };
    expect(() => new Webhook(SECRET).verify(body, altered)).toThrow(PeerVerificationError);
    expect(reasonOf(() => verifyWebhook(body, altered, SECRET))).toBe("no_matching_signature");
  });

  it("agrees with the peer on a raw key longer than SHA-256's 64-byte block", () => {
    const key = new Uint8Array(Buffer.alloc(100, "long key material "));
    const peer = new Webhook(key, { format: "raw" });
    const body = eventBody("payment.completed");
    expect(verifyWebhook(body, peerHeaders(peer, "msg_long_key", body), key).type).toBe("payment.completed");
    expect(peer.verify(body, webhookHeaders({ id: "msg_long_key", body }, key))).toEqual(JSON.parse(body));
  });

  it("agrees with the peer on an event larger than 8 KB", () => {
    const body = eventBody("payment.completed", paymentData({ metadata: { orderId: "order-1042", note: "Größe ✓ ".repeat(2000) } }));
    expect(Buffer.byteLength(body)).toBeGreaterThan(8192);
    expect(verifyWebhook(body, peerHeaders(new Webhook(SECRET), "msg_big", body), SECRET).type).toBe("payment.completed");
    expect(new Webhook(SECRET).verify(body, webhookHeaders({ id: "msg_big", body }, SECRET))).toEqual(JSON.parse(body));
  });
});
