import type { AddressInfo } from "node:net";
import express from "express";
import request from "supertest";
import { describe, expect, expectTypeOf, it } from "vitest";
import { webhookHeaders, type WebhookHeaders } from "../../src/webhooks/sign";
import { webhookHandler } from "../../src/webhooks/webhook-handler";
import { SECRET } from "./fixtures";

/**
 * What webhookHeaders() returns goes straight into the header arguments of the tools a
 * receiver's tests use: fetch's `headers` (HeadersInit) and supertest's `.set()` (a
 * Record<string, string>), with no spread or cast. An interface has no index signature and is
 * assignable to neither, so this file stops compiling if WebhookHeaders becomes one again.
 */

const body = JSON.stringify({ type: "payment.completed", timestamp: new Date().toISOString(), data: { id: "inv_headers_1", status: "PAID" } });

function app(paid: string[]) {
  const receiver = express();
  receiver.post("/hooks/pay", webhookHandler({ secret: SECRET, on: { "payment.completed": (event) => void paid.push(event.data.id) } }));
  return receiver;
}

describe("WebhookHeaders", () => {
  it("is assignable to fetch's HeadersInit and to a Record<string, string>", () => {
    expectTypeOf<WebhookHeaders>().toExtend<NonNullable<RequestInit["headers"]>>();
    expectTypeOf<WebhookHeaders>().toExtend<Record<string, string>>();
  });

  it("is what supertest's set() takes as it is", async () => {
    const paid: string[] = [];
    await request(app(paid))
      .post("/hooks/pay")
      .set(webhookHeaders({ id: "msg_headers_supertest", body }, SECRET))
      .set("content-type", "application/json")
      .send(body)
      .expect(200);
    expect(paid).toEqual(["inv_headers_1"]);
  });

  it("is what fetch's headers take as they are", async () => {
    const paid: string[] = [];
    const server = app(paid).listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/pay`;
      const response = await fetch(url, { method: "POST", headers: webhookHeaders({ id: "msg_headers_fetch", body }, SECRET), body });
      expect(response.status).toBe(200);
      const headers = new Headers(webhookHeaders({ id: "msg_headers_fetch_2", body }, SECRET));
      headers.set("content-type", "application/json");
      expect((await fetch(url, { method: "POST", headers, body })).status).toBe(200);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(paid).toEqual(["inv_headers_1", "inv_headers_1"]);
  });
});
