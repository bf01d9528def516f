import { describe, expect, it } from "vitest";
import { setup, type Harness } from "../helpers";

const WHITELABEL = "/api/v1/merchants/whitelabel/create";
const PAYOUT = "/api/v1/merchants/payout/create";
const PAYOUT_FETCH = "/api/v1/merchants/payout/fetch";
const EXCHANGE = "/api/v1/merchants/exchange/create";
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A valid destination in the sandbox (any 8+ characters not starting with "invalid"). */
const ADDRESS = "TCUmA2JEPuSiBFmNGRiVktBZKbLB89JnSq";

function testScope(h: Harness) {
  return { merchantId: h.merchant.id, mode: "test" as const };
}

function balance(h: Harness, asset: string): Promise<bigint> {
  return h.router.storage.getBalance(testScope(h), asset);
}

/**
 * Funds the merchant's test-mode USDT balance the way a payer would: a whitelabel invoice on
 * TRX paid in full through the sandbox with enough confirmations (19). The balance is credited
 * with the received amount less the 0.5% fee.
 */
async function fundUsdt(h: Harness, usd: number): Promise<void> {
  const invoice = await h.post(WHITELABEL, { amount: usd, payCurrency: "USDT", network: "TRX" });
  expect(invoice.status).toBe(200);
  const deposit = await h.post("/api/v1/sandbox/deposit/create", { address: invoice.body.address, amount: invoice.body.payAmount, confirmations: 19 });
  expect(deposit.status).toBe(200);
  const paid = await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: invoice.body.id });
  expect(paid.body.status).toBe("PAID");
}

function payout(h: Harness, body: Record<string, unknown> = {}) {
  return h.post(PAYOUT, { currency: "USDT", network: "TRX", amount: 10, address: ADDRESS, ...body });
}

describe("funding through the sandbox", () => {
  it("credits a paid invoice less the 0.5% fee", async () => {
    const h = await setup();
    await fundUsdt(h, 100);
    expect(await balance(h, "USDT")).toBe(99_500_000n);
  });

  it("does not credit a deposit below minConfirm", async () => {
    const h = await setup();
    const invoice = await h.post(WHITELABEL, { amount: 100, payCurrency: "USDT", network: "TRX" });
    await h.post("/api/v1/sandbox/deposit/create", { address: invoice.body.address, amount: 100, confirmations: 18 });
    expect(await balance(h, "USDT")).toBe(0n);
  });
});

