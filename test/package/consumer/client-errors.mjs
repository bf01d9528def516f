// The typed client and the in-process API as an ESM app uses them from the installed package:
// their errors are instances of the classes it exports, a list call iterates every page, and
// an option's typo is named at creation. Prints one JSON line.
import express from "express";
import { AuthenticationError, createPaymentClient, createPaymentRouter, InvalidRequestError, memoryStorage, PaymentError } from "express-crypto-pay";
import { postgresStorage } from "express-crypto-pay/postgres";

const typo = (create) => {
  try {
    create();
    return null;
  } catch (error) {
    return error.message;
  }
};

const payments = createPaymentRouter({
  storage: memoryStorage(),
  backgroundIntervalMs: false,
  publicUrl: "https://shop.example",
  webhooks: { intervalMs: false },
  logger: { warn: () => undefined, error: console.error },
});
const app = express();
app.use(payments);
const server = await new Promise((resolve) => {
  const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
});
try {
  const merchant = await payments.admin.createMerchant({ name: "Shop" });
  const { key } = await payments.admin.issueApiKey(merchant.id, { mode: "test" });
  const client = createPaymentClient({ baseUrl: `http://127.0.0.1:${server.address().port}`, apiKey: key, retries: 0 });
  for (const amount of ["1", "2", "3"]) await client.payments.create({ amount, currency: "TRX" });
  const listed = [];
  for await (const payment of client.payments.list({ limit: 1 })) listed.push(payment.amount);
  const missing = await client.payments.retrieve("inv_00000000000000000000000000").catch((error) => error);
  const wrongKey = await createPaymentClient({ baseUrl: `http://127.0.0.1:${server.address().port}`, apiKey: "sk_test_wrong", retries: 0 })
    .payments.list()
    .catch((error) => error);
  const inProcess = await payments
    .forMerchant(merchant.id, "test")
    .payments.retrieve("inv_00000000000000000000000000")
    .catch((error) => error);
  console.log(
    JSON.stringify({
      listed,
      notFound: [missing instanceof InvalidRequestError, missing instanceof PaymentError, missing.code],
      authentication: [wrongKey instanceof AuthenticationError, wrongKey instanceof PaymentError, wrongKey.code],
      inProcess: [inProcess instanceof InvalidRequestError, inProcess instanceof PaymentError, inProcess.code],
      typos: [typo(() => createPaymentRouter({ publicURL: "https://shop.example" })), typo(() => postgresStorage({ dataDIR: "./data" }))],
    }),
  );
} finally {
  server.close();
  await payments.close();
}
