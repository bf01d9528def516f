import request from "supertest";
import { describe, expect, it } from "vitest";
import { setup } from "../helpers";

function expectJsonHeaders(res: request.Response): void {
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(res.headers["x-content-type-options"]).toBe("nosniff");
  expect(res.headers["cache-control"]).toBe("no-store");
}

describe("response headers", () => {
  it("sends nosniff and no-store on /api/v1 answers, success and error", async () => {
    const h = await setup();
    const ok = await h.post("/api/v1/merchants/invoice/create", { amount: 10 });
    expect(ok.status).toBe(200);
    expectJsonHeaders(ok);
    const invalid = await h.post("/api/v1/merchants/invoice/create", { amount: "ten" });
    expect(invalid.status).toBe(400);
    expectJsonHeaders(invalid);
    const unauthorised = await h.post("/api/v1/merchants/invoice/create", { amount: 10 }, null);
    expect(unauthorised.status).toBe(401);
    expectJsonHeaders(unauthorised);
    const unknown = await request(h.app).get("/api/v1/nope");
    expect(unknown.status).toBe(404);
    expectJsonHeaders(unknown);
    const malformed = await h.post("/api/v1/merchants/invoice/create").set("Content-Type", "application/json").send("{");
    expect(malformed.status).toBe(400);
    expectJsonHeaders(malformed);
  });

  it("sends nosniff and no-store on /v1 answers, success and error", async () => {
    const h = await setup();
    const ok = await request(h.app).get("/v1/payments").set("Authorization", `Bearer ${h.testKey}`);
    expect(ok.status).toBe(200);
    expectJsonHeaders(ok);
    const missing = await request(h.app).get("/v1/payments/inv_nothing").set("Authorization", `Bearer ${h.testKey}`);
    expect(missing.status).toBe(404);
    expectJsonHeaders(missing);
    const wrongMethod = await request(h.app).delete("/v1/payments").set("Authorization", `Bearer ${h.testKey}`);
    expect(wrongMethod.status).toBe(405);
    expectJsonHeaders(wrongMethod);
  });

  it("sends nosniff and no-store on the OpenAPI document and the /api error answers", async () => {
    const h = await setup();
    const document = await request(h.app).get("/api/openapi");
    expect(document.status).toBe(200);
    expectJsonHeaders(document);
    const unknown = await request(h.app).get("/api/nothing-here");
    expect(unknown.status).toBe(404);
    expectJsonHeaders(unknown);
    const wrongMethod = await request(h.app).post("/api/openapi");
    expect(wrongMethod.status).toBe(405);
    expectJsonHeaders(wrongMethod);
  });

  it("works where the host mounted the router", async () => {
    const h = await setup({ mountPath: "/payments" });
    const res = await request(h.app).get("/payments/v1/payments").set("Authorization", `Bearer ${h.testKey}`);
    expect(res.status).toBe(200);
    expectJsonHeaders(res);
  });

  it("sends nosniff on the API reference page and keeps its assets cacheable", async () => {
    const h = await setup();
    const page = await request(h.app).get("/api");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    const script = await request(h.app).get("/api/assets/reference.js");
    expect(script.status).toBe(200);
    expect(script.headers["x-content-type-options"]).toBe("nosniff");
    expect(script.headers["cache-control"]).toBe("public, max-age=3600");
  });

  it("sends nosniff on the hosted payment page, which keeps no-store, and on its status JSON", async () => {
    const h = await setup();
    const created = await h.post("/api/v1/merchants/invoice/create", { amount: 10 });
    const id = created.body.id as string;
    const page = await request(h.app).get(`/pay/${id}`);
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.headers["cache-control"]).toBe("no-store");
    expectJsonHeaders(await request(h.app).get(`/pay/${id}/status`));
    const missing = await request(h.app).get("/pay/inv_unknown");
    expect(missing.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("leaves the host's own paths alone", async () => {
    const h = await setup();
    const res = await request(h.app).get("/host-route");
    expect(res.text).toBe("host");
    expect(res.headers["x-content-type-options"]).toBeUndefined();
    expect(res.headers["cache-control"]).toBeUndefined();
  });
});