describe("POST /api/v1/merchants/payout/create", () => {
  it("creates a PROCESSING payout in the Payout shape and debits amount plus fees", async () => {
    const h = await setup();
    await fundUsdt(h, 100);
    const res = await payout(h);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      wallet: { merchantId: h.merchant.id, currency: { symbol: "USDT" } },
      network: { network: "TRX" },
      status: "PROCESSING",
      address: ADDRESS,
      amount: 10,
    });
    expect(typeof res.body.id).toBe("string");
    expect(res.body.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(res.body.createdAt).toMatch(ISO_DATE);
    expect(res.body.createdAt).toBe(new Date(h.clock.ms).toISOString());
    // withdrawFee 1 + staticFixedFee 1 on USDT/TRX
    expect(res.body.fee).toBe(2);
    expect(await balance(h, "USDT")).toBe(99_500_000n - 12_000_000n);
  });

  it("returns the same payout from payout/fetch", async () => {
    const h = await setup();
    await fundUsdt(h, 100);
    const created = await payout(h, { amount: 5 });
    const fetched = await h.post(PAYOUT_FETCH, { payoutId: created.body.id });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(created.body);
  });

  it("answers payout/fetch for an unknown id with 404 (40401)", async () => {
    const h = await setup();
    const res = await h.post(PAYOUT_FETCH, { payoutId: "po_missing" });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe(40401);
  });

  it("accepts lower-case currency and network", async () => {
    const h = await setup();
    await fundUsdt(h, 100);
    const res = await payout(h, { currency: "usdt", network: "trx" });
    expect(res.status).toBe(200);
    expect(res.body.wallet.currency.symbol).toBe("USDT");
    expect(res.body.network.network).toBe("TRX");
  });

  it("rejects an amount below withdrawMin with 400 (40002)", async () => {
    const h = await setup();
    await fundUsdt(h, 100);
    const res = await payout(h, { amount: 4.99 });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(40002);
    expect(res.body.message).toContain("5");
    expect(await balance(h, "USDT")).toBe(99_500_000n);
  });

  it("accepts exactly withdrawMin", async () => {
    const h = await setup();
    await fundUsdt(h, 100);
    expect((await payout(h, { amount: 5 })).status).toBe(200);
  });

  it("rejects an invalid address with 400 (40003)", async () => {
    const h = await setup();
    await fundUsdt(h, 100);
    const res = await payout(h, { address: "invalid-address" });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(40003);
    expect(res.body.message).toContain("invalid-address");
    expect(await balance(h, "USDT")).toBe(99_500_000n);
  });

  it("rejects a payout whose amount plus withdrawFee plus staticFixedFee exceeds the balance with 422 (42201), debiting nothing", async () => {
    const h = await setup();
    await fundUsdt(h, 100);
    // 97.51 + 1 + 1 = 99.51 > 99.5
    const res = await payout(h, { amount: 97.51 });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe(42201);
    expect(await balance(h, "USDT")).toBe(99_500_000n);
    expect(await h.router.storage.listPayoutsByStatus("test", "PROCESSING", 10)).toEqual([]);
  });

  it("allows a payout that uses the whole balance", async () => {
    const h = await setup();
    await fundUsdt(h, 100);
    const res = await payout(h, { amount: 97.5 });
    expect(res.status).toBe(200);
    expect(await balance(h, "USDT")).toBe(0n);
  });

  it("rejects a payout without any balance with 422 (42201)", async () => {
    const h = await setup();
    const res = await payout(h);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe(42201);
  });

  it("requires the network when the currency has several", async () => {
    const h = await setup();
    const res = await h.post(PAYOUT, { currency: "USDT", amount: 10, address: ADDRESS });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(40001);
    expect(res.body.message).toContain("network");
  });

  it("rejects an unknown currency with 40005", async () => {
    const h = await setup();
    const res = await h.post(PAYOUT, { currency: "DOGE", amount: 10, address: ADDRESS });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(40005);
  });

  it("rejects more decimals than the currency has", async () => {
    const h = await setup();
    await fundUsdt(h, 100);
    const res = await payout(h, { amount: 5.0000001 });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(40001);
    expect(res.body.message).toContain("amount");
  });

  it("rejects a missing address", async () => {
    const h = await setup();
    const res = await h.post(PAYOUT, { currency: "USDT", network: "TRX", amount: 10 });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(40001);
    expect(res.body.message).toContain("address");
  });

  it("reaches COMPLETED after a background round", async () => {
    const h = await setup();
    await fundUsdt(h, 100);
    const created = await payout(h);
    await h.router.tick();
    const fetched = await h.post(PAYOUT_FETCH, { payoutId: created.body.id });
    expect(fetched.status).toBe(200);
    expect(fetched.body.status).toBe("COMPLETED");
    expect(fetched.body.txHash).toBe(created.body.txHash);
    expect(await balance(h, "USDT")).toBe(87_500_000n);
  });

  it("becomes FAILED through sandbox/payout/fail and returns the whole debit", async () => {
    const h = await setup();
    await fundUsdt(h, 100);
    const created = await payout(h);
    expect(await balance(h, "USDT")).toBe(87_500_000n);
    const failed = await h.post("/api/v1/sandbox/payout/fail", { payoutId: created.body.id, reason: "node rejected it" });
    expect(failed.status).toBe(200);
    expect(failed.body.status).toBe("FAILED");
    expect(failed.body.failureReason).toBe("node rejected it");
    expect(await balance(h, "USDT")).toBe(99_500_000n);
    // Another round returns nothing twice.
    await h.router.tick();
    expect(await balance(h, "USDT")).toBe(99_500_000n);
    const fetched = await h.post(PAYOUT_FETCH, { payoutId: created.body.id });
    expect(fetched.body.status).toBe("FAILED");
  });

  it("refuses to fail a payout that completed already with 409", async () => {
    const h = await setup();
    await fundUsdt(h, 100);
    const created = await payout(h);
    await h.router.tick();
    const res = await h.post("/api/v1/sandbox/payout/fail", { payoutId: created.body.id });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe(40902);
    expect(await balance(h, "USDT")).toBe(87_500_000n);
  });

  it("never overdraws with parallel payouts", async () => {
    const h = await setup();
    await fundUsdt(h, 100);
    // Each takes 30 + 2; three of them fit into 99.5, the fourth does not.
    const results = await Promise.all([1, 2, 3, 4].map(() => payout(h, { amount: 30 })));
    const statuses = results.map((res) => res.status).sort();
    expect(statuses).toEqual([200, 200, 200, 422]);
    expect(await balance(h, "USDT")).toBe(3_500_000n);
  });
});

