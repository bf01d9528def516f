// A TypeScript host app (ESM), compiled with tsc --strict against the package's .d.ts and then
// run: typed webhook dispatch, the router type, the adapters of the subpath entries.
import express, { type ErrorRequestHandler } from "express";
import {
  type createPaymentClient,
  createPaymentRouter,
  RateLimitError,
  memoryStorage,
  PaymentError,
  webhookHandler,
  type Payment,
  type PaymentEvent,
  type PaymentRouter,
  type PaymentRouterOptions,
} from "express-crypto-pay";
import { postgresStorage } from "express-crypto-pay/postgres";
import { exchangeRates } from "express-crypto-pay/rates";

const options: PaymentRouterOptions = {
  storage: memoryStorage(),
  backgroundIntervalMs: false,
  webhooks: { intervalMs: false },
  logger: { warn: () => undefined, error: console.error },
};
const payments: PaymentRouter = createPaymentRouter(options);
const paid: string[] = [];
const onCompleted = (event: PaymentEvent<"payment.completed">): void => {
  const orderId: unknown = event.data.metadata?.orderId;
  if (typeof orderId === "string") paid.push(orderId);
};
const app = express();
app.post("/hooks/pay", webhookHandler({ secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", on: { "payment.completed": onCompleted } }));
app.use(payments);
const hostErrors: ErrorRequestHandler = (error: unknown, _req, res, _next) => void res.status(error instanceof PaymentError ? error.status : 500).end();
app.use(hostErrors);

// Compiled, not run: a list call is a page when awaited and its items when iterated.
async function paidIds(client: ReturnType<typeof createPaymentClient>): Promise<string[]> {
  const ids: string[] = [];
  for await (const payment of client.payments.list({ status: "PAID" })) ids.push(payment.id);
  const first: { data: Payment[]; hasMore: boolean } = await client.payments.list();
  const some: Payment[] = await client.payments.list().autoPagingToArray({ limit: 10 });
  const wait: number | null = new RateLimitError("slow down", 3).retryAfter;
  return [...ids, ...first.data.map((payment) => payment.id), ...some.map((payment) => payment.id), String(wait)];
}
void paidIds;

const merchant = await payments.admin.createMerchant({ name: "Shop" });
const issued = await payments.admin.issueApiKey(merchant.id, { mode: "test" });
const adapters: Array<(...args: never[]) => unknown> = [postgresStorage, exchangeRates];
console.log(JSON.stringify({ key: issued.key.slice(0, 8), adapters: adapters.length, paid }));
await payments.close();
