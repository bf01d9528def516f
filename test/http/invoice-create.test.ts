import { describe, expect, it } from "vitest";
import { setup, type Harness } from "../helpers";

const CREATE = "/api/v1/merchants/invoice/create";
const WHITELABEL = "/api/v1/merchants/whitelabel/create";

/** Asserts a 400 validation error whose message names `field`. */
function expectValidationError(res: { status: number; body: { error?: unknown; message?: unknown } }, field: string): void {
  expect(res.status).toBe(400);
  expect(res.body.error).toBe(40001);
  expect(typeof res.body.message).toBe("string");
  expect(res.body.message).toContain(field);
}

async function createWith(h: Harness, body: Record<string, unknown>) {
  return h.post(CREATE, { amount: 10, ...body });
}

describe("POST /api/v1/merchants/invoice/create (hosted mode)", () => {
  it("creates a PENDING invoice with coin, network, address, rate and payAmount left for the payer to pick", async () => {
    const h = await setup();
    const res = await h.post(CREATE, { amount: 25.5 });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/application\/json/);
    expect(res.body).toMatchObject({
      merchantId: h.merchant.id,
      status: "PENDING",
      amount: 25.5,
      amountCurrency: "USD",
      address: null,
      txHash: null,
      rate: null,
      payAmount: null,
      cryptoCurrency: null,
      network: null,
      feePaidByPayer: false,
      underPaidCover: 0,
      isWhiteLabel: false,
    });
    expect(typeof res.body.id).toBe("string");
    expect(res.body.id.length).toBeGreaterThan(0);
    expect(Number.isNaN(Date.parse(res.body.createdAt))).toBe(false);
  });

  it("can be fetched back by id with the same fields", async () => {
    const h = await setup();
    const created = await h.post(CREATE, { amount: 12, returnUrl: "https://shop.example/thanks" });
    const fetched = await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: created.body.id });
    expect(fetched.status).toBe(200);
    // A fetch adds the invoice's deposits (none yet).
    expect(fetched.body).toEqual({ ...created.body, deposits: [] });
  });

  it("defaults amountCurrency to USD", async () => {
    const h = await setup();
    const res = await h.post(CREATE, { amount: 1 });
    expect(res.status).toBe(200);
    expect(res.body.amountCurrency).toBe("USD");
  });

  it("accepts another fiat currency as amountCurrency, upper-casing it", async () => {
    const h = await setup();
    const res = await h.post(CREATE, { amount: 1, amountCurrency: "eur" });
    expect(res.status).toBe(200);
    expect(res.body.amountCurrency).toBe("EUR");
  });

  it("defaults lifeTime to 1440 minutes: expiresAt is 24 hours after createdAt", async () => {
    const h = await setup();
    const res = await h.post(CREATE, { amount: 1 });
    expect(res.status).toBe(200);
    expect(res.body.createdAt).toBe(new Date(h.clock.ms).toISOString());
    expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(24 * 60 * 60_000);
  });

  it("sets expiresAt lifeTime minutes after createdAt", async () => {
    const h = await setup();
    const res = await h.post(CREATE, { amount: 1, lifeTime: 30 });
    expect(res.status).toBe(200);
    expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(30 * 60_000);
  });

  it("normalises acceptedCoins to upper case and removes duplicates", async () => {
    const h = await setup();
    const res = await h.post(CREATE, { amount: 10, acceptedCoins: ["btc", "BTC", " usdt ", "Usdt", "eth"] });
    expect(res.status).toBe(200);
    expect(res.body.acceptedCoins).toEqual(["BTC", "USDT", "ETH"]);
  });

  it("rejects an unknown coin in acceptedCoins with 400 unsupported_currency (40005)", async () => {
    const h = await setup();
    const res = await h.post(CREATE, { amount: 10, acceptedCoins: ["BTC", "DOGE"] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(40005);
    expect(res.body.message).toContain("DOGE");
  });

  it("rejects an empty acceptedCoins list", async () => {
    const h = await setup();
    expectValidationError(await h.post(CREATE, { amount: 10, acceptedCoins: [] }), "acceptedCoins");
  });

  it("rejects an unknown amountCurrency with 40005", async () => {
    const h = await setup();
    const res = await h.post(CREATE, { amount: 10, amountCurrency: "XYZ" });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(40005);
    expect(res.body.message).toContain("XYZ");
  });

  it("keeps feePaidByPayer, underPaidCover and returnUrl as given", async () => {
    const h = await setup();
    const res = await h.post(CREATE, { amount: 10, feePaidByPayer: true, underPaidCover: 2.5, returnUrl: "http://shop.example/back" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ feePaidByPayer: true, underPaidCover: 2.5, returnUrl: "http://shop.example/back" });
  });

  describe("paymentUrl", () => {
    it("ends with /pay/<id> on the request's origin", async () => {
      const h = await setup();
      const res = await h.post(CREATE, { amount: 10 });
      expect(res.status).toBe(200);
      expect(res.body.paymentUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/pay\//);
      expect(res.body.paymentUrl.endsWith(`/pay/${res.body.id}`)).toBe(true);
    });

    it("includes the host's mount prefix", async () => {
      const h = await setup({ mountPath: "/payments" });
      const res = await h.post(CREATE, { amount: 10 });
      expect(res.status).toBe(200);
      expect(new URL(res.body.paymentUrl).pathname).toBe(`/payments/pay/${res.body.id}`);
    });

    it("uses the publicUrl option as origin, keeping the mount prefix", async () => {
      const h = await setup({ mountPath: "/payments", publicUrl: "https://shop.example/" });
      const res = await h.post(CREATE, { amount: 10 });
      expect(res.status).toBe(200);
      expect(res.body.paymentUrl).toBe(`https://shop.example/payments/pay/${res.body.id}`);
    });

    it("uses the publicUrl option when mounted at the root", async () => {
      const h = await setup({ publicUrl: "https://pay.example" });
      const res = await h.post(CREATE, { amount: 10 });
      expect(res.body.paymentUrl).toBe(`https://pay.example/pay/${res.body.id}`);
    });
  });
});

describe("invoice/create validation (the field rules in docs/merchant-api.md)", () => {
  describe("amount", () => {
    it("rejects -0.01", async () => {
      const h = await setup();
      expectValidationError(await createWith(h, { amount: -0.01 }), "amount");
    });

    it("accepts 0", async () => {
      const h = await setup();
      const res = await createWith(h, { amount: 0 });
      expect(res.status).toBe(200);
      expect(res.body.amount).toBe(0);
    });

    it("rejects a string amount", async () => {
      const h = await setup();
      expectValidationError(await createWith(h, { amount: "10" }), "amount");
    });

    it("says a string amount must be a number instead of calling it missing", async () => {
      const h = await setup();
      const res = await createWith(h, { amount: "10" });
      expectValidationError(res, "amount: must be a number");
      expect(res.body.message).not.toMatch(/required/);
    });

    it("says a null amount must be a number instead of calling it missing", async () => {
      const h = await setup();
      const res = await createWith(h, { amount: null });
      expectValidationError(res, "amount: must be a number");
    });

    it("rejects a missing amount", async () => {
      const h = await setup();
      const res = await h.post(CREATE, {});
      expectValidationError(res, "amount");
      expect(res.body.message).toMatch(/required/);
    });

    it("rejects more decimals than the currency allows (10.001 USD)", async () => {
      const h = await setup();
      expectValidationError(await createWith(h, { amount: 10.001 }), "amount");
    });

    it("rejects a fraction for a currency without decimals (1.5 JPY)", async () => {
      const h = await setup();
      expectValidationError(await createWith(h, { amount: 1.5, amountCurrency: "JPY" }), "amount");
    });

    it("accepts the currency's full precision (10.01 USD)", async () => {
      const h = await setup();
      const res = await createWith(h, { amount: 10.01 });
      expect(res.status).toBe(200);
      expect(res.body.amount).toBe(10.01);
    });
  });

  describe("underPaidCover", () => {
    it.each([0, 50, 0.3, 0.1, 12.3])("accepts %s", async (value) => {
      const h = await setup();
      const res = await createWith(h, { underPaidCover: value });
      expect(res.status).toBe(200);
      expect(res.body.underPaidCover).toBe(value);
    });

    it("rejects 50.1", async () => {
      const h = await setup();
      expectValidationError(await createWith(h, { underPaidCover: 50.1 }), "underPaidCover");
    });

    it("rejects -0.1", async () => {
      const h = await setup();
      expectValidationError(await createWith(h, { underPaidCover: -0.1 }), "underPaidCover");
    });

    it("rejects 0.1 + 0.2, which JSON sends as 0.30000000000000004, as not a multiple of 0.1", async () => {
      const h = await setup();
      const res = await createWith(h, { underPaidCover: 0.1 + 0.2 });
      expectValidationError(res, "underPaidCover");
      expect(res.body.message).toContain("0.1");
    });

    it("rejects 12.34", async () => {
      const h = await setup();
      expectValidationError(await createWith(h, { underPaidCover: 12.34 }), "underPaidCover");
    });

    it("rejects a string", async () => {
      const h = await setup();
      expectValidationError(await createWith(h, { underPaidCover: "5" }), "underPaidCover");
    });
  });

  describe("lifeTime", () => {
    it.each([1, 1440])("accepts %s", async (value) => {
      const h = await setup();
      const res = await createWith(h, { lifeTime: value });
      expect(res.status).toBe(200);
      expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(value * 60_000);
    });

    it.each([0, 1441, 1.5, -5])("rejects lifeTime %s", async (value) => {
      const h = await setup();
      expectValidationError(await createWith(h, { lifeTime: value }), "lifeTime");
    });
  });

  describe("returnUrl", () => {
    it.each(["https://shop.example/ok", "http://localhost:3000/done?order=1"])("accepts %s", async (url) => {
      const h = await setup();
      const res = await createWith(h, { returnUrl: url });
      expect(res.status).toBe(200);
      expect(res.body.returnUrl).toBe(url);
    });

    it.each(["javascript:alert(1)", "ftp://x", "not a url", "/relative/path"])("rejects %s", async (url) => {
      const h = await setup();
      expectValidationError(await createWith(h, { returnUrl: url }), "returnUrl");
    });

    it("is null when not given", async () => {
      const h = await setup();
      const res = await createWith(h, {});
      expect(res.body.returnUrl).toBeNull();
    });
  });

  it("rejects feePaidByPayer given as a string", async () => {
    const h = await setup();
    expectValidationError(await createWith(h, { feePaidByPayer: "yes" }), "feePaidByPayer");
  });

  it("says what type a wrongly typed field needs (feePaidByPayer, acceptedCoins)", async () => {
    const h = await setup();
    expectValidationError(await createWith(h, { feePaidByPayer: "yes" }), "feePaidByPayer: must be true or false");
    expectValidationError(await createWith(h, { acceptedCoins: "BTC" }), "acceptedCoins: must be an array of coin symbols");
  });

  it("rejects an unknown field, naming it", async () => {
    const h = await setup();
    expectValidationError(await createWith(h, { lifetime: 60 }), "lifetime");
  });

  it("lists every problem of a request in one message", async () => {
    const h = await setup();
    const res = await h.post(CREATE, { amount: -1, lifeTime: 0, underPaidCover: 60 });
    expectValidationError(res, "amount");
    expect(res.body.message).toContain("lifeTime");
    expect(res.body.message).toContain("underPaidCover");
  });

  it("rejects a body that is a JSON array with the error object", async () => {
    const h = await setup();
    const res = await h.post(CREATE, [{ amount: 10 }]);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(40001);
    expect(res.body.message).toMatch(/must be a JSON object/);
  });

  it("rejects a body that is a JSON string with the error object", async () => {
    const h = await setup();
    const res = await h.post(CREATE).set("Content-Type", "application/json").send('"amount=10"');
    expect(res.status).toBe(400);
    expect(res.headers["content-type"]).toMatch(/application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(["error", "message"]);
    expect([40001, 40004]).toContain(res.body.error);
    expect(res.body.message).toMatch(/JSON/);
  });

  it("rejects a request without a body as missing amount", async () => {
    const h = await setup();
    expectValidationError(await h.post(CREATE), "amount");
  });
});

describe("POST /api/v1/merchants/whitelabel/create", () => {
  it("issues an address and quotes 100 USD in BTC at 60000 as 0.00166667 (rounded up to 8 decimals)", async () => {
    const h = await setup();
    const res = await h.post(WHITELABEL, { amount: 100, payCurrency: "BTC" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: "PENDING",
      isWhiteLabel: true,
      amount: 100,
      amountCurrency: "USD",
      rate: 60000,
      payAmount: 0.00166667,
      cryptoCurrency: { symbol: "BTC" },
      network: { network: "BTC" },
      acceptedCoins: null,
      txHash: null,
    });
    expect(res.body.address).toMatch(/^sbx_btc_[0-9A-Za-z]{24}$/);
    expect(res.body.paymentUrl.endsWith(`/pay/${res.body.id}`)).toBe(true);
  });

  it("issues a different address for every invoice", async () => {
    const h = await setup();
    const a = await h.post(WHITELABEL, { amount: 100, payCurrency: "BTC" });
    const b = await h.post(WHITELABEL, { amount: 100, payCurrency: "BTC" });
    expect(a.body.address).not.toBe(b.body.address);
  });

  it("grosses payAmount up by 1000/995 when the payer pays the fee", async () => {
    const h = await setup();
    const res = await h.post(WHITELABEL, { amount: 100, payCurrency: "BTC", feePaidByPayer: true });
    expect(res.status).toBe(200);
    // ceil(ceil(100 / 60000 * 1e8) * 1000 / 995) satoshi = 167505
    expect(res.body.payAmount).toBe(0.00167505);
    expect(res.body.feePaidByPayer).toBe(true);
  });

  it("quotes a stablecoin at its exact rate and precision (100 USD -> 100 USDT on TRX)", async () => {
    const h = await setup();
    const res = await h.post(WHITELABEL, { amount: 100, payCurrency: "usdt", network: "trx" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ rate: 1, payAmount: 100, cryptoCurrency: { symbol: "USDT" }, network: { network: "TRX" } });
    expect(res.body.address).toMatch(/^sbx_trx_/);
  });

  it("prices in another fiat currency through its rate (100 EUR in USDT at 1.08 USD/EUR)", async () => {
    const h = await setup();
    const res = await h.post(WHITELABEL, { amount: 100, amountCurrency: "EUR", payCurrency: "USDT", network: "BSC" });
    expect(res.status).toBe(200);
    // rate = 1/1.08 cut to 18 decimals (0.925925925925925925), so 100 / rate is a hair above 108
    // and rounds up to the next micro-USDT: the payer never sends less than the invoice is worth.
    expect(res.body.rate).toBe(25 / 27);
    expect(res.body.payAmount).toBe(108.000001);
  });

  it("defaults the network when the coin has only one (BTC)", async () => {
    const h = await setup();
    const res = await h.post(WHITELABEL, { amount: 100, payCurrency: "BTC" });
    expect(res.status).toBe(200);
    expect(res.body.network).toEqual({ network: "BTC" });
  });

  it("requires a network when the coin has several (USDT), listing them", async () => {
    const h = await setup();
    const res = await h.post(WHITELABEL, { amount: 100, payCurrency: "USDT" });
    expectValidationError(res, "network");
    expect(res.body.message).toContain("TRX");
  });

  it("rejects a network the coin is not on with 40005", async () => {
    const h = await setup();
    const res = await h.post(WHITELABEL, { amount: 100, payCurrency: "BTC", network: "TRX" });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(40005);
  });

  it("rejects an unknown payCurrency with 40005", async () => {
    const h = await setup();
    const res = await h.post(WHITELABEL, { amount: 100, payCurrency: "DOGE" });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(40005);
    expect(res.body.message).toContain("DOGE");
  });

  it("requires payCurrency", async () => {
    const h = await setup();
    expectValidationError(await h.post(WHITELABEL, { amount: 100 }), "payCurrency");
  });

  it("rejects an invoice worth less than the network's depositMin with 40002", async () => {
    const h = await setup();
    // BTC depositMin is 0.00005 BTC = 3 USD at 60000.
    const res = await h.post(WHITELABEL, { amount: 2.99, payCurrency: "BTC" });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(40002);
    // The message names the minimum and what the invoice came to, so the fix is obvious.
    expect(res.body.message).toMatch(/comes to 0\.0000498\d* BTC, less than the BTC minimum deposit of 0\.00005 on BTC/);
  });

  it("accepts an invoice worth exactly depositMin", async () => {
    const h = await setup();
    const res = await h.post(WHITELABEL, { amount: 3, payCurrency: "BTC" });
    expect(res.status).toBe(200);
    expect(res.body.payAmount).toBe(0.00005);
  });

  it("never quotes a payAmount that a JSON number cannot carry exactly (1e14 USD in BTC)", async () => {
    const h = await setup();
    // 1e14 / 60000 = 1666666666.66666667 BTC (rounded up): 18 significant digits, more than a
    // double holds. The service must refuse the invoice rather than send a rounded number.
    const res = await h.post(WHITELABEL, { amount: 1e14, payCurrency: "BTC" });
    if (res.status === 200) {
      expect(/"payAmount":([^,}]+)/.exec(res.text)?.[1]).toBe("1666666666.66666667");
    } else {
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(40001);
      expect(res.body.message).toContain("amount");
    }
  });

  it("applies the same validation as invoice/create", async () => {
    const h = await setup();
    expectValidationError(await h.post(WHITELABEL, { amount: 100, payCurrency: "BTC", lifeTime: 1441 }), "lifeTime");
    expectValidationError(await h.post(WHITELABEL, { amount: 100, payCurrency: "BTC", underPaidCover: 0.1 + 0.2 }), "underPaidCover");
    expectValidationError(await h.post(WHITELABEL, { amount: 100, payCurrency: "BTC", acceptedCoins: ["BTC"] }), "acceptedCoins");
  });
});
