import { beforeAll, describe, expect, it } from "vitest";
import { runBrokenSuites } from "../../../fixtures/broken-suite-run";

/** Failed test titles and passed counts per suite name, from a child vitest run over the broken pricing adapters. */
let failed: Map<string, string[]>;
let passed: Map<string, number>;

beforeAll(async () => {
  ({ failed, passed } = await runBrokenSuites("test/fixtures/broken-pricing.vitest.config.ts"));
}, 120_000);

const failures = (suite: string) => failed.get(suite) ?? [];

const FORMAT = "quotes every ordered pair of the assets as a plain positive decimal string with at most 18 decimals";
const INVERSE = "is inverse-consistent: rate(a, b) × rate(b, a) is 1 within the tolerance";
const CROSS = "is cross-consistent: rate(a, c) is rate(a, b) × rate(b, c) within the tolerance, for every triple";
const UNKNOWN_PAIR = "answers null, without throwing, for a pair it does not know";
const UNKNOWN_ASSET = "answers null, without throwing, for an unknown asset against a known one, either way round";
const COPIES = "returns copies: mutating a returned rate, its sources or its at does not change the next answer";
const MONOTONIC = "never goes back in time: a repeated call's at is no older than the previous one's for the same pair";
const CONCURRENT = "returns the same rate to 50 concurrent calls for one pair";

describe("the pricing adapter conformance suite can fail", () => {
  it("fails each broken adapter on the tests of its bug and passes it on the others, so each failure points at its bug", () => {
    expect(Object.fromEntries([...failed].map(([suite, titles]) => [suite, [...titles].sort()]))).toEqual({
      numberFormatted: [FORMAT],
      lopsidedInverse: [CROSS, INVERSE].sort(),
      ownMarketCross: [CROSS],
      throwingUnknown: [UNKNOWN_PAIR, UNKNOWN_ASSET].sort(),
      sharedQuotes: [COPIES],
      rewindingClock: [MONOTONIC],
      unsharedFirstLoad: [CONCURRENT],
    });
    for (const suite of failed.keys()) expect(passed.get(suite) ?? 0, suite).toBeGreaterThanOrEqual(9);
  });

  it("catches rates formatted through Number: 1.2e-7-style strings for small rates", () => {
    expect(failures("numberFormatted")).toContain(FORMAT);
    expect(failures("numberFormatted")).not.toContain(INVERSE);
  });

  it("catches an inverse entered on its own and slightly off", () => {
    expect(failures("lopsidedInverse")).toContain(INVERSE);
    expect(failures("lopsidedInverse")).not.toContain(FORMAT);
  });

  it("catches a direct rate that disagrees with the rate through a third asset, even when its inverse agrees", () => {
    expect(failures("ownMarketCross")).toContain(CROSS);
    expect(failures("ownMarketCross")).not.toContain(INVERSE);
  });

  it("catches an adapter that throws for an unknown pair instead of answering null", () => {
    expect(failures("throwingUnknown")).toContain(UNKNOWN_PAIR);
    expect(failures("throwingUnknown")).toContain(UNKNOWN_ASSET);
  });

  it("catches an adapter that hands out its cached Rate objects", () => {
    expect(failures("sharedQuotes")).toContain(COPIES);
  });

  it("catches an at that goes backwards between calls for one pair", () => {
    expect(failures("rewindingClock")).toContain(MONOTONIC);
  });

  it("catches concurrent first calls that each load their own prices", () => {
    expect(failures("unsharedFirstLoad")).toContain(CONCURRENT);
  });
});
