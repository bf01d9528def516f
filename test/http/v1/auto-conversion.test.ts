import { describe, expect, it } from "vitest";
import { staticPricing } from "../../../src/adapters/pricing/static";
import type { PricingAdapter } from "../../../src/core/ports/pricing";
import { setup, type Harness, simulatedLiveChain } from "../../helpers";
import { balances, createPayment, deposit, get, scopeOf } from "./support";

/**
 * Auto-conversion: a payment (or the merchant's default) may settle into another asset. When a
 * deposit is credited, the net credit is converted at the live rate and recorded as a
 * conversion with the payment's id. TRX is 0.12 USD and USDT 1 USD in the static table, so
 * 100 TRX paid credits 99.5 TRX, which converts to 11.94 USDT.
 */

async function payTrx(h: Harness, body: Record<string, unknown> = {}) {
  const payment = await createPayment(h, { amount: "100", currency: "TRX", ...body });
  await deposit(h, payment.address!, "100", 19);
  expect((await get(h, `/v1/payments/${payment.id}`)).body.status).toBe("PAID");
  return payment;
}

const conversions = async (h: Harness) => (await get(h, "/v1/conversions")).body.data as Array<Record<string, unknown>>;

describe("auto-conversion", () => {
  it("converts the credit of a payment that asks to settle in USDT", async () => {
    const h = await setup();
    const payment = await createPayment(h, { amount: "100", currency: "TRX", settleCurrency: "usdt" });
    const txHash = await deposit(h, payment.address!, "100", 0);
    // Nothing converts while the deposit is unconfirmed.
    expect(await conversions(h)).toEqual([]);
    expect((await balances(h)).TRX).toMatchObject({ available: "0", pending: "100" });

    h.clock.advanceMinutes(3);
    expect((await h.post("/api/v1/sandbox/deposit/confirm", { txHash, confirmations: 19 })).status).toBe(200);
    const list = await conversions(h);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      object: "conversion",
      status: "SUCCESS",
      fromCurrency: "TRX",
      toCurrency: "USDT",
      amount: "99.5",
      rate: "0.12",
      toAmount: "11.94",
      paymentId: payment.id,
      createdAt: new Date(h.clock.ms).toISOString(),
    });
    expect((await get(h, `/v1/conversions/${list[0]!.id}`)).body).toEqual(list[0]);
    const after = await balances(h);
    expect(after.USDT).toMatchObject({ available: "11.94", pending: "0", lastSettledAt: new Date(h.clock.ms).toISOString() });
    expect(after.TRX).toMatchObject({ available: "0", pending: "0" });
    expect((await get(h, `/v1/payments/${payment.id}`)).body).toMatchObject({ status: "PAID", receivedAmount: "100", currency: "TRX" });
  });

  it("records the conversion in the ledger next to the credit", async () => {
    const h = await setup();
    await payTrx(h, { settleCurrency: "USDT" });
    const trx = await h.router.storage.listLedgerEntries(scopeOf(h), "TRX");
    expect(trx.map((entry) => [entry.kind, entry.amount])).toEqual([
      ["deposit", 99_500_000n],
      ["exchange_out", -99_500_000n],
    ]);
    const usdt = await h.router.storage.listLedgerEntries(scopeOf(h), "USDT");
    expect(usdt.map((entry) => [entry.kind, entry.amount])).toEqual([["exchange_in", 11_940_000n]]);
  });

  it("uses the rate at credit time, not the one at creation", async () => {
    const prices = staticPricing();
    const h = await setup({ pricing: prices });
    const payment = await createPayment(h, { amount: "100", currency: "TRX", settleCurrency: "USDT" });
    prices.setPrice("TRX", "0.2");
    await deposit(h, payment.address!, "100", 19);
    expect((await conversions(h))[0]).toMatchObject({ rate: "0.2", toAmount: "19.9" });
    expect((await balances(h)).USDT!.available).toBe("19.9");
  });

  it("converts every credited deposit of the payment, overpayment included", async () => {
    const h = await setup();
    const payment = await createPayment(h, { amount: "100", currency: "TRX", settleCurrency: "USDT" });
    await deposit(h, payment.address!, "60", 19);
    await deposit(h, payment.address!, "50", 19);
    const list = await conversions(h);
    expect(list.map((row) => row.amount).sort()).toEqual(["49.75", "59.7"]);
    expect(list.every((row) => row.paymentId === payment.id)).toBe(true);
    const after = await balances(h);
    expect(after.TRX!.available).toBe("0");
    expect(after.USDT!.available).toBe("13.134"); // (59.7 + 49.75) x 0.12
  });

  it("settles into the merchant's default when the payment says nothing", async () => {
    const h = await setup();
    await h.router.admin.setSettleCurrency(h.merchant.id, "USDT");
    const payment = await payTrx(h);
    expect(await conversions(h)).toMatchObject([{ paymentId: payment.id, toCurrency: "USDT", toAmount: "11.94" }]);
    expect((await balances(h)).TRX!.available).toBe("0");
    // Another merchant keeps its coins.
    const theirs = await createPayment(h, { amount: "100", currency: "TRX" }, h.otherTestKey);
    await deposit(h, theirs.address!, "100", 19, h.otherTestKey);
    expect((await balances(h, h.otherTestKey)).TRX!.available).toBe("99.5");
  });

  it("keeps the coin when the payment asks for settleCurrency null despite the merchant's default", async () => {
    const h = await setup();
    await h.router.admin.setSettleCurrency(h.merchant.id, "USDT");
    await payTrx(h, { settleCurrency: null });
    expect(await conversions(h)).toEqual([]);
    const after = await balances(h);
    expect(after.TRX!.available).toBe("99.5");
    expect(after.USDT!.available).toBe("0");
  });

  it("lets a payment pick another asset than the merchant's default", async () => {
    const h = await setup();
    await h.router.admin.setSettleCurrency(h.merchant.id, "USDT");
    await payTrx(h, { settleCurrency: "BTC" });
    expect(await conversions(h)).toMatchObject([{ toCurrency: "BTC", toAmount: "0.000199" }]);
  });

  it("does nothing when the payment is already in the settle currency", async () => {
    const h = await setup();
    await h.router.admin.setSettleCurrency(h.merchant.id, "USDT");
    const payment = await createPayment(h, { amount: "10", currency: "USDT", chain: "TRX" });
    await deposit(h, payment.address!, "10", 19);
    expect(await conversions(h)).toEqual([]);
    expect((await balances(h)).USDT!.available).toBe("9.95");
  });

  it("keeps the merchant default of the time the payment was created", async () => {
    const h = await setup();
    const payment = await createPayment(h, { amount: "100", currency: "TRX" });
    await h.router.admin.setSettleCurrency(h.merchant.id, "USDT");
    await deposit(h, payment.address!, "100", 19);
    expect(await conversions(h)).toEqual([]);
    expect((await balances(h)).TRX!.available).toBe("99.5");
  });

  it("leaves the coin credited when pricing fails at credit time", async () => {
    const prices = staticPricing();
    let failing = false;
    const pricing: PricingAdapter = {
      getRate: async (base, quote) => {
        if (failing && base === "TRX" && quote === "USDT") throw new Error("price feed down");
        return prices.getRate(base, quote);
      },
    };
    const h = await setup({ pricing });
    const payment = await createPayment(h, { amount: "100", currency: "TRX", settleCurrency: "USDT" });
    failing = true;
    await deposit(h, payment.address!, "100", 19);
    expect((await get(h, `/v1/payments/${payment.id}`)).body.status).toBe("PAID");
    expect(await conversions(h)).toEqual([]);
    const after = await balances(h);
    expect(after.TRX!.available).toBe("99.5");
    expect(after.USDT!.available).toBe("0");
    expect(h.logger.lines.some((line) => /^warn auto-conversion of a TRX payment to USDT skipped/.test(line))).toBe(true);
    // The credit is final: a later sync with the feed back does not convert it after the fact.
    failing = false;
    await h.router.tick();
    expect(await conversions(h)).toEqual([]);
  });

  it("converts auto-settled live payments in live mode only", async () => {
    const chain = simulatedLiveChain();
    const h = await setup({ liveChain: chain });
    const payment = await createPayment(h, { amount: "100", currency: "TRX", settleCurrency: "USDT" }, h.liveKey);
    chain.createDeposit({ coin: "TRX", network: "TRX", address: payment.address!, amount: 100_000_000n, confirmations: 19 });
    await h.router.tick();
    expect((await get(h, "/v1/conversions", h.liveKey)).body.data).toMatchObject([{ livemode: true, paymentId: payment.id }]);
    expect(await conversions(h)).toEqual([]);
    expect((await balances(h, h.liveKey)).USDT!.available).toBe("11.94");
  });

  it("shows the settle currency on the payment", async () => {
    // The payment accepts settleCurrency (and inherits the merchant's default) but does not say
    // which one applies, so a merchant cannot tell from the API how a payment will settle.
    const h = await setup();
    const asked = await createPayment(h, { amount: "100", currency: "TRX", settleCurrency: "USDT" });
    expect(asked.settleCurrency).toBe("USDT");
    await h.router.admin.setSettleCurrency(h.merchant.id, "BTC");
    const inherited = await createPayment(h, { amount: "100", currency: "TRX" });
    expect((await get(h, `/v1/payments/${inherited.id}`)).body.settleCurrency).toBe("BTC");
  });
});
