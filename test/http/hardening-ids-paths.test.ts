import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setup, type Harness } from "../helpers";

/**
 * Paths under the router's prefixes (/api/v1, /v1, /api, /pay) that Express cannot percent-decode,
 * or that carry a NUL, are answered by the router itself: the error object under the API
 * prefixes, our own HTML page under /pay. Never a 500, never the host app's error page with its
 * stack trace. Run with TEST_STORAGE=pglite too.
 */

const MALFORMED = "%E0%A4%A";

let h: Harness;

beforeAll(async () => {
  h = await setup();
  // The host's own error handler, after the router: whatever reaches it was not answered by us.
  h.app.use((error: Error, _req: unknown, res: { status(code: number): { send(text: string): void } }, _next: unknown) => {
    res.status(599).send(`host handler: ${error.stack}`);
  });
});

afterAll(async () => {
  await h.router.close();
});

function get(path: string) {
  return request(h.app).get(path).set("Authorization", `Bearer ${h.testKey}`);
}

function expectErrorObject(res: request.Response, statuses: number[]): void {
  expect(statuses, `${res.status} ${res.text.slice(0, 200)}`).toContain(res.status);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(Object.keys(res.body).sort()).toEqual(["error", "message"]);
  expect(res.body.error).toBe(res.status * 100 + (res.body.error % 100));
}

function expectOurPage(res: request.Response, statuses: number[]): void {
  expect(statuses, `${res.status} ${res.text.slice(0, 200)}`).toContain(res.status);
  expect(res.headers["content-type"]).toMatch(/^text\/(html|plain)/);
  expect(res.text).not.toMatch(/URIError|host handler|\bat .*\.(js|ts):\d+/);
}

describe("a path that cannot be percent-decoded", () => {
  it.each([
    `/api/v1/merchants/${MALFORMED}`,
    `/v1/payments/${MALFORMED}`,
    `/v1/webhook-endpoints/${MALFORMED}/test`,
    `/api/assets/${MALFORMED}`,
    `/api/${MALFORMED}`,
  ])("answers %s with the error object (400 or 404)", async (path) => {
    expectErrorObject(await get(path), [400, 404]);
  });

  it.each([`/pay/link/${MALFORMED}`, `/pay/${MALFORMED}`, `/pay/${MALFORMED}/method`])("answers %s with our own page", async (path) => {
    expectOurPage(await get(path), [400, 404]);
  });

  it("answers the hosted page's status poll with JSON", async () => {
    expectErrorObject(await get(`/pay/${MALFORMED}/status`), [400]);
  });

  it("answers under any mount path", async () => {
    const mounted = await setup({ mountPath: "/shop" });
    try {
      expectErrorObject(await request(mounted.app).get(`/shop/api/assets/${MALFORMED}`), [400]);
      expectOurPage(await request(mounted.app).get(`/shop/pay/link/${MALFORMED}`), [400]);
    } finally {
      await mounted.router.close();
    }
  });
});

describe("a path with a NUL or control character", () => {
  it("answers /pay/link/:id as an unknown link (404)", async () => {
    for (const id of ["%00", "plink_%00", "plink_%01abc", "a".repeat(3000)]) {
      const res = await get(`/pay/link/${id}`);
      expectOurPage(res, [404]);
      expect(res.text).toMatch(/does not exist/);
    }
  });

  it("answers /v1/payments/%00 404 (40401) as an unknown payment", async () => {
    const res = await get("/v1/payments/%00");
    expectErrorObject(res, [404]);
    expect(res.body.error).toBe(40401);
  });

  it("logged no error", () => {
    expect(h.logger.lines.filter((line) => line.startsWith("error"))).toEqual([]);
  });
});
