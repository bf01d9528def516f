/**
 * The example host app behind `npm start`: an ordinary Express app with a route of its own and
 * the payment router mounted, on the embedded defaults (in-memory storage, sandbox chain, static
 * prices). It creates a demo merchant and prints a test key to try the API with.
 */
import express from "express";
import { createPaymentRouter } from "../../src/index";

const port = Number(process.env.PORT ?? 3000);
const demoKey = process.env.DEMO_API_KEY || undefined;
if (demoKey !== undefined && !demoKey.startsWith("sk_test_")) {
  console.error("DEMO_API_KEY must be a test key (sk_test_...): the demo merchant never gets a live key from the environment.");
  process.exit(1);
}

const payments = createPaymentRouter({ publicUrl: process.env.PUBLIC_URL });
const merchant = await payments.admin.createMerchant({ name: "Demo shop" });
const { key } = await payments.admin.issueApiKey(merchant.id, demoKey ? { key: demoKey } : { mode: "test" });

const app = express();
app.get("/", (_req, res) => {
  res.type("text").send("Demo shop. The payment API is under /api/v1 (try POST /api/v1/currencies with your test key).\n");
});
app.get("/health", (_req, res) => {
  res.json({ ok: true });
});
app.use(payments);

const server = app.listen(port, () => {
  const address = server.address();
  const base = `http://localhost:${typeof address === "object" && address ? address.port : port}`;
  console.log(`express-crypto-pay example listening on ${base}`);
  console.log(`demo merchant ${merchant.id}, test API key: ${key}`);
  console.log(`try: curl -X POST ${base}/api/v1/merchants/whitelabel/create -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" -d '{"amount":25,"payCurrency":"USDT","network":"TRX"}'`);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    server.close();
    void payments.close().then(() => process.exit(0));
  });
}
