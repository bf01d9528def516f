import { describe, expect, it } from "vitest";
import { setup, type Harness } from "../../helpers";
import { ADDRESS, createPayment, deposit, expectError, get, paidPayment, scopeOf } from "./support";

/**
 * /v1 and /api/v1 are two views of one model: a payment is an invoice (same id, status and
 * amounts), a withdrawal a payout, a conversion an exchange.
 */

const fetchInvoice = (h: Harness, invoiceId: string, key?: string) => h.post("/api/v1/merchants/invoice/fetch", { invoiceId }, key);

describe("one record through both prefixes", () => {
  it("fetches a /v1 payment as an invoice on /api/v1", async () => {
    const h = await setup();
    const payment = await createPayment(h, { amount: "12.5", currency: "USDT", chain: "TRX", metadata: { orderId: "ord-42" }, underPaidCover: "1.5" });
    const invoice = await fetchInvoice(h, payment.id);
    expect(invoice.status, invoice.text).toBe(200);
    expect(invoice.body).toMatchObject({
      id: payment.id,
      merchantId: h.merchant.id,
      status: payment.status,
      paymentUrl: payment.checkoutUrl,
      address: payment.address,
      amount: 12.5,
      amountCurrency: "USDT",
      rate: 1,
      payAmount: 12.5,
      receivedAmount: 0,
      cryptoCurrency: { symbol: "USDT" },
      network: { network: "TRX" },
      underPaidCover: 1.5,
      isWhiteLabel: true,
      metadata: { orderId: "ord-42" },
      createdAt: payment.createdAt,
      expiresAt: payment.expiresAt,
    });
  });

  it("fetches an /api/v1 invoice as a payment on /v1", async () => {
    const h = await setup();
    const invoice = await h.post("/api/v1/merchants/whitelabel/create", { amount: 30, payCurrency: "BTC", metadata: { orderId: "ord-9" } });
    expect(invoice.status).toBe(200);
    const payment = await get(h, `/v1/payments/${invoice.body.id}`);
    expect(payment.status).toBe(200);
    expect(payment.body).toMatchObject({
      id: invoice.body.id,
      object: "payment",
      status: invoice.body.status,
      amount: "30",
      amountCurrency: "USD",
      currency: "BTC",
      chain: "BTC",
      address: invoice.body.address,
      rate: "60000",
      payAmount: "0.0005",
      checkoutUrl: invoice.body.paymentUrl,
      metadata: { orderId: "ord-9" },
      createdAt: invoice.body.createdAt,
    });
    expect(Number(payment.body.payAmount)).toBe(invoice.body.payAmount);
  });

  it("shows a hosted /api/v1 invoice in the /v1 list and the same status on both sides as it is paid", async () => {
    const h = await setup();
    const hosted = await h.post("/api/v1/merchants/invoice/create", { amount: 5 });
    const whitelabel = await h.post("/api/v1/merchants/whitelabel/create", { amount: 10, amountCurrency: "TRX", payCurrency: "TRX" });
    const v1 = await createPayment(h, { amount: "10", currency: "TRX" });
    const list = await get(h, "/v1/payments");
    expect(list.body.data.map((row: { id: string }) => row.id).sort()).toEqual([hosted.body.id, whitelabel.body.id, v1.id].sort());

    await deposit(h, whitelabel.body.address, "10", 1);
    expect((await get(h, `/v1/payments/${whitelabel.body.id}`)).body).toMatchObject({ status: "CONFIRMING", receivedAmount: "10" });
    expect((await fetchInvoice(h, whitelabel.body.id)).body).toMatchObject({ status: "CONFIRMING", receivedAmount: 10 });

    await deposit(h, v1.address!, "10.25", 19);
    expect((await get(h, `/v1/payments/${v1.id}`)).body).toMatchObject({ status: "PAID", receivedAmount: "10.25" });
    expect((await fetchInvoice(h, v1.id)).body).toMatchObject({ status: "PAID", receivedAmount: 10.25 });
  });

  it("answers 404 on both prefixes for another merchant's record", async () => {
    const h = await setup();
    const payment = await createPayment(h, { amount: "10", currency: "TRX" });
    expectError(await fetchInvoice(h, payment.id, h.otherTestKey), 404, 40401);
    const invoice = await h.post("/api/v1/merchants/invoice/create", { amount: 5 }, h.otherTestKey);
    expectError(await get(h, `/v1/payments/${invoice.body.id}`), 404, 40401);
  });

  it("puts metadata.orderId into the data of every stored event of a /v1 payment", async () => {
    const h = await setup();
    const payment = await createPayment(h, { amount: "10", currency: "TRX", metadata: { orderId: "ord-77", customer: "c-1" } });
    await deposit(h, payment.address!, "10", 19);
    const events = await h.router.storage.listEvents(scopeOf(h), { invoiceId: payment.id });
    expect(events.map((event) => event.type)).toEqual(["payment.created", "payment.confirming", "payment.confirmed", "payment.completed"]);
    for (const event of events) {
      expect(event.data).toMatchObject({ id: payment.id, object: "payment", metadata: { orderId: "ord-77", customer: "c-1" } });
    }
    expect(events.at(-1)!.data).toMatchObject({ status: "PAID", receivedAmount: "10" });
  });

  it("puts metadata.orderId into the events of an /api/v1 invoice too", async () => {
    const h = await setup();
    const invoice = await h.post("/api/v1/merchants/whitelabel/create", {
      amount: 10,
      amountCurrency: "TRX",
      payCurrency: "TRX",
      metadata: { orderId: "ord-88" },
    });
    await deposit(h, invoice.body.address, "10", 19);
    const events = await h.router.storage.listEvents(scopeOf(h), { invoiceId: invoice.body.id });
    expect(events.length).toBeGreaterThanOrEqual(4);
    for (const event of events) expect((event.data.metadata as { orderId?: string } | null)?.orderId).toBe("ord-88");
  });

  it("shows a /v1 withdrawal as an /api/v1 payout and an /api/v1 exchange as a /v1 conversion", async () => {
    const h = await setup();
    await paidPayment(h, "100");
    const withdrawal = await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS });
    const payout = await h.post("/api/v1/merchants/payout/fetch", { payoutId: withdrawal.body.id });
    expect(payout.status).toBe(200);
    expect(payout.body).toMatchObject({ id: withdrawal.body.id, status: "PROCESSING", amount: 10, fee: 2, address: ADDRESS, txHash: withdrawal.body.txHash });

    const apiPayout = await h.post("/api/v1/merchants/payout/create", { currency: "USDT", network: "TRX", amount: 5, address: ADDRESS });
    expect((await get(h, `/v1/withdrawals/${apiPayout.body.id}`)).body).toMatchObject({ id: apiPayout.body.id, amount: "5", fee: "2" });

    const exchange = await h.post("/api/v1/merchants/exchange/create", { fromCurrency: "USDT", toCurrency: "TRX", amount: 6 });
    expect(exchange.status).toBe(200);
    expect((await get(h, `/v1/conversions/${exchange.body.id}`)).body).toMatchObject({
      id: exchange.body.id,
      fromCurrency: "USDT",
      toCurrency: "TRX",
      amount: "6",
      toAmount: String(exchange.body.toAmount),
      paymentId: null,
    });
  });
});
