import { describe, expect, it } from "vitest";
import type { Rate } from "../../core/ports/pricing";
import { ask, describeAnswer, describeError, label, orderedPairs, quotedRate, type PricingSuiteContext } from "./context";

/** How many callers ask for one price at once: a burst of invoices created together. */
const CONCURRENT_CALLS = 50;
/** How often each pair is asked again in the time test. */
const ROUNDS = 4;
/** What the suite writes into returned values to see whether the adapter hands out its own state. */
const MARK = "mutated-by-the-conformance-suite";
/** The rate and the time the suite writes into a returned answer: values no real quote has. */
const MARK_RATE = "0.000000000000000001";
const MARK_AT = 0;

/** How the adapter behaves across calls: at once, after its answers are changed, over time. */
export function callTests(ctx: PricingSuiteContext): void {
  describe("calls", () => {
    it(`returns the same rate to ${CONCURRENT_CALLS} concurrent calls for one pair`, async () => {
      // First thing on a fresh adapter, so that a cache being filled is raced too.
      const [base, quote] = orderedPairs(ctx.assets)[0]!;
      const settled = await Promise.allSettled(Array.from({ length: CONCURRENT_CALLS }, () => ctx.adapter().getRate(base, quote)));
      const failures = settled.flatMap((result) => (result.status === "rejected" ? [describeError(result.reason)] : []));
      expect(failures, `${label(base, quote)}: concurrent calls that threw`).toEqual([]);
      const rates = new Set(settled.map((result) => (result.status === "fulfilled" ? (result.value?.rate ?? null) : null)));
      expect([...rates], `${label(base, quote)}: distinct rates among ${CONCURRENT_CALLS} concurrent calls`).toHaveLength(1);
      expect([...rates][0], `${label(base, quote)}: concurrent calls answered null`).not.toBeNull();
    });

    it("returns copies: mutating a returned rate, its sources or its at does not change the next answer", async () => {
      const problems: string[] = [];
      const pairs = [...orderedPairs(ctx.assets), [ctx.assets[0]!, ctx.assets[0]!] as [string, string]];
      for (const [base, quote] of pairs) {
        const first = await ask(ctx.adapter(), base, quote);
        const firstRate = quotedRate(first);
        if (!firstRate) {
          problems.push(`${label(base, quote)}: no quote to mutate (getRate answered ${describeAnswer(first)})`);
          continue;
        }
        const before = snapshot(firstRate);
        mutate(firstRate);
        const next = await ask(ctx.adapter(), base, quote);
        const nextRate = quotedRate(next);
        if (!nextRate) {
          problems.push(`${label(base, quote)}: no second quote (getRate answered ${describeAnswer(next)})`);
          continue;
        }
        const after = snapshot(nextRate);
        if (after.rate === MARK_RATE && before.rate !== MARK_RATE)
          problems.push(`${label(base, quote)}: rate was ${String(before.rate)}, is what the caller wrote into the previous answer`);
        if (after.sources.includes(MARK))
          problems.push(`${label(base, quote)}: sources ${JSON.stringify(after.sources)} show what the caller pushed into the previous answer's array`);
        if (after.at === MARK_AT && before.at !== MARK_AT)
          problems.push(`${label(base, quote)}: at is the time the caller set on the previous answer's Date (the epoch), not ${iso(before.at)}`);
      }
      expect(problems, "answers that share state with the adapter (return fresh objects, arrays and Dates)").toEqual([]);
    });

    it("never goes back in time: a repeated call's at is no older than the previous one's for the same pair", async () => {
      const problems: string[] = [];
      const last = new Map<string, number>();
      for (let round = 0; round < ROUNDS; round++) {
        for (const [base, quote] of orderedPairs(ctx.assets)) {
          const answer = await ask(ctx.adapter(), base, quote);
          const at = answer.ok && answer.rate?.at instanceof Date ? answer.rate.at.getTime() : Number.NaN;
          if (Number.isNaN(at)) {
            problems.push(`${label(base, quote)} call ${round + 1}: no dated quote (getRate answered ${describeAnswer(answer)})`);
            continue;
          }
          const previous = last.get(label(base, quote));
          if (previous !== undefined && at < previous) {
            problems.push(`${label(base, quote)} call ${round + 1}: at ${iso(at)} is older than the previous call's ${iso(previous)}`);
          }
          last.set(label(base, quote), at);
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(problems, "quotes older than the one before them for the same pair").toEqual([]);
    });
  });
}

/** The parts of a rate the suite compares, read before they are mutated. */
function snapshot(rate: Rate): { rate: unknown; sources: unknown[]; at: number } {
  return {
    rate: rate.rate,
    sources: Array.isArray(rate.sources) ? [...(rate.sources as unknown[])] : [],
    at: rate.at instanceof Date ? rate.at.getTime() : Number.NaN,
  };
}

/** What a careless caller does to an answer: overwrite it, push to its arrays, move its Date. */
function mutate(rate: Rate): void {
  attempt(() => Array.isArray(rate.sources) && rate.sources.push(MARK));
  attempt(() => rate.at instanceof Date && rate.at.setTime(MARK_AT));
  attempt(() => (rate.rate = MARK_RATE));
}

/** Runs one mutation; a frozen answer refuses it (a TypeError in strict mode) and cannot leak, which is fine. */
function attempt(change: () => unknown): void {
  try {
    change();
  } catch {
    // frozen: the next answer cannot have been changed through it
  }
}

/** A time for messages; an invalid one as it is. */
function iso(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : String(ms);
}
