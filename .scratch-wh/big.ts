import { createHmac, timingSafeEqual } from "node:crypto";
import { verifyWebhook, webhookHeaders } from "../dist/index.js";
import { readDeliveryHeaders, checkSignature, parseEventBody } from "../src/webhooks/verify";
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const key = Buffer.from(secret.slice(6), "base64");
const items = Array.from({ length: 1500 }, (_, i) => ({ sku: `SKU-${i}`, quantity: 1 + (i % 3), price: "1.99" }));
const at = new Date().toISOString();
const data = { id: "inv_abc", object: "payment", livemode: false, status: "PAID", amount: "25", amountCurrency: "USD", currency: "USDT", chain: "TRX", address: "TXYZabc", rate: "1", payAmount: "25", receivedAmount: "25", txHash: "0xabc", feePaidByPayer: false, underPaidCover: "0", isWhiteLabel: true, checkoutUrl: "http://x/pay/inv_abc", returnUrl: null, metadata: { orderId: "o-1", items }, failureReason: null, expiresAt: at, createdAt: at, updatedAt: at };
const body = Buffer.from(JSON.stringify({ type: "payment.completed", timestamp: at, data }));
console.log(body.length);
const h = webhookHeaders({ id: "msg_1", body }, secret);
const d = readDeliveryHeaders(h);
const fns: Record<string, () => unknown> = {
  hmac: () => createHmac("sha256", key).update(`msg_1.${h["webhook-timestamp"]}.`).update(body).digest(),
  parse: () => JSON.parse(body.toString("utf8")),
  raw: () => { const e = createHmac("sha256", key).update(`msg_1.${h["webhook-timestamp"]}.`).update(body).digest(); timingSafeEqual(e, Buffer.from(h["webhook-signature"].slice(3), "base64")); return JSON.parse(body.toString("utf8")); },
  sig: () => checkSignature([key], d, body),
  body: () => parseEventBody(body),
  ours: () => verifyWebhook(body, h, secret),
};
const best: Record<string, number> = {};
for (let r = 0; r < 6; r++) for (const [n, f] of Object.entries(fns)) { const t = performance.now(); let i = 0; while (performance.now() - t < 200) { f(); i++; } const us = (performance.now() - t) * 1000 / i; best[n] = Math.min(best[n] ?? Infinity, us); }
for (const [n, us] of Object.entries(best)) console.log(n.padEnd(10), us.toFixed(1), "us");
