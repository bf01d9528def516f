import { setup, type Harness } from "../../helpers";
import { ADDRESS, paidPayment, scopeOf } from "./support";

type Scoped = { h: Harness };

/** One creating route: a body to send, another body for the conflict, and how to count its records. */
export interface CreatingRoute {
  path: string;
  body: (context: Scoped & { paymentId: string }) => Record<string, unknown>;
  other: (context: Scoped & { paymentId: string }) => Record<string, unknown>;
  count: (h: Harness) => Promise<number>;
  /** Fields of the first answer a replay leaves out (shown once). */
  replayLeavesOut?: string[];
}

export const invoices = async (h: Harness) => (await h.router.storage.listInvoices(scopeOf(h), {}, { limit: 100 })).length;
export const payouts = async (h: Harness) => (await h.router.storage.listPayouts(scopeOf(h), { kind: "payout" }, { limit: 100 })).length;
const refunds = async (h: Harness) => (await h.router.storage.listPayouts(scopeOf(h), { kind: "refund" }, { limit: 100 })).length;
const exchanges = async (h: Harness) => (await h.router.storage.listExchanges(scopeOf(h), { limit: 100 })).length;
const links = async (h: Harness) => (await h.router.storage.listPaymentLinks!(scopeOf(h), { limit: 100 })).length;
const endpoints = async (h: Harness) => (await h.router.storage.listWebhookEndpoints(scopeOf(h))).length;

/** The creating POSTs of both prefixes, for the idempotency tests. */
export const CREATING_ROUTES: CreatingRoute[] = [
  { path: "/api/v1/merchants/invoice/create", body: () => ({ amount: 10 }), other: () => ({ amount: 11 }), count: invoices },
  {
    path: "/api/v1/merchants/whitelabel/create",
    body: () => ({ amount: 10, payCurrency: "TRX" }),
    other: () => ({ amount: 10, payCurrency: "BTC" }),
    count: invoices,
  },
  {
    path: "/api/v1/merchants/payout/create",
    body: () => ({ currency: "USDT", network: "TRX", amount: 10, address: ADDRESS }),
    other: () => ({ currency: "USDT", network: "TRX", amount: 11, address: ADDRESS }),
    count: payouts,
  },
  {
    path: "/api/v1/merchants/exchange/create",
    body: () => ({ fromCurrency: "USDT", toCurrency: "TRX", amount: 10 }),
    other: () => ({ fromCurrency: "USDT", toCurrency: "BTC", amount: 10 }),
    count: exchanges,
  },
  {
    path: "/v1/payments",
    body: () => ({ amount: "10", currency: "TRX" }),
    other: () => ({ amount: "10", currency: "TRX", metadata: { orderId: "b" } }),
    count: invoices,
  },
  {
    path: "/v1/withdrawals",
    body: () => ({ currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS }),
    other: () => ({ currency: "USDT", chain: "TRX", amount: "10", address: "TG3sXTBCd1mWfYvHeQHHyTth4adPg9u66A" }),
    count: payouts,
  },
  {
    path: "/v1/conversions",
    body: () => ({ fromCurrency: "USDT", toCurrency: "TRX", amount: "10" }),
    other: () => ({ fromCurrency: "USDT", toCurrency: "TRX", amount: "10.5" }),
    count: exchanges,
  },
  {
    path: "/v1/refunds",
    body: ({ paymentId }) => ({ paymentId, amount: "10", address: ADDRESS }),
    other: ({ paymentId }) => ({ paymentId, amount: "11", address: ADDRESS }),
    count: refunds,
  },
  // A refund claim link (no address): its claimUrl is shown once.
  {
    path: "/v1/refunds",
    body: ({ paymentId }) => ({ paymentId, amount: "10" }),
    other: ({ paymentId }) => ({ paymentId, amount: "11" }),
    count: refunds,
    replayLeavesOut: ["claimUrl"],
  },
  { path: "/v1/payment-links", body: () => ({ amount: "25" }), other: () => ({ amount: "26" }), count: links },
  {
    path: "/v1/webhook-endpoints",
    body: () => ({ url: "https://hooks.example/a" }),
    other: () => ({ url: "https://hooks.example/b" }),
    count: endpoints,
    replayLeavesOut: ["secret"],
  },
];

/** A harness whose merchant has 497.5 USDT available and a paid payment to refund. */
export async function funded(options: Parameters<typeof setup>[0] = {}) {
  const h = await setup(options);
  await paidPayment(h, "400");
  const payment = await paidPayment(h, "100");
  return { h, paymentId: payment.id };
}
