import { describe, expect, it } from "vitest";
import type { Rate } from "../../core/ports/pricing";
import { RATE_DECIMALS } from "../../money";
import { ask, describeAnswer, label, orderedPairs, quotedRate, type Answer, type PricingSuiteContext } from "./context";
import { PLAIN_DECIMAL, readRatio } from "./ratio";

/** How far in the future an `at` may be: clocks of hosts and providers drift a little, not more. */
const FUTURE_SLACK_MS = 60_000;

/** The shape of each quote: its rate string, its time and its sources; the same asset; unknown pairs. */
export function quoteTests(ctx: PricingSuiteContext): void {
  describe("quotes", () => {
    it(`quotes every ordered pair of the assets as a plain positive decimal string with at most ${RATE_DECIMALS} decimals`, async () => {
      const problems = await eachPair(ctx, (rate) => rateProblem(rate.rate));
      expect(problems, "pairs whose rate is not a plain positive decimal string (service amounts are computed from it exactly)").toEqual([]);
    });

    it("dates every quote with an at that is a valid Date, not more than a minute in the future", async () => {
      const problems = await eachPair(ctx, (rate) => atProblem(rate.at, Date.now()));
      expect(problems, "pairs whose at is not a valid, present Date").toEqual([]);
    });

    it("names its sources, when it gives them, as an array of non-empty strings", async () => {
      const problems = await eachPair(ctx, (rate) => sourcesProblem(rate.sources));
      expect(problems, "pairs whose sources are neither absent nor an array of non-empty strings").toEqual([]);
    });

    it('prices each asset in itself at exactly "1"', async () => {
      const problems: string[] = [];
      for (const asset of ctx.assets) {
        const answer = await ask(ctx.adapter(), asset, asset);
        if (!answer.ok || !answer.rate || answer.rate.rate !== "1") problems.push(`${label(asset, asset)}: ${describeAnswer(answer)}`);
      }
      expect(problems, 'same-asset pairs not quoted as exactly "1"').toEqual([]);
    });

    it("answers null, without throwing, for a pair it does not know", async () => {
      const [base, quote] = ctx.unknownPair;
      const answer = await ask(ctx.adapter(), base, quote);
      expect(
        describeAnswer(answer),
        `getRate("${base}", "${quote}") must answer null: the service tells "no price for this pair" (null) from "no price right now" (a throw)`,
      ).toBe("null");
    });

    it("answers null, without throwing, for an unknown asset against a known one, either way round", async () => {
      const problems: string[] = [];
      for (const unknown of ctx.unknownAssets) {
        for (const known of ctx.assets) {
          for (const [base, quote] of [
            [unknown, known],
            [known, unknown],
          ] as const) {
            const answer = await ask(ctx.adapter(), base, quote);
            if (describeAnswer(answer) !== "null") problems.push(`${label(base, quote)}: ${describeAnswer(answer)}`);
          }
        }
      }
      expect(problems, "pairs with an unknown asset that did not answer null").toEqual([]);
    });
  });
}

/**
 * Quotes every ordered pair and lists, for each, what the getRate answer lacks: a quote at all
 * (null or a throw), the shape of a Rate, or what `check` finds wrong with it.
 */
async function eachPair(ctx: PricingSuiteContext, check: (rate: Rate) => string | null): Promise<string[]> {
  const problems: string[] = [];
  for (const [base, quote] of orderedPairs(ctx.assets)) {
    const answer = await ask(ctx.adapter(), base, quote);
    const rate = quotedRate(answer);
    const problem = rate ? check(rate) : noRate(answer);
    if (problem) problems.push(`${label(base, quote)}: ${problem}`);
  }
  return problems;
}

/** Why an answer without a Rate (see quotedRate) fails. */
function noRate(answer: Answer): string {
  if (!answer.ok || answer.rate === null) return `no quote (getRate answered ${describeAnswer(answer)}); every pair of the assets must be priced`;
  return `getRate answered ${describeAnswer(answer)}, not a Rate object`;
}

/** What is wrong with a rate string, or null. */
export function rateProblem(rate: unknown): string | null {
  if (typeof rate !== "string") return `rate is ${typeof rate} ${String(rate)}, not a string`;
  if (!PLAIN_DECIMAL.test(rate)) return `rate ${JSON.stringify(rate)} is not a plain decimal (digits and one point only: no exponent, sign or whitespace)`;
  const decimals = rate.split(".")[1]?.length ?? 0;
  if (decimals > RATE_DECIMALS) return `rate ${JSON.stringify(rate)} has ${decimals} decimals, more than ${RATE_DECIMALS}`;
  if (!readRatio(rate)?.n) return `rate ${JSON.stringify(rate)} is zero; a pair too small to show at ${RATE_DECIMALS} decimals has no rate (null)`;
  return null;
}

/** What is wrong with an `at`, or null. */
function atProblem(at: unknown, now: number): string | null {
  if (!(at instanceof Date)) return `at is ${at === null ? "null" : typeof at} ${String(at)}, not a Date`;
  if (Number.isNaN(at.getTime())) return "at is an Invalid Date";
  if (at.getTime() > now + FUTURE_SLACK_MS) return `at ${at.toISOString()} is more than a minute in the future (now ${new Date(now).toISOString()})`;
  return null;
}

/** What is wrong with `sources`, or null. */
function sourcesProblem(sources: unknown): string | null {
  if (sources === undefined) return null;
  if (!Array.isArray(sources)) return `sources is ${sources === null ? "null" : typeof sources}, neither absent nor an array`;
  const bad = sources.filter((source) => typeof source !== "string" || source.length === 0);
  return bad.length ? `sources ${JSON.stringify(sources)} holds ${bad.length} entry(ies) that are not non-empty strings` : null;
}
