import { readDeliveryHeaders, checkSignature, checkTimestamp, parseEventBody, verifyWebhook, verifyDelivery } from "/work/main/src/webhooks/verify";
import { webhookHeaders } from "/work/main/src/webhooks/sign";
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const key = Buffer.from("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "base64");
const keys = [key];
const data = { id: "inv_abc", object: "payment", livemode: false, status: "PAID", amount: "25", amountCurrency: "USD", currency: "USDT", chain: "TRX", address: "TXYZabc", rate: "1", payAmount: "25", receivedAmount: "25", txHash: "0xabc", feePaidByPayer: false, underPaidCover: "0", isWhiteLabel: true, checkoutUrl: "http://x/pay/inv_abc", returnUrl: null, metadata: { orderId: "o-1", note: "x".repeat(300) }, failureReason: null, expiresAt: new Date().toISOString(), createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() };
const body = Buffer.from(JSON.stringify({ type: "payment.completed", timestamp: new Date().toISOString(), data }));
const h = webhookHeaders({ id: "msg_1", body }, secret);
const fns: Record<string, () => unknown> = {
  composed: () => { const d = readDeliveryHeaders(h); checkTimestamp(d.timestamp, 300, Date.now()); checkSignature(keys, d, body); return parseEventBody(body); },
  sigbody: () => { const d = readDeliveryHeaders(h); checkSignature(keys, d, body); return parseEventBody(body); },
  delivery: () => verifyDelivery(keys, body, h, 300, Date.now()),
  all: () => verifyWebhook(body, h, secret),
  allKey: () => verifyWebhook(body, h, key),
};
const best: Record<string, number> = {};
for (let r = 0; r < 6; r++) for (const [n, f] of Object.entries(fns)) { const t = performance.now(); let i = 0; while (performance.now() - t < 150) { for (let k = 0; k < 100; k++) f(); i += 100; } const us = (performance.now() - t) * 1000 / i; best[n] = Math.min(best[n] ?? Infinity, us); }
for (const [n, us] of Object.entries(best)) console.log(n.padEnd(10), us.toFixed(3), "us");
