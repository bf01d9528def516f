import { afterEach, describe, expect, it, vi } from "vitest";
import { exchangeRates, type ExchangeRates } from "../../../src/adapters/pricing/exchange-rates";
import type { PriceSource } from "../../../src/adapters/pricing/sources/types";
import { PriceUnavailableError, type Rate } from "../../../src/core/ports/pricing";
import { recordingLogger } from "../../helpers";
import { scripted } from "./scripted-source";

/**
 * The rules of exchangeRates() through its public PriceSource interface: median, staleness,
 * deviation, minimum sources, cross rates through USD, USDT-quoted sources, the depeg guard,
 * background refresh. (The providers' own formats are tested in sources/, and end to end with
 * the router in rates-e2e.test.ts.)
 */

let clock = 1_800_000_000_000;
const now = () => clock;
const open: ExchangeRates[] = [];
afterEach(async () => {
  for (const rates of open.splice(0)) await rates.close();
});

function rates(sources: PriceSource[], options: Partial<Parameters<typeof exchangeRates>[0]> = {}) {
  const logger = recordingLogger();
  const adapter = exchangeRates({ sources, now, refreshSeconds: 3600, ...options });
  adapter.bind!({ assets: ["BTC", "ETH", "USDT", "USDC", "EUR"], logger });
  open.push(adapter);
  return { adapter, logger };
}

