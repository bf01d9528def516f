/**
 * A webhook receiver target for bench/webhooks.ts, in its own process so that the load
 * generator does not share its event loop: `tsx bench/webhook-target.ts raw|handler <secret>`.
 * Prints one JSON line with its port once it listens.
 */
import express from "express";
import { webhookHandler } from "../dist/index.js";

const [kind, secret] = process.argv.slice(2);
if (!secret) throw new Error("usage: webhook-target.ts raw|handler <secret>");
const app = express();

if (kind === "raw") {
  // The baseline: the least any Express receiver does, read the raw bytes and answer.
  app.post("/hooks/pay", express.raw({ type: "application/json" }), (_req, res) => {
    res.json({ received: true });
  });
} else if (kind === "handler") {
  // Verified, parsed, deduped (default memory store) and dispatched to a handler that does nothing.
  app.post("/hooks/pay", webhookHandler({ secret, on: { "payment.completed": () => undefined } }));
} else {
  throw new Error(`unknown target ${kind}`);
}

const server = app.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  console.log(JSON.stringify({ port: address.port }));
});

process.on("SIGTERM", () => process.exit(0));
