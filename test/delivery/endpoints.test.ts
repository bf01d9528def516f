import type request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { secretKey } from "../../src/webhook-secret";
import { closeDeliveryTests, createEndpoint, del, get, harness } from "./receiver";

/** Webhook endpoint management under /v1: registration, the URL policy, reads, deletion, scoping. */

const ENDPOINTS = "/v1/webhook-endpoints";

afterEach(closeDeliveryTests);

function expectValidationError(res: request.Response): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error).toBe(40001);
  expect(typeof res.body.message).toBe("string");
}

function expectNotFound(res: request.Response): void {
  expect(res.status, JSON.stringify(res.body)).toBe(404);
  expect(res.body.error).toBe(40401);
}

describe("registering an endpoint", () => {
  it("returns the endpoint with a whsec_ secret whose key decodes to 24 bytes", async () => {
    const h = await harness();
    const res = await h.post(ENDPOINTS, { url: "https://shop.example/hooks/pay" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^we_/),
      object: "webhook_endpoint",
      livemode: false,
      url: "https://shop.example/hooks/pay",
      events: null,
      status: "enabled",
      disabledReason: null,
    });
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(secretKey(res.body.secret)).toHaveLength(24);
  });

  it("gives every endpoint its own secret", async () => {
    const h = await harness();
    const first = await createEndpoint(h, "https://shop.example/a");
    const second = await createEndpoint(h, "https://shop.example/b");
    expect(first.secret).not.toBe(second.secret);
    expect(first.id).not.toBe(second.id);
  });

  it("keeps the subscribed event types, each once", async () => {
    const h = await harness();
    const endpoint = await createEndpoint(h, "https://shop.example/hook", { events: ["payment.completed", "payment.failed", "payment.completed"] });
    expect(endpoint.events).toEqual(["payment.completed", "payment.failed"]);
  });

  it("subscribes to every event when events is null", async () => {
    const h = await harness();
    const res = await h.post(ENDPOINTS, { url: "https://shop.example/hook", events: null });
    expect(res.status).toBe(200);
    expect(res.body.events).toBeNull();
  });

  it.each([
    ["a missing url", {}],
    ["a url that is not a string", { url: 42 }],
    ["an empty url", { url: "" }],
    ["a relative url", { url: "/hooks/pay" }],
    ["a url that does not parse", { url: "not a url" }],
    ["an ftp: url", { url: "ftp://shop.example/hook" }],
    ["a javascript: url", { url: "javascript:alert(1)" }],
    ["credentials in the url", { url: "https://user:pass@shop.example/hook" }],
    ["a user name alone in the url", { url: "https://user@shop.example/hook" }],
    ["an unknown event type", { url: "https://shop.example/hook", events: ["payment.refunded"] }],
    ["an empty events array", { url: "https://shop.example/hook", events: [] }],
    ["events that are not an array", { url: "https://shop.example/hook", events: "payment.completed" }],
    ["an unknown field", { url: "https://shop.example/hook", secret: "whsec_AAAA" }],
    ["a body that is not an object", ["https://shop.example/hook"]],
  ])("refuses %s with 400 (40001)", async (_what, body) => {
    const h = await harness();
    expectValidationError(await h.post(ENDPOINTS, body));
    expect(await h.router.storage.listWebhookEndpoints({ merchantId: h.merchant.id, mode: "test" })).toEqual([]);
  });

  it("names the field and the rule in the validation message", async () => {
    const h = await harness();
    const ftp = await h.post(ENDPOINTS, { url: "ftp://shop.example/hook" });
    expect(ftp.body.message).toMatch(/url: must use http or https/);
    const creds = await h.post(ENDPOINTS, { url: "https://user:pass@shop.example/hook" });
    expect(creds.body.message).toMatch(/url: must not contain credentials/);
    const unknown = await h.post(ENDPOINTS, { url: "https://shop.example/hook", extra: true });
    expect(unknown.body.message).toMatch(/unknown field "extra"/);
  });

  it("answers 401 (40101) without an API key", async () => {
    const h = await harness();
    const res = await h.post(ENDPOINTS, { url: "https://shop.example/hook" }, null);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe(40101);
  });
});

// The address policy (private, loopback and reserved URLs, in both modes) is in address-policy.test.ts.

describe("reading endpoints", () => {
  it("shows one endpoint without its secret", async () => {
    const h = await harness();
    const created = await createEndpoint(h, "https://shop.example/hook", { events: ["payment.completed"] });
    const res = await get(h, `${ENDPOINTS}/${created.id}`);
    expect(res.status).toBe(200);
    const { secret, ...withoutSecret } = created;
    expect(res.body).toEqual(withoutSecret);
    expect(res.body).not.toHaveProperty("secret");
    expect(res.text).not.toContain(secret);
    expect(res.text).not.toContain("whsec_");
  });

  it("lists the endpoints of the key's merchant and mode, oldest first, without secrets", async () => {
    const h = await harness();
    const first = await createEndpoint(h, "https://shop.example/a");
    h.clock.advanceMinutes(1);
    const second = await createEndpoint(h, "https://shop.example/b", { events: ["payment.failed"] });
    const res = await get(h, ENDPOINTS);
    expect(res.status).toBe(200);
    expect(res.body.data.map((endpoint: { id: string }) => endpoint.id)).toEqual([first.id, second.id]);
    expect(res.text).not.toContain("whsec_");
    expect(res.body.data[1]).toMatchObject({ url: "https://shop.example/b", events: ["payment.failed"], status: "enabled" });
  });

  it("refuses query parameters on the list with 400 (40001)", async () => {
    const h = await harness();
    expectValidationError(await get(h, `${ENDPOINTS}?status=enabled`));
  });

  it("answers 404 (40401) to an id that does not exist", async () => {
    const h = await harness();
    expectNotFound(await get(h, `${ENDPOINTS}/we_nope`));
  });
});

