import { createHmac } from "node:crypto";
import { parseWebhookEvent } from "/work/main/src/schemas/events";
import { readDeliveryHeaders, checkSignature, checkTimestamp, parseEventBody, verifyWebhook } from "/work/main/src/webhooks/verify";
import { webhookHeaders, webhookSignature } from "/work/main/src/webhooks/sign";
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const key = Buffer.from("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "base64");
const data = { id: "inv_abc", object: "payment", livemode: false, status: "PAID", amount: "25", amountCurrency: "USD", currency: "USDT", chain: "TRX", address: "TXYZabc", rate: "1", payAmount: "25", receivedAmount: "25", txHash: "0xabc", feePaidByPayer: false, underPaidCover: "0", isWhiteLabel: true, checkoutUrl: "http://x/pay/inv_abc", returnUrl: null, metadata: { orderId: "o-1", note: "x".repeat(300) }, failureReason: null, expiresAt: new Date().toISOString(), createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() };
const body = Buffer.from(JSON.stringify({ type: "payment.completed", timestamp: new Date().toISOString(), data }));
const json = JSON.parse(body.toString());
const h = webhookHeaders({ id: "msg_1", body }, secret);
const d = readDeliveryHeaders(h);
const fns: Record<string, () => unknown> = {
  base: () => { createHmac("sha256", key).update(`msg_1.${d.timestamp}.`).update(body).digest("base64"); return JSON.parse(body.toString()); },
  parse: () => JSON.parse(body.toString()),
  check: () => parseWebhookEvent(json),
  headers: () => readDeliveryHeaders(h),
  ts: () => checkTimestamp(d.timestamp, 300, Date.now()),
  wsig: () => webhookSignature(key, { id: d.id, timestamp: d.timestamp, body }),
  sig: () => checkSignature([key], d, body),
  body: () => parseEventBody(body),
  all: () => verifyWebhook(body, h, secret),
};
for (let r = 0; r < 2; r++) for (const [n, f] of Object.entries(fns)) { const t = performance.now(); let i = 0; while (performance.now() - t < 400) { for (let j = 0; j < 100; j++) f(); i += 100; } console.log(n, (400000 / i).toFixed(2), "us"); }
