/**
 * Runs the example order system: `tsx examples/order-system/index.ts` with PAYMENTS_URL,
 * PAYMENTS_API_KEY and WEBHOOK_SECRET set (register the endpoint first: POST /v1/webhook-endpoints
 * on the payment service with url http://localhost:4000/hooks/pay). PORT defaults to 4000.
 */
import { createOrderSystem } from "./app";

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} is required (see the comment at the top of examples/order-system/index.ts)`);
    process.exit(1);
  }
  return value;
};

const { app } = createOrderSystem({
  paymentsUrl: required("PAYMENTS_URL"),
  apiKey: required("PAYMENTS_API_KEY"),
  webhookSecret: required("WEBHOOK_SECRET"),
});
const port = Number(process.env.PORT ?? 4000);
app.listen(port, () => console.log(`order system listening on http://localhost:${port}`));
