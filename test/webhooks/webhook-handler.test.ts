import express from "express";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { PaymentView } from "../../src/core/views/payment";
import type { RefundView } from "../../src/core/views/funds";
import type { OrOtherStatus, PaymentEvent, PaymentEventData, PaymentEventHandlers, ServiceEvent, WebhookEvent } from "../../src/schemas/service-event";
import { webhookHandler, type WebhookContext, type WebhookHandlerOptions, type WebhookHandlers } from "../../src/webhooks/webhook-handler";
import { deferred, eventBody, eventData, NOW_S, OTHER_SECRET, paymentData, SECRET, signedHeaders } from "./fixtures";
import { deliver, receiver } from "./handler-harness";
import { sendAndWaitForClose, serveRaw } from "../raw-socket";

describe("webhookHandler: dispatch", () => {
  it("answers 200 { received: true } after running the handler of the event's type", async () => {
    const seen: Array<[PaymentEvent<"payment.completed">, WebhookContext]> = [];
    const { app } = receiver({ on: { "payment.completed": (event, context) => void seen.push([event, context]) } });
    const body = eventBody("payment.completed");
    const response = await deliver(app, body, signedHeaders(body, { id: "msg_dispatch" }));
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(response.body).toEqual({ received: true });
    expect(seen).toHaveLength(1);
    const [event, context] = seen[0]!;
    expect(event).toEqual(JSON.parse(body));
    expect(context.id).toBe("msg_dispatch");
    expect(context.timestamp).toBe(NOW_S);
    expect(context.req.method).toBe("POST");
  });

  it("narrows each handler's event to its type, data included", () => {
    webhookHandler({
      secret: SECRET,
      on: {
        "payment.completed": (event, context) => {
          expectTypeOf(event).toEqualTypeOf<PaymentEvent<"payment.completed">>();
          expectTypeOf(event.data.status).toEqualTypeOf<OrOtherStatus<"PAID">>();
          expectTypeOf(context).toEqualTypeOf<WebhookContext>();
          // A status a newer sender added is a string the handler may compare with.
          return event.data.status === "PENDING";
        },
        "payment.failed": (event) => {
          expectTypeOf(event.type).toEqualTypeOf<"payment.failed">();
          expectTypeOf(event.data).toEqualTypeOf<PaymentEventData<"payment.failed">>();
          expectTypeOf(event.data.status).toEqualTypeOf<OrOtherStatus<"FAILED">>();
          expectTypeOf(event.data).toExtend<Partial<Omit<PaymentView, "status">>>();
        },
        "payout.completed": (event) => {
          expectTypeOf(event).toEqualTypeOf<ServiceEvent<"payout.completed">>();
          expectTypeOf(event.data.status).toEqualTypeOf<OrOtherStatus<"COMPLETED">>();
          expectTypeOf(event.data.txHash).toEqualTypeOf<string | null | undefined>();
          // @ts-expect-error -- a withdrawal has no paymentId
          return event.data.paymentId;
        },
        "refund.failed": (event) => {
          expectTypeOf(event.data.status).toEqualTypeOf<OrOtherStatus<"FAILED">>();
          expectTypeOf(event.data).toExtend<Partial<Omit<RefundView, "status">>>();
        },
        "conversion.completed": (event) => expectTypeOf(event.data.status).toEqualTypeOf<OrOtherStatus<"SUCCESS">>(),
        "payment.confirmed": (event) => expectTypeOf(event.data.status).toEqualTypeOf<OrOtherStatus<"PAID" | "UNDER_PAID" | "FAILED">>(),
        "*": (event) => expectTypeOf(event).toEqualTypeOf<WebhookEvent>(),
      },
    });
    expectTypeOf<WebhookHandlers>().toExtend<PaymentEventHandlers<WebhookContext>>();
  });

  it("runs the handlers of withdrawal, refund and conversion events, and refuses their data under the wrong type", async () => {
    const seen: string[] = [];
    const { app } = receiver({
      on: {
        "payout.failed": (event) => void seen.push(`${event.type} ${event.data.id} ${event.data.failureReason}`),
        "refund.completed": (event) => void seen.push(`${event.type} ${event.data.paymentId}`),
        "conversion.completed": (event) => void seen.push(`${event.type} ${event.data.toAmount}`),
      },
    });
    for (const [type, status] of [
      ["payout.failed", "FAILED"],
      ["refund.completed", "COMPLETED"],
      ["conversion.completed", "SUCCESS"],
    ] as const) {
      const body = eventBody(type, eventData(type, status));
      expect((await deliver(app, body, signedHeaders(body, { id: `msg_${type}` }))).body).toEqual({ received: true });
    }
    expect(seen).toEqual([
      "payout.failed po_4Hk2m9XkLp0RtY4sW1cE3vBn reverted",
      "refund.completed inv_7Qm2a9XkLp0RtY4sW1cE3vBn",
      "conversion.completed 83.333333",
    ]);
    // A refund under a withdrawal's type is the wrong resource (its `object` says so): refused.
    const wrong = eventBody("payout.failed", eventData("refund.failed", "FAILED"));
    const answer = await deliver(app, wrong, signedHeaders(wrong, { id: "msg_wrong" }));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe(40014);
  });

  it("runs the specific handler and the catch-all for one event", async () => {
    const calls: string[] = [];
    const { app } = receiver({ on: { "payment.expired": () => void calls.push("specific"), "*": (event) => void calls.push(`* ${event.type}`) } });
    const body = eventBody("payment.expired", paymentData({ status: "EXPIRED" }));
    expect((await deliver(app, body)).status).toBe(200);
    expect(calls.sort()).toEqual(["* payment.expired", "specific"]);
  });

  it("does not run other types' handlers", async () => {
    const calls: string[] = [];
    const { app } = receiver({ on: { "payment.completed": () => void calls.push("completed") } });
    const body = eventBody("payment.created", paymentData({ status: "PENDING" }));
    expect((await deliver(app, body)).body).toEqual({ received: true });
    expect(calls).toEqual([]);
  });

  it("acknowledges an event type this version does not know with 2xx, handing it to the catch-all", async () => {
    const seen: WebhookEvent[] = [];
    const specific: string[] = [];
    const { app } = receiver({ on: { "payment.completed": () => void specific.push("x"), "*": (event) => void seen.push(event) } });
    const body = eventBody("payment.refunded", { refundId: "re_1" });
    const response = await deliver(app, body);
    expect(response.status).toBe(200);
    expect(seen.map((event) => event.type)).toEqual(["payment.refunded"]);
    expect(specific).toEqual([]);
    const { app: withoutCatchAll } = receiver({ on: { "payment.completed": () => undefined } });
    expect((await deliver(withoutCatchAll, body)).status).toBe(200);
  });

  it("answers only once the handler has finished", async () => {
    const gate = deferred();
    let answered = false;
    const started = deferred();
    const { app } = receiver({
      on: {
        "payment.completed": async () => {
          started.resolve();
          await gate.promise;
        },
      },
    });
    const body = eventBody();
    const pending = deliver(app, body).then((response) => {
      answered = true;
      return response;
    });
    await started.promise;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(answered).toBe(false);
    gate.resolve();
    expect((await pending).status).toBe(200);
  });

  it("accepts deliveries signed with any secret of a rotation", async () => {
    const { app } = receiver({ secret: [OTHER_SECRET, SECRET] });
    const body = eventBody();
    expect((await deliver(app, body, signedHeaders(body, { id: "msg_r1", secret: SECRET }))).status).toBe(200);
    expect((await deliver(app, body, signedHeaders(body, { id: "msg_r2", secret: OTHER_SECRET }))).status).toBe(200);
  });
});

