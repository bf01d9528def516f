import express, { type ErrorRequestHandler } from "express";
import request from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { memoryStorage } from "../../src/adapters/storage/memory/index";
import type { Storage } from "../../src/core/ports/storage/index";
import { webhookHandler } from "../../src/index";
import { webhookHeaders } from "../../src/webhooks/index";
import { expectErrorObject, setup } from "../helpers";

/**
 * The router on the host's Express major: 5 by default, 4 with EXPRESS_MAJOR=4 (vitest.config.ts
 * then resolves every `express` import, the library's own included, to Express 4). Express 4
 * does not catch the rejections of async handlers: a handler that let one escape would leave
 * the request hanging and the host process with an unhandled rejection. Every test here also
 * fails if the process saw one.
 */

const MAJOR = Number(process.env.EXPRESS_MAJOR ?? "5");
const UNKNOWN_INVOICE = "inv_00000000000000000000000000";
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/** Memory storage whose every call fails once `down` is set, as with a database that went away. */
function storageThatGoesDown() {
  const state = { down: false };
  const inner = memoryStorage();
  const storage = new Proxy(inner, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== "function" || key === "close") return value;
      return (...args: unknown[]) =>
        state.down ? Promise.reject(new Error("connection terminated")) : (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  }) as Storage;
  return { storage, state };
}

let unhandled: unknown[];
const collect = (reason: unknown) => void unhandled.push(reason);

beforeEach(() => {
  unhandled = [];
  process.on("unhandledRejection", collect);
});

afterEach(async () => {
  // A rejection is reported after the turn it happened in: give it one.
  await new Promise((resolve) => setTimeout(resolve, 20));
  process.off("unhandledRejection", collect);
  expect(unhandled, "unhandled rejections").toEqual([]);
});

describe(`on Express ${MAJOR}`, () => {
  it("runs on the Express major the test run asked for", async () => {
    const { version } = (await import("express/package.json")).default as { version: string };
    expect(Number(version.split(".")[0])).toBe(MAJOR);
  });

  it("answers an unknown invoice id with 404 and the error object on both APIs and the hosted page", async () => {
    const h = await setup();
    try {
      expectErrorObject(await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: UNKNOWN_INVOICE }), 404, 40401);
      expectErrorObject(await request(h.app).get(`/v1/payments/${UNKNOWN_INVOICE}`).set("Authorization", `Bearer ${h.testKey}`), 404, 40401);
      const page = await request(h.app).get(`/pay/${UNKNOWN_INVOICE}`);
      expect(page.status).toBe(404);
      expect(page.headers["content-type"]).toMatch(/^text\/html/);
      expectErrorObject(await request(h.app).get(`/pay/${UNKNOWN_INVOICE}/status`), 404, 40401);
      expect((await request(h.app).post(`/pay/${UNKNOWN_INVOICE}/method`).type("form").send({ coin: "USDT" })).status).toBe(404);
      expect((await request(h.app).get("/pay/link/plink_000000000000000000000000")).status).toBe(404);
      // The host's own routes still answer: the process is alive and well.
      expect((await request(h.app).get("/host-route")).text).toBe("host");
    } finally {
      await h.router.close();
    }
  });

  it("reads query strings itself: the host's query parser (qs on Express 4, or none) changes nothing", async () => {
    const h = await setup();
    try {
      const off = express();
      off.set("query parser", false);
      off.use(h.router);
      const create = await request(off).post("/v1/payments").set("Authorization", `Bearer ${h.testKey}`).send({ amount: "25", currency: "USDT", chain: "TRX" });
      expect(create.status).toBe(200);
      const list = (app: express.Express, query: string) => request(app).get(`/v1/payments?${query}`).set("Authorization", `Bearer ${h.testKey}`);
      expect((await list(off, "status=PAID")).body.data).toEqual([]);
      expect((await list(off, "status=PENDING")).body.data).toHaveLength(1);
      // Brackets are no syntax here, on Express 4 (whose default is qs) as on Express 5.
      const bracketed = await list(h.app, "limit[]=5");
      expectErrorObject(bracketed, 400, 40001);
      expect(bracketed.body.message).toContain("limit[]");
    } finally {
      await h.router.close();
    }
  });

  it("answers a failing storage with a 500 on every kind of route, and logs it", async () => {
    const { storage, state } = storageThatGoesDown();
    const h = await setup({ storage });
    const created = await h.post("/api/v1/merchants/invoice/create", { amount: 25 });
    expect(created.status).toBe(200);
    const link = await request(h.app).post("/v1/payment-links").set("Authorization", `Bearer ${h.testKey}`).send({ amount: "25" });
    expect(link.status).toBe(200);
    state.down = true;
    try {
      expectErrorObject(await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: created.body.id }), 500, 50001);
      expectErrorObject(await request(h.app).get(`/v1/payments/${created.body.id}`).set("Authorization", `Bearer ${h.testKey}`), 500, 50001);
      const page = await request(h.app).get(`/pay/${created.body.id}`);
      expect(page.status).toBe(500);
      expect(page.headers["content-type"]).toMatch(/^text\/html/);
      expectErrorObject(await request(h.app).get(`/pay/${created.body.id}/status`), 500, 50001);
      expect(
        (await request(h.app).post(`/pay/${created.body.id}/method`).set("Sec-Fetch-Site", "same-origin").type("form").send({ coin: "USDT" })).status,
      ).toBe(500);
      expect((await request(h.app).get(new URL(link.body.url as string).pathname)).status).toBe(500);
      expect(h.logger.lines.filter((line) => line.startsWith("error ")).length).toBeGreaterThanOrEqual(6);
    } finally {
      await h.router.close();
    }
  });

  it("passes a webhookHandler failure it cannot answer itself to the host's error middleware", async () => {
    const app = express();
    const seen: unknown[] = [];
    // A middleware that set an encoding on the request stream leaves webhookHandler no raw bytes to verify.
    app.post(
      "/hooks",
      (req, _res, next) => {
        req.setEncoding("utf8");
        next();
      },
      webhookHandler({ secret: SECRET, on: { "*": () => undefined }, logger: { warn: () => undefined, error: () => undefined } }),
    );
    const hostErrors: ErrorRequestHandler = (error, _req, res, _next) => {
      seen.push(error);
      res.status(500).send("host error page");
    };
    app.use(hostErrors);
    const body = JSON.stringify({ type: "payment.completed", timestamp: new Date().toISOString(), data: {} });
    const headers = webhookHeaders({ id: "msg_express_major", body }, SECRET);
    const res = await request(app).post("/hooks").set(headers).set("Content-Type", "application/json").send(body);
    expect(res.status).toBe(500);
    expect(res.text).toBe("host error page");
    expect(seen).toHaveLength(1);
  });
});
