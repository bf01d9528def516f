/**
 * An order system that takes crypto payments through an express-crypto-pay service it reaches
 * over HTTP (its own process, or the example server), and marks orders paid when the signed
 * `payment.completed` webhook arrives. Marking paid is idempotent twice over: webhookHandler
 * runs each delivery once, and the order's own state makes a repeat a no-op.
 */
import { randomUUID } from "node:crypto";
import express from "express";
import { webhookHandler, type WebhookDedupeStore } from "../../src/index";

/** An order of this shop. */
export interface Order {
  id: string;
  amountUsd: string;
  status: "awaiting_payment" | "paid" | "payment_failed";
  paymentId: string | null;
  checkoutUrl: string | null;
  paidAt: string | null;
  /** Each `payment.completed` that arrived for it (one, unless something is wrong). */
  completions: number;
}

/** Where the payment service is and how the shop authenticates with it. */
export interface OrderSystemOptions {
  /** Base URL of the app the payment router is mounted in, e.g. http://localhost:3000. */
  paymentsUrl: string;
  /** The shop's `sk_test_` / `sk_live_` key. */
  apiKey: string;
  /** The `whsec_` secret of the webhook endpoint registered for this shop. */
  webhookSecret: string;
  /** Coin the shop asks for (default USDT on TRX). */
  coin?: { currency: string; chain: string };
  /** Dedupe store for webhooks; give a shared one when several instances run. */
  dedupe?: WebhookDedupeStore;
}

/** The order system as an Express app: POST /orders, GET /orders/:id, POST /hooks/pay. */
export function createOrderSystem(options: OrderSystemOptions) {
  const orders = new Map<string, Order>();
  const app = express();
  const coin = options.coin ?? { currency: "USDT", chain: "TRX" };

  // The webhook route comes before express.json(): signatures need the raw bytes.
  app.post(
    "/hooks/pay",
    webhookHandler({
      secret: options.webhookSecret,
      ...(options.dedupe ? { dedupe: options.dedupe } : {}),
      on: {
        "payment.completed": (event) => {
          const order = orders.get(String(event.data.metadata?.orderId));
          if (!order) return; // not ours (another shop on the same account): acknowledge and move on
          order.completions += 1;
          if (order.status === "paid") return;
          order.status = "paid";
          order.paidAt = event.timestamp ?? new Date().toISOString(); // an older sender may not stamp its events
        },
        "payment.failed": (event) => {
          const order = orders.get(String(event.data.metadata?.orderId));
          if (order && order.status === "awaiting_payment") order.status = "payment_failed";
        },
      },
    }),
  );

  app.use(express.json());

  app.post("/orders", async (req, res) => {
    const amountUsd = String(req.body?.amountUsd ?? "");
    if (!/^\d+(\.\d{1,2})?$/.test(amountUsd)) return void res.status(400).json({ message: "amountUsd must be a decimal like 19.99" });
    const order: Order = { id: randomUUID(), amountUsd, status: "awaiting_payment", paymentId: null, checkoutUrl: null, paidAt: null, completions: 0 };
    // The order id doubles as the Idempotency-Key: a retried request never opens a second payment.
    const response = await fetch(`${options.paymentsUrl}/v1/payments`, {
      method: "POST",
      headers: { authorization: `Bearer ${options.apiKey}`, "content-type": "application/json", "idempotency-key": `order-${order.id}` },
      body: JSON.stringify({ amount: amountUsd, amountCurrency: "USD", ...coin, metadata: { orderId: order.id } }),
    });
    const payment = (await response.json()) as { id: string; checkoutUrl: string; message?: string };
    if (!response.ok) return void res.status(502).json({ message: `the payment service refused: ${payment.message}` });
    order.paymentId = payment.id;
    order.checkoutUrl = payment.checkoutUrl;
    orders.set(order.id, order);
    res.status(201).json(order);
  });

  app.get("/orders/:id", (req, res) => {
    const order = orders.get(req.params.id);
    if (!order) return void res.status(404).json({ message: "no such order" });
    res.json(order);
  });

  return { app, orders };
}
