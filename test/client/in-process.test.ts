import { describe, expect, it } from "vitest";
import { PaymentError } from "../../src/index";
import { setup } from "../helpers";
import { ADDRESS, deposit, get } from "../http/v1/support";

/**
 * `router.forMerchant(merchantId, mode)`: the /v1 API in process, with the same validation,
 * idempotency, errors and answers as over HTTP.
 */
const PUBLIC_URL = "https://shop.example";

describe("the in-process API", () => {
  it("creates, retrieves and lists payments, answering exactly what /v1 answers", async () => {
    const h = await setup({ publicUrl: PUBLIC_URL, mountPath: "/pay-service" });
    const api = h.router.forMerchant(h.merchant.id, "test");
    const payment = await api.payments.create({ amount: "25", currency: "USDT", chain: "TRX", metadata: { orderId: "1042" } });
    expect(payment).toMatchObject({
      object: "payment",
      livemode: false,
      status: "PENDING",
      amount: "25",
      currency: "USDT",
      chain: "TRX",
      metadata: { orderId: "1042" },
    });
    expect(payment.checkoutUrl).toBe(`${PUBLIC_URL}/pay-service/pay/${payment.id}`);

    const overHttp = await get(h, `/v1/payments/${payment.id}`);
    expect(await api.payments.retrieve(payment.id)).toEqual(overHttp.body);
    const page = await api.payments.list({ limit: 1 });
    expect(page).toMatchObject({ hasMore: false, nextCursor: null });
    expect(page.data.map((row) => row.id)).toEqual([payment.id]);
  });

  it("runs withdrawals, conversions, refunds, balances and payment links", async () => {
    const h = await setup({ publicUrl: PUBLIC_URL });
    const api = h.router.forMerchant(h.merchant.id, "test");
    const payment = await api.payments.create({ amount: "100", currency: "USDT", chain: "TRX" });
    await deposit(h, payment.address!, payment.payAmount!, 19);
    expect((await api.payments.retrieve(payment.id)).status).toBe("PAID");

    const withdrawal = await api.withdrawals.create({ currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS });
    expect(withdrawal).toMatchObject({ object: "withdrawal", status: "PROCESSING", amount: "10" });
    expect(await api.withdrawals.retrieve(withdrawal.id)).toMatchObject({ id: withdrawal.id });
    const conversion = await api.conversions.create({ fromCurrency: "USDT", toCurrency: "TRX", amount: "5" });
    expect(conversion).toMatchObject({ object: "conversion", status: "SUCCESS" });
    const refund = await api.refunds.create({ paymentId: payment.id, amount: "5", address: ADDRESS });
    expect(refund).toMatchObject({ object: "refund", paymentId: payment.id, amount: "5" });
    expect((await api.refunds.list({ paymentId: payment.id })).data.map((row) => row.id)).toEqual([refund.id]);
    const link = await api.paymentLinks.create({ amount: "25" });
    expect(link.url).toBe(`${PUBLIC_URL}/pay/link/${link.id}`);
    const { data } = await api.balances.retrieve();
    expect(data.find((row) => row.currency === "USDT")).toBeDefined();
    // The balance after all of it, as /v1/balances shows it.
    expect({ data }).toEqual((await get(h, "/v1/balances")).body);
  });

  it("rejects with the PaymentError the HTTP API answers", async () => {
    const h = await setup({ publicUrl: PUBLIC_URL });
    const api = h.router.forMerchant(h.merchant.id, "test");
    const invalid = await api.payments.create({ amount: 10 as never, currency: "USDT" }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(PaymentError);
    expect(invalid).toMatchObject({ code: 40001, type: "validation_error", message: expect.stringMatching(/amount/) });
    await expect(api.payments.retrieve("inv_unknown")).rejects.toMatchObject({ code: 40401 });
    // An id is one path segment: it cannot reach another route.
    await expect(api.payments.retrieve("../balances")).rejects.toMatchObject({ code: 40401 });
    const broke = await api.withdrawals.create({ currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS }).catch((error: unknown) => error);
    expect(broke).toMatchObject({ code: 42201, type: "insufficient_balance" });
    // Another merchant's payment is as unknown in process as over HTTP.
    const theirs = await h.router.forMerchant(h.other.id, "test").payments.create({ amount: "1", currency: "TRX" });
    await expect(api.payments.retrieve(theirs.id)).rejects.toMatchObject({ code: 40401 });
    await expect(h.router.forMerchant("m_nobody", "test").payments.list()).rejects.toMatchObject({ code: 40101 });
  });

  it("honours idempotencyKey, sharing keys with HTTP requests of the same merchant and mode", async () => {
    const h = await setup({ publicUrl: PUBLIC_URL });
    const api = h.router.forMerchant(h.merchant.id, "test");
    const body = { amount: "10", currency: "TRX" };
    const first = await api.payments.create(body, { idempotencyKey: "order-7" });
    expect(await api.payments.create(body, { idempotencyKey: "order-7" })).toEqual(first);
    const overHttp = await h.post("/v1/payments", body).set("Idempotency-Key", "order-7");
    expect(overHttp.headers["idempotent-replayed"]).toBe("true");
    expect(overHttp.body).toEqual(first);
    await expect(api.payments.create({ amount: "11", currency: "TRX" }, { idempotencyKey: "order-7" })).rejects.toMatchObject({ code: 40901 });
    expect((await api.payments.list()).data).toHaveLength(1);
    // Without a key each call creates.
    await api.payments.create(body);
    expect((await api.payments.list()).data).toHaveLength(2);
  });

  it("keeps live and test apart, and refuses a setup it cannot build links for", async () => {
    const h = await setup({ publicUrl: PUBLIC_URL });
    const test = await h.router.forMerchant(h.merchant.id, "test").payments.create({ amount: "1", currency: "TRX" });
    await expect(h.router.forMerchant(h.merchant.id, "live").payments.retrieve(test.id)).rejects.toMatchObject({ code: 40401 });
    expect(() => h.router.forMerchant(h.merchant.id, "prod" as never)).toThrow(/mode/);
    const without = await setup();
    expect(() => without.router.forMerchant(without.merchant.id, "test")).toThrow(/publicUrl/);
  });
});
