import { createHmac, timingSafeEqual } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { verifyWebhook, webhookHeaders } from "../dist/index.js";
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const key = Buffer.from(secret.slice(6), "base64");
const at = new Date().toISOString();
const items = Array.from({ length: 3 }, (_, i) => ({ sku: `SKU-${i}`, quantity: 1, price: "1.99" }));
const data = { id: "inv_7Qm2a9XkLp0RtY4sW1cE3vBn", object: "payment", livemode: true, status: "PAID", amount: "25", amountCurrency: "USD", currency: "USDT", chain: "TRX", address: "TXb4Qm2a9XkLp0RtY4sW1cE3vBnA7Qm2a", rate: "1", payAmount: "25", receivedAmount: "25", txHash: "0x5f2c8e1a9b7d3c6e4f0a2b8d1c7e9f3a5b6c4d2e8f1a0b9c7d3e5f2a4b6c8d0e", feePaidByPayer: false, underPaidCover: "0.5", isWhiteLabel: true, checkoutUrl: "https://pay.example/pay/inv_7Qm2a9XkLp0RtY4sW1cE3vBn", returnUrl: "https://shop.example/thanks", metadata: { orderId: "order-1042", items, note: "x".repeat(120) }, failureReason: null, expiresAt: at, createdAt: at, updatedAt: at };
const body = Buffer.from(JSON.stringify({ type: "payment.completed", timestamp: at, data }));
console.log(body.length);
const h = webhookHeaders({ id: "msg_1", body }, secret);
const peer = new Webhook(secret);
const fns: Record<string, () => unknown> = {
  raw: () => { const e = createHmac("sha256", key).update(`${h["webhook-id"]}.${h["webhook-timestamp"]}.`).update(body).digest(); if (!timingSafeEqual(e, Buffer.from(h["webhook-signature"].slice(3), "base64"))) throw 1; return JSON.parse(body.toString("utf8")); },
  ours: () => verifyWebhook(body, h, secret),
  peer: () => peer.verify(body, h),
};
const best: Record<string, number> = {};
for (let r = 0; r < 15; r++) for (const [n, f] of Object.entries(fns)) { const t = performance.now(); let i = 0; while (performance.now() - t < 100) { for (let k = 0; k < 10; k++) f(); i += 10; } const us = (performance.now() - t) * 1000 / i; best[n] = Math.min(best[n] ?? Infinity, us); }
for (const [n, us] of Object.entries(best)) console.log(n.padEnd(8), us.toFixed(3), "us");
console.log("ours/raw speed", (best.raw! / best.ours!).toFixed(3), "ours vs peer", (best.peer! / best.ours!).toFixed(2));