describe("POST /api/v1/merchants/exchange/create", () => {
  it("exchanges 100 USDT into BTC at 1/60000 in the Exchange shape", async () => {
    const h = await setup();
    await fundUsdt(h, 1000);
    expect(await balance(h, "USDT")).toBe(995_000_000n);
    const res = await h.post(EXCHANGE, { fromCurrency: "USDT", toCurrency: "BTC", amount: 100 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: "SUCCESS",
      fromWallet: { currency: { symbol: "USDT" } },
      toWallet: { currency: { symbol: "BTC" } },
      amount: 100,
      // 1/60000 cut to 18 decimals
      rate: 0.000016666666666666,
      // 100 x rate, rounded down to the satoshi
      toAmount: 0.00166666,
    });
    expect(typeof res.body.id).toBe("string");
    expect(res.body.createdAt).toMatch(ISO_DATE);
    expect(await balance(h, "USDT")).toBe(895_000_000n);
    expect(await balance(h, "BTC")).toBe(166_666n);
  });

  it("exchanges at the pair list's rate with no spread (BTC -> USDT at 60000)", async () => {
    const h = await setup();
    await fundUsdt(h, 1000);
    const toBtc = await h.post(EXCHANGE, { fromCurrency: "USDT", toCurrency: "BTC", amount: 600 });
    expect(toBtc.body.toAmount).toBe(0.00999999);
    const back = await h.post(EXCHANGE, { fromCurrency: "BTC", toCurrency: "USDT", amount: 0.0001 });
    expect(back.status).toBe(200);
    expect(back.body.rate).toBe(60000);
    expect(back.body.toAmount).toBe(6);
  });

  it("rejects an amount below the pair minimum with 400 (40002)", async () => {
    const h = await setup();
    await fundUsdt(h, 100);
    // USDT's exchange minimum is 5.
    const res = await h.post(EXCHANGE, { fromCurrency: "USDT", toCurrency: "BTC", amount: 4.99 });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(40002);
    expect(await balance(h, "USDT")).toBe(99_500_000n);
  });

  it("rejects the same currency on both sides with 400 (40001)", async () => {
    const h = await setup();
    await fundUsdt(h, 100);
    const res = await h.post(EXCHANGE, { fromCurrency: "USDT", toCurrency: "usdt", amount: 10 });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(40001);
    expect(res.body.message).toContain("toCurrency");
  });

  it("rejects an amount the balance does not cover with 422 (42201), changing neither balance", async () => {
    const h = await setup();
    await fundUsdt(h, 100);
    const res = await h.post(EXCHANGE, { fromCurrency: "USDT", toCurrency: "BTC", amount: 99.51 });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe(42201);
    expect(await balance(h, "USDT")).toBe(99_500_000n);
    expect(await balance(h, "BTC")).toBe(0n);
  });

  it("rejects an unknown currency with 40005", async () => {
    const h = await setup();
    const res = await h.post(EXCHANGE, { fromCurrency: "USDT", toCurrency: "DOGE", amount: 10 });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(40005);
  });

  it("rejects a fiat currency, which has no wallet", async () => {
    const h = await setup();
    const res = await h.post(EXCHANGE, { fromCurrency: "USDT", toCurrency: "USD", amount: 10 });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(40005);
  });

  it("requires every field", async () => {
    const h = await setup();
    const res = await h.post(EXCHANGE, {});
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(40001);
    for (const field of ["fromCurrency", "toCurrency", "amount"]) expect(res.body.message).toContain(field);
  });
});

