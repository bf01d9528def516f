import express from "express";
import { createPaymentRouter } from "/work/main/src/index";
const payments = createPaymentRouter({ backgroundIntervalMs: false });
const merchant = await payments.admin.createMerchant({ name: "Bench" });
const { key } = await payments.admin.issueApiKey(merchant.id, { mode: "test" });
const app = express(); app.use(payments);
const server = app.listen(0, "127.0.0.1", async () => {
  const port = (server.address() as any).port;
  const autocannon = (await import("autocannon")).default;
  const r = await autocannon({ url: `http://127.0.0.1:${port}/api/v1/merchants/invoice/create`, method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify({ amount: 25, amountCurrency: "USD", acceptedCoins: ["USDT", "BTC"], lifeTime: 60 }), connections: 10, duration: 4 });
  console.log(r.requests.average);
  server.close(); process.exit(0);
});