describe("webhookHandler: failing handlers", () => {
  it("answers 500 when the handler throws, so the sender retries, and logs the error", async () => {
    const { app, logger } = receiver({
      on: {
        "payment.completed": async () => {
          throw new Error("database down");
        },
      },
    });
    const response = await deliver(app, eventBody());
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ error: 50011, message: expect.stringContaining("retried") });
    expect(response.text).not.toContain("database down");
    expect(logger.lines.some((line) => line.startsWith("error") && line.includes("payment.completed handler failed"))).toBe(true);
    expect(logger.details).toContainEqual(new Error("database down"));
  });

  it("treats a handler that throws synchronously the same way", async () => {
    const { app } = receiver({
      on: {
        "payment.completed": () => {
          throw new Error("sync");
        },
      },
    });
    expect((await deliver(app, eventBody())).status).toBe(500);
  });

  it("reports several failing handlers as one AggregateError", async () => {
    const { app, logger } = receiver({
      on: {
        "payment.completed": () => Promise.reject(new Error("first")),
        "*": () => Promise.reject(new Error("second")),
      },
    });
    expect((await deliver(app, eventBody())).status).toBe(500);
    const aggregate = logger.details.find((detail) => detail instanceof AggregateError) as AggregateError;
    expect(aggregate.errors.map((error: Error) => error.message).sort()).toEqual(["first", "second"]);
  });

  it("still runs the other handler when one fails, and answers 500", async () => {
    const ran: string[] = [];
    const { app, logger } = receiver({
      on: {
        "payment.completed": () => Promise.reject(new Error("only me")),
        "*": async () => void ran.push("catch-all"),
      },
    });
    expect((await deliver(app, eventBody())).status).toBe(500);
    expect(ran).toEqual(["catch-all"]);
    expect(logger.details).toContainEqual(new Error("only me"));
  });
});