describe("POST /api/v1/currencies", () => {
  it("lists BTC, ETH, USDT, LTC and TRX in the Currency shape", async () => {
    const h = await setup();
    const res = await h.post("/api/v1/currencies");
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    const symbols = res.body.map((currency: { symbol: string }) => currency.symbol);
    for (const symbol of ["BTC", "ETH", "USDT", "LTC", "TRX"]) expect(symbols).toContain(symbol);
    for (const currency of res.body) {
      expect(Object.keys(currency).sort()).toEqual(["name", "networks", "symbol"]);
      expect(typeof currency.name).toBe("string");
      expect(currency.networks.length).toBeGreaterThanOrEqual(1);
      for (const network of currency.networks) {
        expect(typeof network.network).toBe("string");
        expect(typeof network.name).toBe("string");
        for (const field of ["minConfirm", "withdrawFee", "withdrawMin", "depositMin", "staticFixedFee"]) {
          expect(typeof network[field], `${currency.symbol}/${network.network}.${field}`).toBe("number");
          expect(network[field]).toBeGreaterThanOrEqual(0);
        }
        expect(Number.isInteger(network.minConfirm)).toBe(true);
      }
    }
  });

  it("lists several networks for USDT with their limits", async () => {
    const h = await setup();
    const res = await h.post("/api/v1/currencies");
    const usdt = res.body.find((currency: { symbol: string }) => currency.symbol === "USDT");
    expect(usdt.networks.length).toBeGreaterThanOrEqual(2);
    expect(usdt.networks.find((network: { network: string }) => network.network === "TRX")).toEqual({
      network: "TRX",
      name: "Tron (TRC20)",
      minConfirm: 19,
      withdrawFee: 1,
      withdrawMin: 5,
      depositMin: 1,
      staticFixedFee: 1,
    });
  });
});

describe("POST /api/v1/exchange/pairs", () => {
  it("lists pairs in the ExchangePair shape", async () => {
    const h = await setup();
    const res = await h.post("/api/v1/exchange/pairs");
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(0);
    for (const pair of res.body) {
      expect(Object.keys(pair).sort()).toEqual(["fromCurrency", "minAmount", "rate", "toCurrency"]);
      expect(typeof pair.minAmount).toBe("number");
      expect(typeof pair.rate).toBe("number");
      expect(pair.rate).toBeGreaterThan(0);
      expect(typeof pair.fromCurrency.symbol).toBe("string");
      expect(typeof pair.toCurrency.symbol).toBe("string");
      expect(pair.fromCurrency.symbol).not.toBe(pair.toCurrency.symbol);
    }
  });

  it("quotes BTC -> USDT at 60000 with BTC's minimum", async () => {
    const h = await setup();
    const res = await h.post("/api/v1/exchange/pairs");
    const pair = res.body.find(
      (entry: { fromCurrency: { symbol: string }; toCurrency: { symbol: string } }) =>
        entry.fromCurrency.symbol === "BTC" && entry.toCurrency.symbol === "USDT",
    );
    expect(pair).toEqual({ minAmount: 0.0001, rate: 60000, fromCurrency: { symbol: "BTC" }, toCurrency: { symbol: "USDT" } });
  });

  it("lists every ordered pair of the eight currencies", async () => {
    const h = await setup();
    const res = await h.post("/api/v1/exchange/pairs");
    expect(res.body).toHaveLength(8 * 7);
  });
});
