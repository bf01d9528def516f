import type { AddressInfo } from "node:net";
import express, { type RequestHandler } from "express";
import request from "supertest";
import { webhookHandler, type WebhookHandlerOptions } from "../../src/webhooks/webhook-handler";
import { NOW_MS, recordingLogger, SECRET, signedHeaders } from "./fixtures";

/** An app with webhookHandler on POST /hooks/pay behind `before`, on the fixed clock. */
export function receiver(options: Partial<WebhookHandlerOptions> & { before?: RequestHandler[] } = {}) {
  const { before = [], ...handlerOptions } = options;
  const logger = recordingLogger();
  const app = express();
  app.post("/hooks/pay", ...before, webhookHandler({ secret: SECRET, now: () => NOW_MS, logger, on: { "*": () => undefined }, ...handlerOptions }));
  return { app, logger };
}

/** POSTs `body` with the given headers (default: correctly signed) to /hooks/pay. */
export function deliver(app: express.Express, body: string | Buffer, headers: object = signedHeaders(body), contentType = "application/json") {
  return request(app)
    .post("/hooks/pay")
    .set(headers as Record<string, string>)
    .set("content-type", contentType)
    .send(body);
}

/** Listens on a free port, for tests that need truly concurrent requests. */
export async function listening(app: express.Express) {
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  const post = async (body: string, headers: object) => {
    const response = await fetch(`http://127.0.0.1:${port}/hooks/pay`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body });
    return { status: response.status, body: (await response.json()) as Record<string, unknown>, retryAfter: response.headers.get("retry-after") };
  };
  return { post, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
