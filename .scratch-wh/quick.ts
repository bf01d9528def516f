import { createHmac, timingSafeEqual } from "node:crypto";
import { verifyWebhook } from "/work/main/src/webhooks/verify";
import { webhookHeaders } from "/work/main/src/webhooks/sign";
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const data = { id: "inv_abc", object: "payment", livemode: false, status: "PAID", amount: "25", amountCurrency: "USD", currency: "USDT", chain: "TRX", address: "TXYZabc", rate: "1", payAmount: "25", receivedAmount: "25", txHash: "0xabc", feePaidByPayer: false, underPaidCover: "0", isWhiteLabel: true, checkoutUrl: "http://x/pay/inv_abc", returnUrl: null, metadata: { orderId: "o-1", note: "x".repeat(300) }, failureReason: null, expiresAt: new Date().toISOString(), createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() };
const body = Buffer.from(JSON.stringify({ type: "payment.completed", timestamp: new Date().toISOString(), data }));
console.log(body.length);
const h = webhookHeaders({ id: "msg_1", body }, secret);
const key = Buffer.from("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "base64");
function base() { const d = createHmac("sha256", key).update(`msg_1.${h["webhook-timestamp"]}.`).update(body).digest(); if (!timingSafeEqual(d, Buffer.from(h["webhook-signature"].slice(3), "base64"))) throw 1; return JSON.parse(body.toString()); }
function ours() { return verifyWebhook(body, h, secret); }
for (const [n, f] of [["base", base], ["ours", ours], ["base", base], ["ours", ours]] as const) { const t = performance.now(); let i = 0; while (performance.now() - t < 1000) { for (let j = 0; j < 100; j++) f(); i += 100; } console.log(n, i); }
