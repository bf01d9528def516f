// The same package seen from CommonJS TypeScript: resolves the "require" types (index.d.cts).
import payments = require("express-crypto-pay");

const router: payments.PaymentRouter = payments.createPaymentRouter({
  storage: payments.memoryStorage(),
  backgroundIntervalMs: false,
  webhooks: { intervalMs: false },
});
const code: number = payments.ERROR_CATALOGUE.not_found.code;
console.log(JSON.stringify({ code }));
void router.close();