describe("exchangeRates", () => {
  it("quotes the median of three sources, with their names and the oldest price's time", async () => {
    const a = scripted("a", { BTC: "60010", USDT: "1" });
    const b = scripted("b", { BTC: "60000", USDT: "1" }, { ageSeconds: 20 });
    const c = scripted("c", { BTC: "59990.5", USDT: "1" });
    const { adapter } = rates([a, b, c]);
    const rate = await adapter.getRate("BTC", "USD");
    expect(rate).toEqual({ rate: "60000", at: new Date(clock - 20_000), sources: ["a", "b", "c"] });
  });

  it("keeps quoting with one source down, and logs it as an outage: its error once, a line a read, a line when it is back", async () => {
    const a = scripted("a", { BTC: "60000" });
    const b = scripted("b", { BTC: "60100" });
    const c = scripted("c", { BTC: "1" });
    c.state.fail = "HTTP 500";
    const { adapter, logger } = rates([a, b, c]);
    expect((await adapter.getRate("BTC", "USD"))?.rate).toBe("60050");
    await adapter.refresh();
    await adapter.refresh();
    expect(logger.lines.filter((line) => line.includes("price source c"))).toEqual([
      "error price source c failed; it is retried every read, and logged once a read until it recovers: c: HTTP 500",
      "warn price source c still failing (2 reads in a row): c: HTTP 500",
      "warn price source c still failing (3 reads in a row): c: HTTP 500",
    ]);
    c.state.fail = null;
    c.state.prices.BTC = "60050";
    await adapter.refresh();
    await adapter.refresh();
    expect(logger.lines.filter((line) => line.includes("price source c")).slice(3)).toEqual(["warn price source c recovered after 3 failed reads"]);
  });

  it("leaves out a source far from the others and logs it", async () => {
    const { adapter, logger } = rates([scripted("a", { BTC: "60000" }), scripted("b", { BTC: "60060" }), scripted("c", { BTC: "66000" })]);
    const rate = await adapter.getRate("BTC", "USD");
    expect(rate?.sources).toEqual(["a", "b"]);
    // The median of the three: a source that is left out still cannot pull the price its way.
    expect(rate?.rate).toBe("60060");
    expect(logger.lines.some((line) => /c left out for BTC\/USD: 9.9\d*% from the median/.test(line))).toBe(true);
  });

  it("refuses to quote from stale prices, says why, and resumes by itself when sources recover", async () => {
    const a = scripted("a", { BTC: "60000" });
    const b = scripted("b", { BTC: "60000" });
    const { adapter } = rates([a, b], { maxAgeSeconds: 60 });
    expect((await adapter.getRate("BTC", "USD"))?.rate).toBe("60000");
    a.state.fail = "HTTP 503";
    b.state.fail = "rate limited (429)";
    await adapter.refresh();
    clock += 61_000;
    const refused = await adapter.getRate("BTC", "USD").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PriceUnavailableError);
    expect((refused as Error).message).toBe(
      "No price for BTC/USD right now: BTC/USD: 0 fresh sources, 2 needed; stale: a (61 s old), b (61 s old); down: a, b",
    );
    a.state.fail = null;
    b.state.fail = null;
    await adapter.refresh();
    expect((await adapter.getRate("BTC", "USD"))?.rate).toBe("60000");
  });

  it("gives the first quote once enough sources answered, while a slow source's first read is still under way", async () => {
    const slow = scripted("slow", { BTC: "60000" }, { timeoutMs: 60_000 });
    slow.state.hang = true;
    const { adapter, logger } = rates([scripted("a", { BTC: "60000" }), scripted("b", { BTC: "60020" }), slow]);
    const quote = adapter.getRate("BTC", "USD");
    // Bounded by a deadline far below the slow source's 60 s: the quote does not wait for it.
    const deadline = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), 5000).unref());
    const first = await Promise.race([quote, deadline]);
    expect(first).not.toBe("late");
    expect((first as Rate).sources).toEqual(["a", "b"]);
    expect(slow.state.calls).toBe(1);
    expect(adapter.sources().find((source) => source.name === "slow")).toMatchObject({ counts: false, leftOut: "not read yet" });
    expect(logger.lines.some((line) => line.includes("slow"))).toBe(false);
    await adapter.close();
  });

  it("does not let a source that hangs hold the refresh past its timeout", async () => {
    const slow = scripted("slow", { BTC: "60000" }, { timeoutMs: 150 });
    slow.state.hang = true;
    const { adapter, logger } = rates([scripted("a", { BTC: "60000" }), scripted("b", { BTC: "60020" }), slow]);
    await adapter.refresh();
    expect((await adapter.getRate("BTC", "USD"))?.sources).toEqual(["a", "b"]);
    expect(logger.lines.some((line) => line.includes("slow"))).toBe(true);
  });

  it("reads sources in the background only: quoting makes no call to them", async () => {
    const a = scripted("a", { BTC: "60000" });
    const b = scripted("b", { BTC: "60000" });
    const { adapter } = rates([a, b]);
    await adapter.getRate("BTC", "USD");
    const calls = a.state.calls + b.state.calls;
    for (let i = 0; i < 50; i++) await adapter.getRate("BTC", "EUR").catch(() => undefined);
    expect(a.state.calls + b.state.calls).toBe(calls);
  });

  it("makes cross rates through USD: ETH/BTC and EUR/USDT", async () => {
    const a = scripted("a", { BTC: "60000", ETH: "3000", USDT: "1", EUR: "1.08" });
    const b = scripted("b", { BTC: "60000", ETH: "3000", USDT: "1", EUR: "1.08" });
    const { adapter } = rates([a, b]);
    expect((await adapter.getRate("ETH", "BTC"))?.rate).toBe("0.05");
    expect((await adapter.getRate("EUR", "USDT"))?.rate).toBe("1.08");
    expect((await adapter.getRate("USD", "EUR"))?.rate).toBe("0.925925925925925925");
    expect(await adapter.getRate("DOGE", "USD")).toBeNull();
  });

  it("converts USDT-quoted prices at the USDT/USD of the sources that made it: a source off on USDT/USD disqualifies no other", async () => {
    const liar = scripted("liar", { ETH: "3300", USDT: "1.1" });
    const b = scripted("b", { ETH: "3000", USDT: "1" });
    const c = scripted("c", { ETH: "3000", USDT: "1" });
    const usdt = scripted("usdt-quoted", { ETH: "3000" }, { quote: "USDT" });
    const { adapter } = rates([liar, b, c, usdt]);
    expect(await adapter.getRate("USDT", "USD")).toMatchObject({ rate: "1", sources: ["b", "c"] });
    expect(await adapter.getRate("ETH", "USD")).toMatchObject({ rate: "3000", sources: ["b", "c", "usdt-quoted"] });
    const pairs = adapter.sources().find((source) => source.name === "liar")!.pairs!;
    expect(pairs.filter((pair) => pair.base === "ETH" || pair.base === "USDT")).toEqual([
      { base: "ETH", quote: "USD", counts: false, leftOut: "10% from the median" },
      { base: "USDT", quote: "USD", counts: false, leftOut: "10% from the median" },
    ]);
  });

  it("counts a USDT-quoted source (Binance) as USD at the other sources' USDT/USD price", async () => {
    const a = scripted("a", { BTC: "60000", USDT: "0.999" });
    const b = scripted("b", { BTC: "60100", USDT: "0.999" });
    const binance = scripted("binance", { BTC: "60100.1001001001" }, { quote: "USDT" });
    const { adapter } = rates([a, b, binance]);
    const rate = await adapter.getRate("BTC", "USD");
    expect(rate?.sources).toEqual(["a", "binance", "b"].sort());
    // 60100.1001001001 USDT x 0.999 USD/USDT = 60039.9999999999999 USD exactly: the median of the three.
    expect(rate?.rate).toBe("60039.9999999999999");
  });

  it("stops quoting a stablecoin off its peg and logs it, while other coins go on", async () => {
    const a = scripted("a", { BTC: "60000", USDT: "0.95", USDC: "1" });
    const b = scripted("b", { BTC: "60000", USDT: "0.951", USDC: "1.001" });
    const { adapter, logger } = rates([a, b]);
    await expect(adapter.getRate("USDT", "USD")).rejects.toThrow(/USDT is off its peg: 0.9505 USD, more than 2% from 1 USD/);
    await expect(adapter.getRate("BTC", "USDT")).rejects.toThrow(/off its peg/);
    expect((await adapter.getRate("USDC", "USD"))?.rate).toBe("1.0005");
    expect((await adapter.getRate("BTC", "USD"))?.rate).toBe("60000");
    await adapter.refresh();
    expect(logger.lines.some((line) => line.includes("USDT is off its peg"))).toBe(true);
  });

  it("refuses a price two of four sources agree on, naming who said what, and logs it once", async () => {
    // The two liars' world is self-consistent: ETH 3300 USD and USDT 1.1 USD agree with Binance's 3000 USDT.
    const liar = (name: string) => scripted(name, { ETH: "3300", USDT: "1.1" });
    const honest = scripted("c", { ETH: "3000", USDT: "1" });
    const binance = scripted("binance", { ETH: "3000" }, { quote: "USDT" });
    const { adapter, logger } = rates([liar("a"), liar("b"), honest, binance]);
    const refused = await adapter.getRate("ETH", "USD").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PriceUnavailableError);
    expect((refused as Error).message).toBe(
      "No price for ETH/USD right now: ETH/USD: the sources disagree: 2 of the 4 that answered agree, 3 needed (within 2% of the median 3300 USD): " +
        "a 3300, b 3300, binance 3000 USDT (not counted: USDT/USD: USDT is off its peg: 1.1 USD, more than 2% from 1 USD), c 3000",
    );
    await adapter.refresh();
    await adapter.refresh();
    expect(logger.lines.filter((line) => line.includes("no price for ETH/USD: the sources disagree"))).toHaveLength(1);
  });

  it("converts USDT-quoted prices only through a USDT/USD that passes the peg guard: Binance then answered, and does not agree", async () => {
    const a = scripted("a", { BTC: "60000", USDT: "0.95" });
    const b = scripted("b", { BTC: "60000", USDT: "0.951" });
    // At the depegged 0.9505 this would be 59881.5 USD, close enough to count if the guard were skipped.
    const binance = scripted("binance", { BTC: "63000" }, { quote: "USDT" });
    const { adapter } = rates([a, b, binance]);
    expect(await adapter.getRate("BTC", "USD")).toMatchObject({ rate: "60000", sources: ["a", "b"] });
    // With b down and stale, USDT/USD has one source, fewer than minSources: Binance is still not counted.
    b.state.fail = "HTTP 500";
    await adapter.refresh();
    clock += 121_000;
    await adapter.refresh();
    await expect(adapter.getRate("BTC", "USD")).rejects.toThrow(
      /1 fresh source, 2 needed; .*down: .*binance 63000 USDT \(not counted: USDT\/USD: 1 fresh source, 2 needed/,
    );
  });

  it("counts a USDT-quoted price as agreeing only at every fresh USDT/USD answer, so liars on USDT/USD cannot lend it their lie", async () => {
    // a and b lie 1.9% high on USDT (inside the peg band: USDT/USD is quoted 1.019) and 3.7% on ETH.
    const a = scripted("a", { ETH: "3110", USDT: "1.019" });
    const b = scripted("b", { ETH: "3110", USDT: "1.019" });
    const c = scripted("c", { ETH: "3000", USDT: "1" });
    const binance = scripted("binance", { ETH: "3000" }, { quote: "USDT" });
    const { adapter } = rates([a, b, c, binance]);
    expect((await adapter.getRate("USDT", "USD"))?.rate).toBe("1.019");
    // Binance's 3000 USDT is 3057 USD at 1.019, which agrees with the liars, but 3000 at c's 1: it does not agree.
    await expect(adapter.getRate("ETH", "USD")).rejects.toThrow(/2 of the 4 that answered agree, 3 needed/);
    c.state.prices.ETH = "3057";
    a.state.prices.ETH = "3057";
    b.state.prices.ETH = "3057";
    binance.state.prices.ETH = "3030";
    await adapter.refresh();
    expect(await adapter.getRate("ETH", "USD")).toMatchObject({ rate: "3057", sources: ["a", "b", "binance", "c"] });
  });

  it("logs a source left out for staleness once, and again only after it recovered and went stale again", async () => {
    const a = scripted("a", { BTC: "60000" });
    const b = scripted("b", { BTC: "60000" });
    const c = scripted("c", { BTC: "60000" });
    const { adapter, logger } = rates([a, b, c], { maxAgeSeconds: 60 });
    await adapter.refresh();
    const staleLines = () => logger.lines.filter((line) => line.includes("price source c left out until its prices are fresh again"));
    c.state.fail = "HTTP 502";
    await adapter.refresh();
    clock += 61_000;
    for (let i = 0; i < 3; i++) await adapter.refresh();
    expect(staleLines()).toEqual([
      "warn price source c left out until its prices are fresh again: its prices are 61 s old or more, older than maxAgeSeconds (60)",
    ]);
    // Its failures are an outage of their own: the error once, then a line a read.
    expect(logger.lines.filter((line) => line.includes("c: HTTP 502")).map((line) => line.split(" ")[0])).toEqual(["error", "warn", "warn", "warn"]);
    expect(await adapter.getRate("BTC", "USD")).toMatchObject({ sources: ["a", "b"] });

    c.state.fail = null;
    await adapter.refresh();
    expect(logger.lines.filter((line) => line.includes("price source c has fresh prices again"))).toHaveLength(1);
    c.state.fail = "HTTP 502";
    await adapter.refresh();
    clock += 61_000;
    await adapter.refresh();
    await adapter.refresh();
    expect(staleLines()).toHaveLength(2);
  });

  it("refuses options that could never quote, naming them", () => {
    expect(() => exchangeRates({ sources: [] })).toThrow(/sources needs at least one source/);
    expect(() => exchangeRates({ sources: [scripted("a", {})], minSources: 2 })).toThrow(/minSources is 2 but only 1 source/);
    expect(() => exchangeRates({ sources: [scripted("a", {}), scripted("a", {})] })).toThrow(/two sources are named "a"/);
    expect(() => exchangeRates({ sources: [scripted("a", {})], maxAge: 5 } as never)).toThrow(/unknown option\(s\) maxAge/);
  });
});

