import { describe, expect, it } from "vitest";
import { isPaymentEvent } from "../../src/schemas/service-event";
import { readDeliveryHeaders } from "../../src/webhooks/delivery-headers";
import { WebhookVerificationError, type WebhookVerificationReason } from "../../src/errors";
import { signWebhook } from "../../src/webhooks/sign";
import { checkSignature, secretKeys, verifyWebhook, type WebhookRequestHeaders } from "../../src/webhooks/verify";
import { eventBody, NOW_MS, NOW_S, OTHER_SECRET, paymentData, SECRET, signedHeaders } from "./fixtures";

const now = () => NOW_MS;

function rejection(run: () => unknown): WebhookVerificationError {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error;
    throw error;
  }
  throw new Error("expected a WebhookVerificationError, nothing was thrown");
}

function expectReason(run: () => unknown, reason: WebhookVerificationReason): WebhookVerificationError {
  const error = rejection(run);
  expect(error.reason).toBe(reason);
  return error;
}

describe("the Standard Webhooks test vector", () => {
  const vector = {
    secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
    timestamp: 1614265330,
    body: '{"test": 2432232314}',
    signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
  };
  const headers = { "webhook-id": vector.id, "webhook-timestamp": String(vector.timestamp), "webhook-signature": vector.signature };

  it("signs to the published signature", () => {
    expect(signWebhook(vector, vector.secret)).toBe(vector.signature);
  });

  it("accepts the published signature", () => {
    const delivery = readDeliveryHeaders(headers);
    expect(() => checkSignature(secretKeys(vector.secret), delivery, vector.body)).not.toThrow();
    // Its body is no payment event, so full verification gets past the signature and stops at the schema.
    expectReason(() => verifyWebhook(vector.body, headers, vector.secret, { now: () => vector.timestamp * 1000 }), "invalid_event");
  });

  it("rejects the published signature over a body changed by one byte", () => {
    expectReason(() => verifyWebhook('{"test": 2432232315}', headers, vector.secret, { now: () => vector.timestamp * 1000 }), "no_matching_signature");
  });
});

