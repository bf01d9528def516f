import { describe, expect, it } from "vitest";
import { combine, deviationBps, formatBps, median, type Candidate } from "../../../src/adapters/pricing/combine";

const E18 = 10n ** 18n;
const usd = (text: string) => {
  const [whole, fraction = ""] = text.split(".");
  return BigInt(whole!) * E18 + BigInt(fraction.padEnd(18, "0"));
};
const rules = { maxAgeMs: 120_000, minSources: 2, maxDeviationBps: 200n };
const now = 1_800_000_000_000;
const at = (secondsAgo: number) => now - secondsAgo * 1000;
const candidate = (source: string, price: string, secondsAgo = 0): Candidate => ({ source, usd: usd(price), at: at(secondsAgo) });

describe("median", () => {
  it("takes the middle value, or the mean of the two middle ones rounded down", () => {
    expect(median([3n, 1n, 2n])).toBe(2n);
    expect(median([4n, 1n, 3n, 2n])).toBe(2n);
    expect(median([5n])).toBe(5n);
  });
});

describe("deviationBps", () => {
  it("measures the distance from the reference in basis points, rounding up", () => {
    expect(deviationBps(usd("102"), usd("100"))).toBe(200n);
    expect(deviationBps(usd("98"), usd("100"))).toBe(200n);
    expect(deviationBps(usd("100.0001"), usd("100"))).toBe(1n);
    expect(formatBps(250n)).toBe("2.5%");
    expect(formatBps(200n)).toBe("2%");
    expect(formatBps(5n)).toBe("0.05%");
  });
});

describe("combine", () => {
  it("quotes the median of three fresh sources, with the oldest time and every source", () => {
    const result = combine([candidate("a", "60010", 10), candidate("b", "60000", 30), candidate("c", "59990", 5)], now, rules);
    expect(result).toEqual({ ok: true, usd: usd("60000"), at: at(30), freshUntil: at(30) + 120_001, sources: ["a", "b", "c"], outliers: [] });
  });

  it("leaves out a source far from the median, and quotes the median when a strict majority agrees with it", () => {
    const result = combine([candidate("a", "60010"), candidate("b", "60000"), candidate("c", "70000")], now, rules);
    expect(result).toMatchObject({ ok: true, usd: usd("60010"), sources: ["a", "b"] });
    expect(result.outliers).toEqual([{ source: "c", bps: 1665n }]);
  });

  it("refuses when fewer fresh sources than the minimum are left, naming the stale and the down ones", () => {
    const result = combine([candidate("a", "60000", 10), candidate("b", "60000", 300)], now, rules, ["kraken: HTTP 500"]);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toBe("1 fresh source, 2 needed; stale: b (300 s old); down: kraken: HTTP 500");
  });

  it("refuses when the fresh sources disagree so that too few are within the deviation", () => {
    const result = combine([candidate("a", "100"), candidate("b", "110")], now, rules);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toBe("the sources disagree: 0 of the 2 that answered agree, 2 needed (within 2% of the median 105 USD): a 100, b 110");
  });

  it("ignores prices that are zero or negative, and treats a future time as now", () => {
    const result = combine([candidate("a", "0"), { source: "b", usd: -5n, at: now }, candidate("c", "1", -60), candidate("d", "1")], now, rules);
    expect(result).toMatchObject({ ok: true, usd: E18, sources: ["c", "d"] });
  });

  it("accepts a price exactly at the age limit and exactly at the deviation limit", () => {
    const result = combine([candidate("a", "100", 120), candidate("b", "102"), candidate("c", "100")], now, { ...rules, minSources: 3 });
    expect(result).toMatchObject({ ok: true, sources: ["a", "b", "c"] });
  });

  it("needs a strict majority of the sources that answered: two of four is no price, two of three is", () => {
    const four = [candidate("a", "3300"), candidate("b", "3300"), candidate("c", "3000"), candidate("d", "3000")];
    const split = combine(four, now, rules);
    expect(split).toMatchObject({ ok: false, disagreement: true });
    expect(!split.ok && split.reason).toBe(
      "the sources disagree: 0 of the 4 that answered agree, 3 needed (within 2% of the median 3150 USD): a 3300, b 3300, c 3000, d 3000",
    );
    expect(combine([candidate("a", "3300"), candidate("b", "3000"), candidate("c", "3000")], now, rules)).toMatchObject({
      ok: true,
      usd: usd("3000"),
      sources: ["b", "c"],
    });
    // Stale sources did not answer: two fresh ones that agree still make a price.
    expect(combine([candidate("a", "3300", 300), candidate("b", "3300", 300), candidate("c", "3000"), candidate("d", "3000")], now, rules)).toMatchObject({
      ok: true,
      sources: ["c", "d"],
    });
  });

  it("counts a source with no USD value as having answered, and as not agreeing", () => {
    const binance: Candidate = { source: "binance", usd: null, at: now, said: "3000 USDT", why: "USDT/USD: USDT is off its peg" };
    const result = combine([candidate("a", "3300"), candidate("b", "3300"), candidate("c", "3000"), binance], now, rules);
    expect(!result.ok && result.reason).toBe(
      "the sources disagree: 2 of the 4 that answered agree, 3 needed (within 2% of the median 3300 USD): a 3300, b 3300, binance 3000 USDT (not counted: USDT/USD: USDT is off its peg), c 3000",
    );
    expect(combine([candidate("a", "3000"), candidate("b", "3000"), binance], now, rules)).toMatchObject({ ok: true, sources: ["a", "b"] });
  });

  it("lets a candidate agree only when each of its alternative values agrees too", () => {
    const converted = (alternatives: string[]): Candidate => ({ ...candidate("binance", "3057"), alternatives: alternatives.map(usd) });
    const liars = [candidate("a", "3110"), candidate("b", "3110"), candidate("c", "3000")];
    expect(combine([...liars, converted(["3057", "3057", "3000"])], now, rules)).toMatchObject({ ok: false, disagreement: true });
    expect(combine([...liars, converted(["3057", "3057"])], now, rules)).toMatchObject({ ok: true, sources: ["a", "b", "binance"] });
  });
});