describe("webhookHandler: status codes of rejected deliveries", () => {
  const body = eventBody();
  const signed = signedHeaders(body);
  const cases: Array<[string, string | Buffer, Record<string, string>, number, number]> = [
    ["a missing webhook-signature", body, { "webhook-id": signed["webhook-id"], "webhook-timestamp": signed["webhook-timestamp"] }, 400, 40011],
    ["a malformed webhook-timestamp", body, { ...signed, "webhook-timestamp": "yesterday" }, 400, 40012],
    ["a signature header with no entries", body, { ...signed, "webhook-signature": "garbage" }, 400, 40012],
    ["a signed body that is not JSON", "not json", signedHeaders("not json"), 400, 40013],
    ["a signed known event with broken data", eventBody("payment.completed", { id: 1 }), signedHeaders(eventBody("payment.completed", { id: 1 })), 400, 40014],
    ["a wrong signature", body, signedHeaders(body, { secret: OTHER_SECRET }), 401, 40111],
    ["a tampered body", body.replace("order-1042", "order-1043"), signed, 401, 40111],
    ["a stale timestamp", body, signedHeaders(body, { timestamp: NOW_S - 301 }), 401, 40112],
    ["a timestamp in the future", body, signedHeaders(body, { timestamp: NOW_S + 301 }), 401, 40113],
  ];

  it.each(cases)("answers %s with %i", async (_name, payload, headers, status, code) => {
    let ran = false;
    const { app, logger } = receiver({ on: { "*": () => void (ran = true) } });
    const response = await deliver(app, payload, headers);
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ error: code, message: expect.any(String) });
    expect(ran).toBe(false);
    expect(logger.lines.some((line) => line.startsWith("warn webhookHandler: rejected"))).toBe(true);
  });

  it("keeps the body and the secret out of logs and answers", async () => {
    const { app, logger } = receiver();
    const marker = "card-4111-1111";
    for (const payload of [`{"oops": ${marker}}`, eventBody("payment.completed", { ...paymentData(), amount: marker })]) {
      const response = await deliver(app, payload);
      expect(response.status).toBe(400);
      expect(response.text).not.toContain(marker);
    }
    const wrong = await deliver(app, body, signedHeaders(body, { secret: OTHER_SECRET }));
    expect(wrong.status).toBe(401);
    const everything = [...logger.lines, wrong.text].join("\n");
    expect(everything).not.toContain(marker);
    expect(everything).not.toContain(SECRET.slice(6));
    expect(everything).not.toContain(OTHER_SECRET.slice(6));
  });

  it("uses the configured tolerance", async () => {
    const { app } = receiver({ toleranceSeconds: 5 });
    expect((await deliver(app, body, signedHeaders(body, { timestamp: NOW_S - 6 }))).status).toBe(401);
    expect((await deliver(app, body, signedHeaders(body, { timestamp: NOW_S - 5 }))).status).toBe(200);
  });

  it("answers 413 past the body limit, without running anything", async () => {
    let ran = false;
    const { app } = receiver({ limit: "1kb", on: { "*": () => void (ran = true) } });
    const big = eventBody("payment.completed", paymentData({ metadata: { orderId: "x".repeat(2048) } }));
    const response = await deliver(app, big);
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ error: 41301, message: expect.stringContaining("1024 bytes") });
    expect(ran).toBe(false);
    expect((await deliver(app, body)).status).toBe(200);
  });

  it.each([
    ["shorter than its Content-Length", (whole: string) => `Content-Length: ${whole.length}\r\n\r\n${whole.slice(0, 20)}`],
    ["chunked and never ended", (whole: string) => `Transfer-Encoding: chunked\r\n\r\n14\r\n${whole.slice(0, 20)}\r\n`],
  ])("answers a body %s with 408 (40801) after bodyTimeoutMs and closes the connection", async (_what, framing) => {
    let ran = false;
    const { app } = receiver({ bodyTimeoutMs: 200, on: { "*": () => void (ran = true) } });
    const server = await serveRaw(app);
    try {
      const headers = Object.entries(signedHeaders(body))
        .map(([name, value]) => `${name}: ${String(value)}\r\n`)
        .join("");
      const res = await sendAndWaitForClose(
        server.port,
        `POST /hooks/pay HTTP/1.1\r\nHost: shop.example\r\nContent-Type: application/json\r\n${headers}${framing(body)}`,
      );
      expect(res.status).toBe(408);
      expect(res.headers.connection).toBe("close");
      expect(res.body).toEqual({ error: 40801, message: expect.stringContaining("did not arrive in full within 200 ms") });
      expect(ran).toBe(false);
      expect((await deliver(app, body)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("webhookHandler: where the raw body comes from", () => {
  const body = eventBody();

  it("reads the body itself, whatever the content type", async () => {
    const { app } = receiver();
    expect((await deliver(app, body, signedHeaders(body), "text/plain")).status).toBe(200);
  });

  it("uses the Buffer left by express.raw()", async () => {
    const { app } = receiver({ before: [express.raw({ type: "application/json" })] });
    expect((await deliver(app, body)).status).toBe(200);
  });

  it("uses req.rawBody saved by a body-parser verify hook", async () => {
    const keepRaw = express.json({ verify: (req, _res, buffer) => void ((req as unknown as { rawBody: Buffer }).rawBody = buffer) });
    const { app } = receiver({ before: [keepRaw] });
    expect((await deliver(app, body)).status).toBe(200);
  });

  it("answers 500 and explains the mount order when express.json() parsed the body first", async () => {
    let ran = false;
    const { app, logger } = receiver({ before: [express.json()], on: { "*": () => void (ran = true) } });
    const response = await deliver(app, body);
    expect(response.status).toBe(500);
    expect(response.body.error).toBe(50012);
    expect(response.body.message).toContain("parsed into an object before webhookHandler saw it");
    expect(response.body.message).toContain("mount webhookHandler before express.json()");
    expect(response.body.message).toContain("express.raw({ type: 'application/json' })");
    expect(logger.lines.filter((line) => line.startsWith("error") && line.includes("mount webhookHandler before express.json()"))).toHaveLength(1);
    expect(ran).toBe(false);
  });

  it("says the same when an app-wide express.json() runs before the route", async () => {
    const app = express();
    app.use(express.json());
    app.post("/hooks/pay", webhookHandler({ secret: SECRET, now: () => NOW_S * 1000, logger: { warn() {}, error() {} }, on: { "*": () => undefined } }));
    const response = await deliver(app, body);
    expect(response.status).toBe(500);
    expect(response.body.message).toContain("mount webhookHandler before express.json()");
  });

  it("names a string body (express.text()) as the mistake too", async () => {
    const { app } = receiver({ before: [express.text({ type: "*/*" })] });
    const response = await deliver(app, body);
    expect(response.status).toBe(500);
    expect(response.body.message).toContain("parsed into a string");
  });

  it("turns away a request without delivery headers before reading its body", async () => {
    const { app } = receiver({ limit: "1kb" });
    const response = await deliver(app, "x".repeat(4096), {});
    expect(response.status).toBe(400);
    expect(response.body.error).toBe(40011);
  });
});

describe("webhookHandler: options are checked at creation", () => {
  const on = { "payment.completed": () => undefined };
  const cases: Array<[string, unknown]> = [
    ["a secret that does not decode", { secret: "whsec_not base64!", on }],
    ["a missing secret", { on }],
    ["an empty secret list", { secret: [], on }],
    ["no handlers", { secret: SECRET, on: {} }],
    ["a missing on", { secret: SECRET }],
    ["an unknown event name", { secret: SECRET, on: { "payment.complete": () => undefined } }],
    ["a handler that is not a function", { secret: SECRET, on: { "payment.completed": "markPaid" } }],
    ["an unknown option", { secret: SECRET, on, tolerance: 10 }],
    ["a negative tolerance", { secret: SECRET, on, toleranceSeconds: -1 }],
    ["an infinite tolerance", { secret: SECRET, on, toleranceSeconds: Number.POSITIVE_INFINITY }],
    ["an unparseable limit", { secret: SECRET, on, limit: "lots" }],
    ["a zero limit", { secret: SECRET, on, limit: 0 }],
    ["a zero bodyTimeoutMs", { secret: SECRET, on, bodyTimeoutMs: 0 }],
    ["a bodyTimeoutMs as text", { secret: SECRET, on, bodyTimeoutMs: "30s" }],
    ["a dedupe store without its methods", { secret: SECRET, on, dedupe: { claim() {} } }],
    ["a logger without error()", { secret: SECRET, on, logger: { warn() {} } }],
  ];

  it.each(cases)("throws for %s", (_name, options) => {
    expect(() => webhookHandler(options as WebhookHandlerOptions)).toThrow(TypeError);
  });

  it("names the known event types when one is misspelt", () => {
    expect(() => webhookHandler({ secret: SECRET, on: { "payment.complete": () => undefined } as never })).toThrow(/payment\.completed/);
  });

  it.each([["512kb"], ["1 MB"], [2048], ["0.5mb"]])("accepts the limit %j", (limit) => {
    expect(() => webhookHandler({ secret: SECRET, on, limit })).not.toThrow();
  });
});