describe("verifyWebhook", () => {
  it("returns the parsed event of a correctly signed delivery", () => {
    const body = eventBody("payment.completed");
    const event = verifyWebhook(body, signedHeaders(body), SECRET, { now });
    expect(event.type).toBe("payment.completed");
    expect(isPaymentEvent(event, "payment.completed")).toBe(true);
    if (!isPaymentEvent(event, "payment.completed")) throw new Error("unreachable");
    expect(event.data).toEqual(paymentData());
    expect(event.data.metadata?.orderId).toBe("order-1042");
  });

  it("verifies a Buffer, a Uint8Array and a string of the same bytes alike", () => {
    const body = eventBody();
    const headers = signedHeaders(body);
    const bytes = Buffer.from(body);
    expect(verifyWebhook(bytes, headers, SECRET, { now })).toEqual(verifyWebhook(body, headers, SECRET, { now }));
    expect(verifyWebhook(new Uint8Array(bytes), headers, SECRET, { now })).toEqual(verifyWebhook(body, headers, SECRET, { now }));
  });

  it("signs the exact bytes: non-ASCII text and whitespace as sent", () => {
    const body = `{ "type": "payment.completed",\n  "timestamp": "2026-03-01T11:55:00.000Z", "data": ${JSON.stringify(paymentData({ metadata: { orderId: "Bestellung-Größe-✓" } }))} }`;
    const event = verifyWebhook(Buffer.from(body), signedHeaders(Buffer.from(body)), SECRET, { now });
    expect((event.data as { metadata: { orderId: string } }).metadata.orderId).toBe("Bestellung-Größe-✓");
  });

  it("finds the headers whatever their case, in a plain object or a fetch Headers", () => {
    const body = eventBody();
    const signed = signedHeaders(body);
    const mixedCase = {
      "Webhook-Id": signed["webhook-id"],
      "WEBHOOK-TIMESTAMP": signed["webhook-timestamp"],
      "Webhook-Signature": signed["webhook-signature"],
    };
    expect(verifyWebhook(body, mixedCase, SECRET, { now }).type).toBe("payment.completed");
    expect(verifyWebhook(body, new Headers(mixedCase), SECRET, { now }).type).toBe("payment.completed");
  });

  it("reads a signature header repeated by a proxy, as an array or joined with a comma", () => {
    const body = eventBody();
    const signed = signedHeaders(body);
    const decoy = signedHeaders(body, { secret: OTHER_SECRET })["webhook-signature"];
    const asArray: WebhookRequestHeaders = { ...signed, "webhook-signature": [decoy, signed["webhook-signature"]] };
    expect(verifyWebhook(body, asArray, SECRET, { now }).type).toBe("payment.completed");
    const headers = new Headers({ "webhook-id": signed["webhook-id"], "webhook-timestamp": signed["webhook-timestamp"] });
    headers.append("webhook-signature", signed["webhook-signature"]);
    headers.append("webhook-signature", decoy);
    expect(verifyWebhook(body, headers, SECRET, { now }).type).toBe("payment.completed");
  });

  describe("headers", () => {
    const body = eventBody();
    const signed = signedHeaders(body);

    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"] as const) {
      it(`rejects a delivery without ${name}`, () => {
        const { [name]: _dropped, ...rest } = signed;
        const error = expectReason(() => verifyWebhook(body, rest, SECRET, { now }), "missing_header");
        expect(error.message).toContain(name);
        expect(error.status).toBe(400);
      });

      it(`rejects an empty ${name}`, () => {
        expectReason(() => verifyWebhook(body, { ...signed, [name]: "  " }, SECRET, { now }), "missing_header");
      });
    }

    it.each(["1614265330.5", "-5", "1e9", "0123", "soon", "１２３"])("rejects webhook-timestamp %j as malformed", (timestamp) => {
      expectReason(() => verifyWebhook(body, { ...signed, "webhook-timestamp": timestamp }, SECRET, { now }), "malformed_header");
    });

    it("rejects two webhook-id headers as malformed", () => {
      expectReason(() => verifyWebhook(body, { ...signed, "webhook-id": ["a", "b"] }, SECRET, { now }), "malformed_header");
    });

    it.each(["g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", "v1", "v1,", ",abc", "   "])(
      "rejects a signature header with no version,signature entry (%j) as malformed",
      (signature) => {
        const reason = signature.trim() === "" ? "missing_header" : "malformed_header";
        expectReason(() => verifyWebhook(body, { ...signed, "webhook-signature": signature }, SECRET, { now }), reason);
      },
    );
  });

  describe("timestamp tolerance", () => {
    const body = eventBody();
    const at = (offsetSeconds: number) => signedHeaders(body, { timestamp: NOW_S + offsetSeconds });

    it("accepts a timestamp exactly at the tolerance, either way (default 300 s)", () => {
      expect(verifyWebhook(body, at(-300), SECRET, { now }).type).toBe("payment.completed");
      expect(verifyWebhook(body, at(300), SECRET, { now }).type).toBe("payment.completed");
    });

    it("rejects a timestamp older than the tolerance as stale", () => {
      const error = expectReason(() => verifyWebhook(body, at(-301), SECRET, { now }), "stale");
      expect(error.status).toBe(401);
      expect(error.message).toContain("301s in the past");
    });

    it("rejects a timestamp further ahead than the tolerance as future", () => {
      const error = expectReason(() => verifyWebhook(body, at(301), SECRET, { now }), "future");
      expect(error.status).toBe(401);
      expect(error.message).toContain("301s in the future");
    });

    it("uses a configured tolerance", () => {
      expect(verifyWebhook(body, at(-10), SECRET, { now, toleranceSeconds: 10 }).type).toBe("payment.completed");
      expectReason(() => verifyWebhook(body, at(-11), SECRET, { now, toleranceSeconds: 10 }), "stale");
      expectReason(() => verifyWebhook(body, at(11), SECRET, { now, toleranceSeconds: 10 }), "future");
    });

    it("keeps checking with a tolerance of 0: only the current second passes", () => {
      expect(verifyWebhook(body, at(0), SECRET, { now: () => NOW_MS + 999, toleranceSeconds: 0 }).type).toBe("payment.completed");
      expectReason(() => verifyWebhook(body, at(-1), SECRET, { now, toleranceSeconds: 0 }), "stale");
      expectReason(() => verifyWebhook(body, at(1), SECRET, { now, toleranceSeconds: 0 }), "future");
    });

    it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])("refuses a tolerance of %s: the check cannot be switched off", (toleranceSeconds) => {
      expect(() => verifyWebhook(body, at(0), SECRET, { now, toleranceSeconds })).toThrow(TypeError);
    });

    it("reads the real clock by default", () => {
      const live = signedHeaders(body, { timestamp: Math.floor(Date.now() / 1000) });
      expect(verifyWebhook(body, live, SECRET).type).toBe("payment.completed");
      expectReason(() => verifyWebhook(body, signedHeaders(body), SECRET), Date.now() > NOW_MS ? "stale" : "future");
    });
  });

  describe("signatures", () => {
    const body = eventBody();
    const signed = signedHeaders(body);
    const v1 = signed["webhook-signature"];

    it("rejects a signature made with another secret", () => {
      const error = expectReason(() => verifyWebhook(body, signedHeaders(body, { secret: OTHER_SECRET }), SECRET, { now }), "no_matching_signature");
      expect(error.status).toBe(401);
      expect(error.message).toContain("secret differs");
    });

    it("rejects a body that was re-serialised after parsing (the signature covers the exact bytes)", () => {
      const reserialised = JSON.stringify(JSON.parse(body), null, 1);
      expectReason(() => verifyWebhook(reserialised, signed, SECRET, { now }), "no_matching_signature");
    });

    it("rejects a signature for another webhook-id or timestamp", () => {
      expectReason(() => verifyWebhook(body, { ...signed, "webhook-id": "msg_other" }, SECRET, { now }), "no_matching_signature");
      expectReason(() => verifyWebhook(body, { ...signed, "webhook-timestamp": String(NOW_S + 1) }, SECRET, { now }), "no_matching_signature");
    });

    it("accepts when any one of several entries matches", () => {
      const other = signedHeaders(body, { secret: OTHER_SECRET })["webhook-signature"];
      const headers = { ...signed, "webhook-signature": `${other} v1a,Zm9v ${v1} v1,bm90LWEtc2lnbmF0dXJl` };
      expect(verifyWebhook(body, headers, SECRET, { now }).type).toBe("payment.completed");
    });

    it("skips entries of other versions, even with a valid v1 digest in them", () => {
      const digest = v1.slice(3);
      const error = expectReason(
        () => verifyWebhook(body, { ...signed, "webhook-signature": `v2,${digest} v1a,${digest}` }, SECRET, { now }),
        "no_matching_signature",
      );
      expect(error.message).toContain("only v1 is supported");
    });

    it("skips v1 entries that are not the base64 of a 32-byte digest", () => {
      const digest = v1.slice(3);
      for (const bad of [
        digest.slice(0, -2),
        `${digest}AAAA`,
        `${digest.slice(0, -1)}`,
        digest.replace(/.$/, "!"),
        `${digest.slice(0, 20)} ${digest.slice(20)}`,
      ]) {
        expectReason(() => verifyWebhook(body, { ...signed, "webhook-signature": `v1,${bad}` }, SECRET, { now }), "no_matching_signature");
      }
    });

    it("tolerates extra spaces between entries", () => {
      expect(verifyWebhook(body, { ...signed, "webhook-signature": `  v2,abc    ${v1}  ` }, SECRET, { now }).type).toBe("payment.completed");
    });
  });

  describe("secrets", () => {
    const body = eventBody();

    it("accepts a delivery signed with any of several secrets (rotation)", () => {
      expect(verifyWebhook(body, signedHeaders(body, { secret: SECRET }), [OTHER_SECRET, SECRET], { now }).type).toBe("payment.completed");
      expect(verifyWebhook(body, signedHeaders(body, { secret: OTHER_SECRET }), [OTHER_SECRET, SECRET], { now }).type).toBe("payment.completed");
    });

    it("accepts a delivery signed with old and new secrets by a receiver that knows only the new one", () => {
      const headers = signedHeaders(body, { secret: [SECRET, OTHER_SECRET] });
      expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
      expect(verifyWebhook(body, headers, OTHER_SECRET, { now }).type).toBe("payment.completed");
    });

    it("takes the secret as raw key bytes or as bare base64", () => {
      const bytes = Buffer.from(SECRET.slice("whsec_".length), "base64");
      expect(verifyWebhook(body, signedHeaders(body), new Uint8Array(bytes), { now }).type).toBe("payment.completed");
      expect(verifyWebhook(body, signedHeaders(body), SECRET.slice("whsec_".length), { now }).type).toBe("payment.completed");
    });

    it.each(["whsec_not base64!", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS", "whsec_", "", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw==="])(
      "throws a TypeError for a secret that does not decode cleanly (%j), instead of using a short key",
      (secret) => {
        expect(() => verifyWebhook(body, signedHeaders(body), secret, { now })).toThrow(TypeError);
      },
    );

    it("throws a TypeError for an empty list of secrets", () => {
      expect(() => verifyWebhook(body, signedHeaders(body), [], { now })).toThrow(TypeError);
    });
  });

  describe("body", () => {
    it("rejects an empty body as invalid JSON", () => {
      expectReason(() => verifyWebhook("", signedHeaders(""), SECRET, { now }), "invalid_json");
    });

    it("rejects a signed body that is not JSON", () => {
      const error = expectReason(() => verifyWebhook("type=payment.completed", signedHeaders("type=payment.completed"), SECRET, { now }), "invalid_json");
      expect(error.status).toBe(400);
    });

    it("rejects a known event type whose data is not a payment, naming the field", () => {
      const body = eventBody("payment.completed", { ...paymentData(), amount: 25 });
      const error = expectReason(() => verifyWebhook(body, signedHeaders(body), SECRET, { now }), "invalid_event");
      expect(error.message).toContain("data.amount");
      expect(error.status).toBe(400);
    });

    it("rejects a body without an event envelope", () => {
      const body = JSON.stringify({ data: paymentData() });
      expectReason(() => verifyWebhook(body, signedHeaders(body), SECRET, { now }), "invalid_event");
      expectReason(() => verifyWebhook("[]", signedHeaders("[]"), SECRET, { now }), "invalid_event");
    });

    it("passes an event of a type this version does not know, envelope checked, data untouched", () => {
      const body = eventBody("payment.refunded", { anything: [1, 2] });
      const event = verifyWebhook(body, signedHeaders(body), SECRET, { now });
      expect(event).toMatchObject({ type: "payment.refunded", data: { anything: [1, 2] } });
      expect(isPaymentEvent(event)).toBe(false);
    });

    it("keeps fields a newer sender added, in the envelope and in data", () => {
      const body = JSON.stringify({ ...JSON.parse(eventBody()), id: "evt_1", data: { ...paymentData(), refundedAmount: "0" } });
      const event = verifyWebhook(body, signedHeaders(body), SECRET, { now });
      expect(event.data).toMatchObject({ refundedAmount: "0" });
      expect(event).toMatchObject({ id: "evt_1" });
    });

    it("throws a TypeError that explains the fix when given a parsed object instead of the bytes", () => {
      const body = eventBody();
      expect(() => verifyWebhook(JSON.parse(body) as string, signedHeaders(body), SECRET, { now })).toThrow(/raw bytes.*express\.raw/);
    });
  });

  it("checks the clock before the signature, so a replayed request costs no HMAC", () => {
    const body = eventBody();
    const forgedAndOld = { ...signedHeaders(body, { timestamp: NOW_S - 3600 }), "webhook-signature": "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" };
    expectReason(() => verifyWebhook(body, forgedAndOld, SECRET, { now }), "stale");
  });

  it("renders a failure as the package's { error, message } body", () => {
    const error = rejection(() => verifyWebhook("{}", {}, SECRET, { now }));
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("WebhookVerificationError");
    expect(JSON.parse(JSON.stringify(error))).toEqual({ error: 40011, message: error.message });
  });
});
