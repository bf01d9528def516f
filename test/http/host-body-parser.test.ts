import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { expectErrorObject, setup, type Harness } from "../helpers";

const CREATE = "/api/v1/merchants/invoice/create";

/** A host app that parses bodies itself before the payment router, as many apps do. */
function hostApp(h: Harness, parser: express.RequestHandler, options: { errorHandler?: boolean; mountPath?: string } = {}) {
  const { errorHandler = true, mountPath = "/" } = options;
  const app = express();
  app.use(parser);
  app.post("/shop/orders", (req, res) => void res.json({ order: req.body }));
  app.use(mountPath, h.router);
  if (errorHandler) app.use(mountPath, h.router.errorHandler);
  // The host's own error handler: whatever reaches it answers in the host's format.
  app.use(((error, _req, res, _next) => void res.status(599).json({ host: String((error as Error).message) })) as express.ErrorRequestHandler);
  return app;
}

/** POSTs JSON text as written, with the harness's test key. */
const post = (h: Harness, app: express.Express, path: string, text: string, type = "application/json") =>
  request(app).post(path).set("Authorization", `Bearer ${h.testKey}`).set("Content-Type", type).send(text);

describe("a host body parser mounted before the router", () => {
  it("leaves valid requests working on both APIs", async () => {
    const h = await setup();
    const app = hostApp(h, express.json());
    const invoice = await post(h, app, CREATE, '{"amount": 12.5}');
    expect(invoice.status).toBe(200);
    expect(invoice.body.amount).toBe(12.5);
    const payment = await post(h, app, "/v1/payments", '{"amount": "25", "currency": "USDT", "chain": "TRX"}');
    expect(payment.status).toBe(200);
    expect(payment.body.payAmount).toBe("25");
    expect((await post(h, app, "/shop/orders", '{"sku": "tee"}')).body).toEqual({ order: { sku: "tee" } });
  });

  it("answers its malformed JSON on the API paths with the error object, through errorHandler", async () => {
    const h = await setup();
    const app = hostApp(h, express.json());
    expectErrorObject(await post(h, app, CREATE, '{"amount": 1'), 400, 40004);
    expectErrorObject(await post(h, app, "/v1/payments", "{nope"), 400, 40004);
  });

  it("answers a body over its limit with 413 (41301), and an unsupported charset with 415 (41501)", async () => {
    const h = await setup();
    const app = hostApp(h, express.json({ limit: "1kb" }));
    const big = await post(h, app, CREATE, JSON.stringify({ amount: 1, metadata: { note: "x".repeat(2048) } }));
    expectErrorObject(big, 413, 41301);
    expect(big.headers["cache-control"]).toBe("no-store");
    expectErrorObject(await post(h, app, CREATE, '{"amount": 1}', "application/json; charset=koi8-r"), 415, 41501);
  });

  it("leaves the parser's errors on the host's own paths, and the host's own errors, to the host", async () => {
    const h = await setup();
    const app = hostApp(h, express.json());
    const hostPath = await post(h, app, "/shop/orders", "{nope");
    expect(hostPath.status).toBe(599);
    const throwing = express();
    throwing.use(() => {
      throw new Error("host auth failed");
    });
    throwing.use(h.router, h.router.errorHandler);
    throwing.use(((error, _req, res, _next) => void res.status(599).json({ host: (error as Error).message })) as express.ErrorRequestHandler);
    const own = await post(h, throwing, CREATE, '{"amount": 1}');
    expect(own.status).toBe(599);
    expect(own.body).toEqual({ host: "host auth failed" });
  });

  it("works under a mount path when errorHandler is mounted at the same path", async () => {
    const h = await setup();
    const app = hostApp(h, express.json(), { mountPath: "/payments" });
    expect((await post(h, app, `/payments${CREATE}`, '{"amount": 3}')).status).toBe(200);
    expectErrorObject(await post(h, app, `/payments${CREATE}`, "{"), 400, 40004);
  });

  it("without errorHandler, the parser's failures are the host's to answer (Express passes them to error handlers only)", async () => {
    const h = await setup();
    const app = hostApp(h, express.json(), { errorHandler: false });
    const res = await post(h, app, CREATE, "{");
    expect(res.status).toBe(599);
  });

  it("rounds what JSON.parse rounds: over-precise numbers can no longer be refused", async () => {
    const h = await setup();
    const app = hostApp(h, express.json());
    const rounded = await post(h, app, CREATE, '{"amount": 10.0000000000000001}');
    expect(rounded.status).toBe(200);
    expect(rounded.body.amount).toBe(10);
  });

  it("parses bytes from express.raw and text from express.text itself, refusing over-precise numbers again", async () => {
    const h = await setup();
    for (const parser of [express.raw({ type: "application/json" }), express.text({ type: "*/*" })]) {
      const app = hostApp(h, parser);
      const ok = await post(h, app, CREATE, '{"amount": 12.5}');
      expect(ok.status).toBe(200);
      expect(ok.body.amount).toBe(12.5);
      const precise = await post(h, app, CREATE, '{"amount": 10.0000000000000001}');
      expectErrorObject(precise, 400, 40001);
      expect(precise.body.message).toContain("amount: the number 10.0000000000000001 has more precision");
      expectErrorObject(await post(h, app, CREATE, '{"amount": 1'), 400, 40004);
    }
  });

  it("reads the body itself when a host middleware left a default req.body on an unread stream", async () => {
    const h = await setup();
    const app = hostApp(h, (req, _res, next) => {
      req.body ??= {};
      next();
    });
    const res = await post(h, app, CREATE, '{"amount": 7}');
    expect(res.status).toBe(200);
    expect(res.body.amount).toBe(7);
  });

  it("answers 500 and logs how to fix it when a host middleware swallowed the body", async () => {
    const logged: unknown[] = [];
    const h = await setup({ logger: { warn: () => {}, error: (...args: unknown[]) => void logged.push(...args) } });
    const app = hostApp(h, (req, _res, next) => {
      req.resume();
      req.on("end", () => next());
    });
    const res = await post(h, app, CREATE, '{"amount": 7}');
    expectErrorObject(res, 500, 50001);
    expect(String(logged.find((item) => item instanceof Error))).toContain("read the request body and left nothing in req.body; mount the router before it");
  });
});