describe("exchangeRates reads each source on its own schedule", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  for (const how of ["hang", "deaf"] as const) {
    it(`keeps quoting from the healthy sources, fresh, while one source ${how === "hang" ? "hangs until its timeout" : "never answers and ignores its signal"}`, async () => {
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
      const a = scripted("a", { BTC: "60000" });
      const b = scripted("b", { BTC: "60020" });
      const stuck = scripted("stuck", { BTC: "60000" }, { timeoutMs: 10_000 });
      stuck.state[how] = true;
      const logger = recordingLogger();
      const adapter = exchangeRates({ sources: [a, b, stuck], now: () => Date.now(), maxAgeSeconds: 5, refreshSeconds: 1 });
      open.push(adapter);
      adapter.bind!({ assets: ["BTC", "USDT"], logger });
      // The very first quote waits for the first read of every source: the stuck one's ends at its timeout.
      const first = adapter.getRate("BTC", "USD");
      await vi.advanceTimersByTimeAsync(10_000);
      expect((await first)?.sources).toEqual(["a", "b"]);
      // A minute of quoting, one quote a second: the stuck source times out again and again meanwhile.
      for (let second = 0; second < 60; second++) {
        await vi.advanceTimersByTimeAsync(1_000);
        const rate = await adapter.getRate("BTC", "USD");
        expect(rate?.sources, `after ${second + 1} s`).toEqual(["a", "b"]);
        expect(Date.now() - rate!.at.getTime()).toBeLessThanOrEqual(5_000);
      }
      expect(stuck.state.calls).toBeGreaterThan(1);
      // Logged with its error once, then one line per timed-out read (never more than one a read).
      const lines = logger.lines.filter((line) => line.includes("stuck: no answer within 10000 ms"));
      expect(lines.filter((line) => line.startsWith("error"))).toHaveLength(1);
      // The last read may still be under way.
      expect(lines.length).toBeLessThanOrEqual(stuck.state.calls);
      expect(lines.length).toBeGreaterThanOrEqual(stuck.state.calls - 1);
    });
  }

  it("closes without waiting for a source that never answers", async () => {
    const deaf = scripted("deaf", { BTC: "60000" }, { timeoutMs: 600_000 });
    deaf.state.deaf = true;
    const adapter = exchangeRates({ sources: [scripted("a", { BTC: "60000" }), deaf], now });
    adapter.bind!({ assets: ["BTC"], logger: recordingLogger() });
    // Resolves (the test would time out otherwise): the read under way is abandoned.
    await adapter.close();
    expect(deaf.state.calls).toBe(1);
  });
});
