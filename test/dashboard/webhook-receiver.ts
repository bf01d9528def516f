import type { Server } from "node:http";
import express from "express";
import { webhookHandler, type WebhookEvent } from "../../src/index";
import type { WebhookMiddleware } from "../../src/webhooks/index";
import type { Harness } from "../helpers";

/**
 * A merchant's receiver on 127.0.0.1 as the README shows one: `webhookHandler` with the secret
 * the merchant copied from the dashboard, answering 2xx only to deliveries that verify. `trust`
 * swaps the secret it verifies with (a redeploy after a rotation).
 */
export interface VerifyingReceiver {
  url: string;
  /** The events that verified and were handled, in order. */
  events: WebhookEvent[];
  /** Verify from now on with this secret only. */
  trust(secret: string): void;
  close(): Promise<void>;
}

/** Starts a receiver verifying on the harness's clock (the sender signs with the same clock). */
export async function startVerifyingReceiver(h: Harness): Promise<VerifyingReceiver> {
  const events: WebhookEvent[] = [];
  const quiet = { warn: () => undefined, error: () => undefined };
  let handler: WebhookMiddleware | null = null;
  const app = express();
  app.post("/hook", (req, res, next) => {
    if (!handler) return void res.status(503).end();
    void handler(req, res, next);
  });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    events,
    trust(secret) {
      handler = webhookHandler({ secret, now: h.clock.now, logger: quiet, on: { "*": (event) => void events.push(event) } });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
