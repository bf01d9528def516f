import request from "supertest";
import { describe, expect, it } from "vitest";
import { staticPricing } from "../../../src/adapters/pricing/static";
import { setup, simulatedLiveChain, type Harness } from "../../helpers";
import { createPayment, deposit, expectError, get, paidPayment, scopeOf } from "./support";

const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("POST /v1/payments", () => {
  it("creates a payment on a fixed chain with its deposit address, the live rate and a checkoutUrl", async () => {
    const h = await setup();
    const res = await h.post("/v1/payments", { amount: "25.5", currency: "USDT", chain: "TRX", metadata: { orderId: "order-1", note: "x" } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      object: "payment",
      livemode: false,
      status: "PENDING",
      amount: "25.5",
      amountCurrency: "USDT",
      currency: "USDT",
      chain: "TRX",
      rate: "1",
      payAmount: "25.5",
      receivedAmount: "0",
      isWhiteLabel: true,
      metadata: { orderId: "order-1", note: "x" },
      failureReason: null,
    });
    expect(res.body.id).toMatch(/^inv_/);
    expect(res.body.address).toMatch(/^sbx_trx_/);
    expect(res.body.checkoutUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/pay/${res.body.id}$`));
    expect(res.body.createdAt).toBe(new Date(h.clock.ms).toISOString());
    expect(res.body.expiresAt).toBe(new Date(h.clock.ms + 1440 * 60_000).toISOString());
  });

  it("prices in fiat at the live rate when amountCurrency is given", async () => {
    const h = await setup();
    const payment = await createPayment(h, { amount: "10", currency: "BTC", amountCurrency: "usd" });
    expect(payment).toMatchObject({ amount: "10", amountCurrency: "USD", currency: "BTC", chain: "BTC", rate: "60000", payAmount: "0.00016667" });
    expect(payment.address).toMatch(/^sbx_btc_/);
  });

  it("records when the locked rate was observed and which sources it came from", async () => {
    const h = await setup();
    const payment = await createPayment(h, { amount: "10", currency: "BTC", amountCurrency: "USD" });
    // The default table stamps its prices with the router's clock.
    expect(payment).toMatchObject({ rateSources: ["static"], rateAt: new Date(h.clock.ms).toISOString() });
  });

  it("shows the observation time the pricing adapter reports", async () => {
    let h: Harness | undefined;
    h = await setup({ pricing: staticPricing({ at: () => new Date(h!.clock.ms) }) });
    const payment = await createPayment(h, { amount: "10", currency: "BTC", amountCurrency: "USD" });
    expect(payment).toMatchObject({ rateAt: new Date(h.clock.ms).toISOString(), rateSources: ["static"] });
    expect(payment.rateAt).toBe(payment.createdAt);
  });

  it("records a payment priced in its own coin as observed at creation, from no source", async () => {
    const h = await setup();
    const payment = await createPayment(h, { amount: "25", currency: "USDT", chain: "TRX" });
    expect(payment).toMatchObject({ rate: "1", rateAt: new Date(h.clock.ms).toISOString(), rateSources: [] });
  });

  it("fixes the chain of a coin with a single network without being told", async () => {
    const h = await setup();
    const payment = await createPayment(h, { amount: "100", currency: "trx" });
    expect(payment).toMatchObject({ currency: "TRX", chain: "TRX", payAmount: "100", isWhiteLabel: true });
    expect(payment.address).toMatch(/^sbx_trx_/);
  });

  it("leaves the network to the payer when a coin with several networks comes without chain", async () => {
    const h = await setup();
    const payment = await createPayment(h, { amount: "10", currency: "USDT" });
    expect(payment).toMatchObject({
      status: "PENDING",
      chain: null,
      address: null,
      rate: null,
      rateAt: null,
      rateSources: null,
      payAmount: null,
      isWhiteLabel: false,
    });
    const stored = await h.router.storage.getInvoice(scopeOf(h), payment.id);
    expect(stored?.acceptedCoins).toEqual(["USDT"]);
  });

  it("serves the hosted page at checkoutUrl", async () => {
    const h = await setup();
    const payment = await createPayment(h, { amount: "10", currency: "USDT", chain: "TRX" });
    const page = await request(h.app).get(new URL(payment.checkoutUrl).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain(payment.address!);
  });

  it("builds checkoutUrl from the mount path", async () => {
    const h = await setup({ mountPath: "/billing" });
    const payment = await createPayment(h, { amount: "10", currency: "TRX" });
    expect(new URL(payment.checkoutUrl).pathname).toBe(`/billing/pay/${payment.id}`);
  });

  it("passes the body options through: lifeTime, returnUrl, underPaidCover, feePaidByPayer", async () => {
    const h = await setup();
    const payment = await createPayment(h, {
      amount: "100",
      currency: "USDT",
      chain: "TRX",
      lifeTime: 30,
      returnUrl: "https://shop.example/thanks",
      underPaidCover: "2.5",
      feePaidByPayer: true,
    });
    expect(payment).toMatchObject({ returnUrl: "https://shop.example/thanks", underPaidCover: "2.5", feePaidByPayer: true });
    // Grossed up by the 0.5% fee, rounded up to the quote precision.
    expect(payment.payAmount).toBe("100.502513");
    expect(payment.expiresAt).toBe(new Date(h.clock.ms + 30 * 60_000).toISOString());
  });

  describe("validation", () => {
    const base = { amount: "10", currency: "USDT", chain: "TRX" };
    it.each([
      ["a negative amount", { amount: "-1" }, 40001, /amount: .*decimal string/],
      ["an exponent", { amount: "1e5" }, 40001, /amount: .*decimal string/],
      ["an empty amount", { amount: "" }, 40001, /amount: .*decimal string/],
      ["a leading zero", { amount: "01" }, 40001, /amount: .*decimal string/],
      ["a bare fraction", { amount: ".5" }, 40001, /amount: .*decimal string/],
      ["a trailing dot", { amount: "5." }, 40001, /amount: .*decimal string/],
      ["a JSON number amount", { amount: 1 }, 40001, /amount: .*decimal string/],
      ["a missing amount", { amount: undefined }, 40001, /amount: is required/],
      ["more decimals than the coin has", { amount: "1.1234567" }, 40001, /more than 6 decimal places/],
      ["more decimals than the fiat has", { amount: "1.001", currency: "BTC", chain: undefined, amountCurrency: "USD" }, 40001, /more than 2 decimal places/],
      ["an unknown currency", { currency: "DOGE", chain: undefined }, 40005, /DOGE/],
      ["an unknown currency with a chain", { currency: "DOGE" }, 40005, /DOGE/],
      ["an unknown chain", { chain: "SOL" }, 40005, /SOL/],
      ["an unknown amountCurrency", { amountCurrency: "XYZ" }, 40005, /XYZ/],
      ["an unknown field", { foo: 1 }, 40001, /unknown field "foo"/],
      ["metadata that is not an object", { metadata: "order-1" }, 40001, /metadata/],
      ["an unknown settleCurrency", { settleCurrency: "DOGE" }, 40005, /settleCurrency/],
      ["a lifeTime out of range", { lifeTime: 0 }, 40001, /lifeTime/],
      ["a zero amount on a fixed chain", { amount: "0" }, 40002, /minimum deposit/],
    ])("refuses %s", async (_name, change, code, message) => {
      const h = await setup();
      const res = await h.post("/v1/payments", { ...base, ...change });
      expectError(res, 400, code, message);
      expect(await h.router.storage.listInvoices(scopeOf(h), {}, { limit: 10 })).toEqual([]);
    });

    it("refuses a zero amount for a payment whose network the payer picks", async () => {
      // Payment links and withdrawals refuse 0 ("must be greater than 0"); a hosted payment of 0
      // is created, and then fails when the payer picks a network (below the deposit minimum).
      const h = await setup();
      expectError(await h.post("/v1/payments", { amount: "0", currency: "USDT" }), 400, 40001, /greater than 0/);
    });

    it("refuses a body that is not a JSON object", async () => {
      const h = await setup();
      const res = await h.post("/v1/payments").set("Content-Type", "application/json").send("[1]");
      expectError(res, 400, 40001);
    });

    it("refuses malformed JSON with the error object", async () => {
      const h = await setup();
      const res = await h.post("/v1/payments").set("Content-Type", "application/json").send('{"amount":');
      expectError(res, 400, 40004);
    });
  });

  it("answers 401 without a key", async () => {
    const h = await setup();
    expectError(await h.post("/v1/payments", { amount: "10", currency: "TRX" }, null), 401, 40101);
    expectError(await request(h.app).get("/v1/payments"), 401, 40101);
  });

  it("answers 503 to a live key when no live chain is configured", async () => {
    const h = await setup();
    expectError(await h.post("/v1/payments", { amount: "10", currency: "TRX" }, h.liveKey), 503, 50301);
  });
});

describe("GET /v1/payments/:id", () => {
  it("shows no rate time or sources on a hosted payment until the payer picks a coin, then the locked rate's", async () => {
    let h: Harness | undefined;
    h = await setup({ pricing: staticPricing({ at: () => new Date(h!.clock.ms) }) });
    const created = await createPayment(h, { amount: "10", currency: "USDT", amountCurrency: "USD" });
    expect(created).toMatchObject({ chain: null, rate: null, rateAt: null, rateSources: null });
    expect((await get(h, `/v1/payments/${created.id}`)).body).toMatchObject({ rate: null, rateAt: null, rateSources: null });

    h.clock.advanceMinutes(3);
    const chosen = await request(h.app)
      .post(`/pay/${created.id}/method`)
      .set("Sec-Fetch-Site", "same-origin")
      .type("form")
      .send({ coin: "USDT", network: "TRX" });
    expect(chosen.status, chosen.text).toBe(303);
    const picked = (await get(h, `/v1/payments/${created.id}`)).body;
    expect(picked).toMatchObject({ chain: "TRX", rate: "1", rateAt: new Date(h.clock.ms).toISOString(), rateSources: ["static"] });
    expect(picked.rateAt).not.toBe(created.createdAt);
  });

  it("returns the payment as created, then as paid", async () => {
    const h = await setup();
    const created = await createPayment(h, { amount: "10", currency: "USDT", chain: "TRX", metadata: { orderId: "o-7" } });
    const fetched = await get(h, `/v1/payments/${created.id}`);
    expect(fetched.status).toBe(200);
    // Retrieving adds the payment's deposits (none yet) to what creation answered.
    expect(fetched.body).toEqual({ ...created, deposits: [] });

    h.clock.advanceMinutes(1);
    const txHash = await deposit(h, created.address!, "10", 19);
    const paid = await get(h, `/v1/payments/${created.id}`);
    expect(paid.body).toMatchObject({ status: "PAID", receivedAmount: "10", reversedAmount: "0", txHash, metadata: { orderId: "o-7" } });
    expect(paid.body.deposits).toEqual([
      expect.objectContaining({
        txHash,
        currency: "USDT",
        chain: "TRX",
        amount: "10",
        fee: "0.05",
        status: "CONFIRMED",
        countsTowardPayment: true,
        confirmations: 19,
      }),
    ]);
    expect(paid.body.updatedAt).toBe(new Date(h.clock.ms).toISOString());
    expect(paid.body.createdAt).toMatch(ISO_DATE);
  });

  it("shows CONFIRMING while a deposit waits for confirmations", async () => {
    const h = await setup();
    const created = await createPayment(h, { amount: "10", currency: "TRX" });
    await deposit(h, created.address!, "10", 1);
    expect((await get(h, `/v1/payments/${created.id}`)).body).toMatchObject({ status: "CONFIRMING", receivedAmount: "10" });
  });

  it("answers 404 (40401) for an unknown id and for another merchant's payment", async () => {
    const h = await setup();
    const mine = await createPayment(h, { amount: "10", currency: "TRX" });
    expectError(await get(h, "/v1/payments/inv_doesnotexist"), 404, 40401);
    expectError(await get(h, `/v1/payments/${mine.id}`, h.otherTestKey), 404, 40401);
  });

  it("refuses query parameters it does not know", async () => {
    const h = await setup();
    const mine = await createPayment(h, { amount: "10", currency: "TRX" });
    expectError(await get(h, `/v1/payments/${mine.id}?expand=x`), 400, 40001);
  });
});

describe("live and test isolation", () => {
  it("keeps live payments and test payments apart in both directions", async () => {
    const h = await setup({ liveChain: simulatedLiveChain() });
    const live = await createPayment(h, { amount: "10", currency: "TRX" }, h.liveKey);
    const test = await createPayment(h, { amount: "10", currency: "TRX" });
    expect(live.livemode).toBe(true);
    expect(test.livemode).toBe(false);

    expectError(await get(h, `/v1/payments/${live.id}`), 404, 40401);
    expectError(await get(h, `/v1/payments/${test.id}`, h.liveKey), 404, 40401);
    expect((await get(h, "/v1/payments")).body.data.map((p: { id: string }) => p.id)).toEqual([test.id]);
    expect((await get(h, "/v1/payments", h.liveKey)).body.data.map((p: { id: string }) => p.id)).toEqual([live.id]);
    expect((await get(h, "/v1/payments", h.otherTestKey)).body.data).toEqual([]);
  });

  it("does not credit a test deposit to the live balance", async () => {
    const h = await setup({ liveChain: simulatedLiveChain() });
    await paidPayment(h, "10");
    const live = await get(h, "/v1/balances", h.liveKey);
    expect(live.body.data.find((row: { currency: string }) => row.currency === "USDT")).toMatchObject({ available: "0", pending: "0", lastSettledAt: null });
  });
});

describe("unknown /v1 routes", () => {
  it("answers 404 (40402) with the error object for a path the router does not serve", async () => {
    const h = await setup();
    expectError(await get(h, "/v1/invoices"), 404, 40402);
  });

  it("answers 405 (40501) with Allow for a method a path does not serve", async () => {
    const h = await setup();
    const res = await request(h.app).delete("/v1/payments").set("Authorization", `Bearer ${h.testKey}`);
    expectError(res, 405, 40501);
    expect(res.headers.allow).toMatch(/GET/);
    expect(res.headers.allow).toMatch(/POST/);
  });
});