describe("deleting an endpoint", () => {
  it("deletes it: then it reads 404, is gone from the list and a second delete is 404", async () => {
    const h = await harness();
    const kept = await createEndpoint(h, "https://shop.example/kept");
    const endpoint = await createEndpoint(h, "https://shop.example/gone");
    const res = await del(h, `${ENDPOINTS}/${endpoint.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: endpoint.id, object: "webhook_endpoint", deleted: true });
    expectNotFound(await get(h, `${ENDPOINTS}/${endpoint.id}`));
    expect((await get(h, ENDPOINTS)).body.data.map((entry: { id: string }) => entry.id)).toEqual([kept.id]);
    expectNotFound(await del(h, `${ENDPOINTS}/${endpoint.id}`));
    expectNotFound(await h.post(`${ENDPOINTS}/${endpoint.id}/rotate-secret`));
    expectNotFound(await h.post(`${ENDPOINTS}/${endpoint.id}/test`));
  });
});

describe("rotating a secret", () => {
  it("returns a new secret once, and reads never show it", async () => {
    const h = await harness();
    const endpoint = await createEndpoint(h, "https://shop.example/hook");
    const res = await h.post(`${ENDPOINTS}/${endpoint.id}/rotate-secret`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(endpoint.id);
    expect(res.body.secret).toMatch(/^whsec_/);
    expect(res.body.secret).not.toBe(endpoint.secret);
    const read = await get(h, `${ENDPOINTS}/${endpoint.id}`);
    expect(read.text).not.toContain("whsec_");
  });

  it("refuses a body with fields with 400 (40001)", async () => {
    const h = await harness();
    const endpoint = await createEndpoint(h, "https://shop.example/hook");
    expectValidationError(await h.post(`${ENDPOINTS}/${endpoint.id}/rotate-secret`, { expiresInMinutes: 5 }));
  });
});

describe("scoping", () => {
  it("answers 404 (40401) to another merchant's endpoint on every route, and changes nothing", async () => {
    const h = await harness();
    const endpoint = await createEndpoint(h, "https://shop.example/hook");
    const key = h.otherTestKey;
    expectNotFound(await get(h, `${ENDPOINTS}/${endpoint.id}`, key));
    expectNotFound(await del(h, `${ENDPOINTS}/${endpoint.id}`, key));
    expectNotFound(await h.post(`${ENDPOINTS}/${endpoint.id}/rotate-secret`, undefined, key));
    expectNotFound(await h.post(`${ENDPOINTS}/${endpoint.id}/test`, undefined, key));
    expect((await get(h, ENDPOINTS, key)).body.data).toEqual([]);

    // Still there, unchanged, and no test delivery was queued for it.
    const own = await get(h, `${ENDPOINTS}/${endpoint.id}`);
    expect(own.status).toBe(200);
    const stored = await h.router.storage.getWebhookEndpoint({ merchantId: h.merchant.id, mode: "test" }, endpoint.id);
    expect(stored?.secrets.map((entry) => entry.secret)).toEqual([endpoint.secret]);
    expect(await h.router.storage.listWebhookDeliveries({ merchantId: h.merchant.id, mode: "test" }, {}, { limit: 10 })).toEqual([]);
  });

  it("keeps test and live endpoints apart: each key sees only its mode's", async () => {
    const h = await harness({ webhooks: { allowPrivateUrls: true } });
    const testEndpoint = await createEndpoint(h, "https://shop.example/test");
    const liveEndpoint = await createEndpoint(h, "https://shop.example/live", { key: h.liveKey });
    expect(liveEndpoint.secret).not.toBe(testEndpoint.secret);

    expect((await get(h, ENDPOINTS)).body.data.map((entry: { id: string }) => entry.id)).toEqual([testEndpoint.id]);
    expect((await get(h, ENDPOINTS, h.liveKey)).body.data.map((entry: { id: string }) => entry.id)).toEqual([liveEndpoint.id]);
    expect((await get(h, ENDPOINTS, h.liveKey)).body.data[0].livemode).toBe(true);

    for (const [id, key] of [
      [testEndpoint.id, h.liveKey],
      [liveEndpoint.id, h.testKey],
    ] as const) {
      expectNotFound(await get(h, `${ENDPOINTS}/${id}`, key));
      expectNotFound(await del(h, `${ENDPOINTS}/${id}`, key));
      expectNotFound(await h.post(`${ENDPOINTS}/${id}/rotate-secret`, undefined, key));
      expectNotFound(await h.post(`${ENDPOINTS}/${id}/test`, undefined, key));
    }
    expect((await get(h, `${ENDPOINTS}/${liveEndpoint.id}`, h.liveKey)).status).toBe(200);
  });
});
