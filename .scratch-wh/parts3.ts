import { createHmac, timingSafeEqual } from "node:crypto";
import { parseWebhookEvent } from "/work/main/src/schemas/events";
import { readDeliveryHeaders, checkSignature, parseEventBody, verifyWebhook } from "/work/main/src/webhooks/verify";
import { webhookHeaders, webhookSignature } from "/work/main/src/webhooks/sign";
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const key = Buffer.from("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "base64");
const data = { id: "inv_abc", object: "payment", livemode: false, status: "PAID", amount: "25", amountCurrency: "USD", currency: "USDT", chain: "TRX", address: "TXYZabc", rate: "1", payAmount: "25", receivedAmount: "25", txHash: "0xabc", feePaidByPayer: false, underPaidCover: "0", isWhiteLabel: true, checkoutUrl: "http://x/pay/inv_abc", returnUrl: null, metadata: { orderId: "o-1", note: "x".repeat(300) }, failureReason: null, expiresAt: new Date().toISOString(), createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() };
const body = Buffer.from(JSON.stringify({ type: "payment.completed", timestamp: new Date().toISOString(), data }));
const json = JSON.parse(body.toString());
const h = webhookHeaders({ id: "msg_1", body }, secret);
const d = readDeliveryHeaders(h);
const sigB = Buffer.from(h["webhook-signature"].slice(3), "base64");
const ISO = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
const fns: Record<string, () => unknown> = {
  base: () => { const x = createHmac("sha256", key).update(`msg_1.${d.timestamp}.`).update(body).digest(); timingSafeEqual(x, sigB); return JSON.parse(body.toString()); },
  hmacOnly: () => createHmac("sha256", key).update(`msg_1.${d.timestamp}.`).update(body).digest(),
  parse: () => JSON.parse(body.toString()),
  check: () => parseWebhookEvent(json),
  iso: () => ISO.test("2026-03-01T11:55:00.000Z"),
  wsig: () => webhookSignature(key, { id: d.id, timestamp: d.timestamp, body }),
  sig: () => checkSignature([key], d, body),
  body: () => parseEventBody(body),
  all: () => verifyWebhook(body, h, secret),
};
const best: Record<string, number> = {};
for (let r = 0; r < 6; r++) for (const [n, f] of Object.entries(fns)) { const t = performance.now(); let i = 0; while (performance.now() - t < 150) { for (let j = 0; j < 100; j++) f(); i += 100; } const us = (performance.now() - t) * 1000 / i; best[n] = Math.min(best[n] ?? Infinity, us); }
for (const [n, us] of Object.entries(best)) console.log(n.padEnd(10), us.toFixed(3), "us");
