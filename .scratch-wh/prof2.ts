import { verifyWebhook, webhookHeaders } from "../dist/index.js";
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const at = new Date().toISOString();
const data = { id: "inv_abc", object: "payment", livemode: false, status: "PAID", amount: "25", amountCurrency: "USD", currency: "USDT", chain: "TRX", address: "TXYZabc", rate: "1", payAmount: "25", receivedAmount: "25", txHash: "0xabc", feePaidByPayer: false, underPaidCover: "0", isWhiteLabel: true, checkoutUrl: "http://x/pay/inv_abc", returnUrl: null, metadata: { orderId: "o-1", note: "x".repeat(300) }, failureReason: null, expiresAt: at, createdAt: at, updatedAt: at };
const body = Buffer.from(JSON.stringify({ type: "payment.completed", timestamp: at, data }));
const h = webhookHeaders({ id: "msg_1", body }, secret);
const t = performance.now(); let i = 0;
while (performance.now() - t < 4000) { for (let j = 0; j < 100; j++) verifyWebhook(body, h, secret); i += 100; }
console.log((4000000 / i).toFixed(3), "us");
