import { describe, expect, it } from "vitest";
import { DEFAULT_USD_PRICES, staticPricing } from "../../../src/adapters/pricing/static";
import { parseDecimal, RATE_DECIMALS } from "../../../src/money";

describe("staticPricing", () => {
  it("prices a crypto asset in USD from the default table", async () => {
    const pricing = staticPricing();
    expect((await pricing.getRate("BTC", "USD"))?.rate).toBe("60000");
    expect((await pricing.getRate("TRX", "USD"))?.rate).toBe("0.12");
  });

  it("ships the documented default table", () => {
    expect(DEFAULT_USD_PRICES).toMatchObject({ BTC: "60000", ETH: "3000", USDT: "1", LTC: "80", TRX: "0.12", JPY: "0.0066" });
    expect(Object.isFrozen(DEFAULT_USD_PRICES)).toBe(true);
  });

  it("crosses two USD prices exactly", async () => {
    const pricing = staticPricing();
    expect((await pricing.getRate("BTC", "EUR"))?.rate).toBe("55555.555555555555555555");
    expect((await pricing.getRate("ETH", "BTC"))?.rate).toBe("0.05");
    expect((await pricing.getRate("BTC", "JPY"))?.rate).toBe("9090909.090909090909090909");
    expect((await pricing.getRate("USD", "TRX"))?.rate).toBe("8.333333333333333333");
  });

  it("rounds the rate down at 18 decimals", async () => {
    const pricing = staticPricing({ usdPrices: { AAA: "2", BBB: "3" } });
    expect((await pricing.getRate("AAA", "BBB"))?.rate).toBe("0.666666666666666666");
    expect((await pricing.getRate("BBB", "AAA"))?.rate).toBe("1.5");
  });

  it("keeps a quoted rate within one unit of the 18th decimal of the exact ratio", async () => {
    const pricing = staticPricing();
    const symbols = Object.keys(DEFAULT_USD_PRICES);
    for (const base of symbols) {
      for (const quote of symbols) {
        const rate = parseDecimal((await pricing.getRate(base, quote))!.rate, RATE_DECIMALS);
        const baseUsd = parseDecimal(DEFAULT_USD_PRICES[base]!, RATE_DECIMALS);
        const quoteUsd = parseDecimal(DEFAULT_USD_PRICES[quote]!, RATE_DECIMALS);
        const scaled = baseUsd * 10n ** BigInt(RATE_DECIMALS);
        // rate = floor(base/quote * 10^18): rate * quote <= base * 10^18 < (rate + 1) * quote
        expect(rate * quoteUsd <= scaled, `${base}/${quote}`).toBe(true);
        expect((rate + 1n) * quoteUsd > scaled, `${base}/${quote}`).toBe(true);
      }
    }
  });

  it("answers 1 for a symbol priced in itself", async () => {
    const pricing = staticPricing();
    expect((await pricing.getRate("BTC", "BTC"))?.rate).toBe("1");
    expect((await pricing.getRate("USD", "USD"))?.rate).toBe("1");
  });

  it("returns null when either symbol has no price", async () => {
    const pricing = staticPricing();
    expect(await pricing.getRate("DOGE", "USD")).toBeNull();
    expect(await pricing.getRate("BTC", "XYZ")).toBeNull();
  });

  it("returns null rather than a zero rate when the ratio is below 18 decimals", async () => {
    const pricing = staticPricing({ usdPrices: { DUST: "0.000000000000000001", BIG: "1000" } });
    expect(await pricing.getRate("DUST", "BIG")).toBeNull();
    expect((await pricing.getRate("BIG", "DUST"))?.rate).toBe("1000000000000000000000");
  });

  it("looks symbols up case-insensitively", async () => {
    const pricing = staticPricing({ usdPrices: { doge: "0.1" } });
    expect((await pricing.getRate("btc", "usd"))?.rate).toBe("60000");
    expect((await pricing.getRate("DOGE", "USD"))?.rate).toBe("0.1");
  });

  it("merges the given prices over the defaults", async () => {
    const pricing = staticPricing({ usdPrices: { BTC: "50000" } });
    expect((await pricing.getRate("BTC", "USD"))?.rate).toBe("50000");
    expect((await pricing.getRate("ETH", "USD"))?.rate).toBe("3000");
  });

  it("stamps each rate with the injected clock", async () => {
    const at = new Date("2026-01-02T03:04:05Z");
    const pricing = staticPricing({ at: () => at });
    expect(await pricing.getRate("BTC", "USD")).toEqual({ rate: "60000", at, sources: ["static"] });
    expect((await pricing.getRate("BTC", "BTC"))?.at).toBe(at);
  });

  it("stamps rates with the current time by default", async () => {
    const before = Date.now();
    const rate = await staticPricing().getRate("BTC", "USD");
    expect(rate?.at).toBeInstanceOf(Date);
    expect(rate!.at.getTime()).toBeGreaterThanOrEqual(before);
  });

  it("changes a price at run time with setPrice", async () => {
    const pricing = staticPricing();
    pricing.setPrice("BTC", "70000.5");
    expect((await pricing.getRate("BTC", "USD"))?.rate).toBe("70000.5");
    pricing.setPrice("sol", "150");
    expect((await pricing.getRate("SOL", "USD"))?.rate).toBe("150");
  });

  it("keeps the old price when setPrice is given a bad one", async () => {
    const pricing = staticPricing();
    expect(() => pricing.setPrice("BTC", "-1")).toThrow(/BTC/);
    expect(() => pricing.setPrice("BTC", "abc")).toThrow(/positive decimal/);
    expect((await pricing.getRate("BTC", "USD"))?.rate).toBe("60000");
  });

  it("does not share state between instances", async () => {
    const first = staticPricing();
    const second = staticPricing();
    first.setPrice("BTC", "1");
    expect((await second.getRate("BTC", "USD"))?.rate).toBe("60000");
  });

  it.each([
    ["zero", "0"],
    ["a negative price", "-5"],
    ["text", "cheap"],
    ["exponent notation", "1e3"],
    ["an empty string", ""],
    ["more than 18 decimals", "0.0000000000000000001"],
  ])("rejects %s in the table at construction, naming the entry", (_label, price) => {
    expect(() => staticPricing({ usdPrices: { BAD: price } })).toThrow(/usdPrices price of "BAD"/);
  });

  it("rejects a price that is not a string", () => {
    expect(() => staticPricing({ usdPrices: { BAD: 5 as unknown as string } })).toThrow(/"BAD".*got 5/);
  });

  it("rejects a malformed symbol and a symbol listed twice in different case", () => {
    expect(() => staticPricing({ usdPrices: { "B TC": "1" } })).toThrow(/symbol "B TC"/);
    expect(() => staticPricing({ usdPrices: { btc: "1", BTC: "2" } })).toThrow(/"BTC" twice/);
  });
});
