import request from "supertest";
import { expect } from "vitest";
import type { Harness } from "../../helpers";
import { deposit, get } from "./support";

/** A /v1 subscription as the API answers it. */
export interface SubscriptionBody {
  id: string;
  status: string;
  currentPeriodStart: string | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  openPaymentId: string | null;
  payerUrl?: string;
  [field: string]: unknown;
}

export const DAY = 24 * 60;

/** Creates a subscription (monthly, 10 USDT by default) and asserts it was created. */
export async function createSubscription(h: Harness, body: Record<string, unknown> = {}, key: string = h.testKey): Promise<SubscriptionBody> {
  const res = await h.post("/v1/subscriptions", { customer: "cus_1", amount: "10", currency: "USDT", interval: "month", ...body }, key);
  expect(res.status, res.text).toBe(200);
  return res.body as SubscriptionBody;
}

/** The subscription as it is now. */
export async function fetchSubscription(h: Harness, id: string, key: string = h.testKey): Promise<SubscriptionBody> {
  const res = await get(h, `/v1/subscriptions/${id}`, key);
  expect(res.status, res.text).toBe(200);
  return res.body as SubscriptionBody;
}

/** Moves the clock by `minutes` and runs one background round of test mode. */
export async function later(h: Harness, minutes: number): Promise<void> {
  h.clock.advanceMinutes(minutes);
  await h.router.tick({ mode: "test" });
}

/** Pays a hosted payment as a payer does: picks USDT on TRX on its page, then the sandbox sends the whole amount, confirmed. */
export async function payPayment(h: Harness, paymentId: string): Promise<void> {
  const chosen = await request(h.app)
    .post(`${h.prefix}/pay/${paymentId}/method`)
    .set("Sec-Fetch-Site", "same-origin")
    .type("form")
    .send({ coin: "USDT", network: "TRX" });
  expect(chosen.status, chosen.text).toBe(303);
  const payment = await get(h, `/v1/payments/${paymentId}`);
  await deposit(h, payment.body.address as string, payment.body.payAmount as string, 19);
  expect((await get(h, `/v1/payments/${paymentId}`)).body.status).toBe("PAID");
}
