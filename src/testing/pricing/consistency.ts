import { describe, expect, it } from "vitest";
import { label, rateTable, type PricingSuiteContext } from "./context";
import { add, atMost, mul, ONE, relativeGap, roundingSlack, showRatio, type Ratio } from "./ratio";

/**
 * Rates that agree with each other: a price and its inverse, a direct rate and the one through a
 * third asset. Where they disagree, a buyer who pays in one currency and is refunded in another
 * gains or loses on the way, and invoices priced in EUR and in USD tell two stories.
 *
 * All in exact fractions: each rate is allowed the tolerance plus what rounding to 18 decimals
 * may cost it (see `roundingSlack`).
 */
export function consistencyTests(ctx: PricingSuiteContext): void {
  describe("consistency", () => {
    it("is inverse-consistent: rate(a, b) × rate(b, a) is 1 within the tolerance", async () => {
      const { rates, problems } = await rateTable(ctx.adapter(), ctx.assets);
      const seen = new Set<string>();
      for (const a of ctx.assets) {
        for (const b of ctx.assets) {
          const key = [a, b].sort().join("|");
          if (a === b || seen.has(key)) continue;
          seen.add(key);
          const ab = rates.get(label(a, b));
          const ba = rates.get(label(b, a));
          if (!ab || !ba) continue;
          const problem = beyond(mul(ab, ba), ONE, [ab, ba], ctx.tolerance);
          if (problem) problems.push(`${label(a, b)} × ${label(b, a)} = ${showRatio(mul(ab, ba), 20)}: ${problem}`);
        }
      }
      expect(problems, "pairs whose inverse does not undo them").toEqual([]);
    });

    it("is cross-consistent: rate(a, c) is rate(a, b) × rate(b, c) within the tolerance, for every triple", async () => {
      const { rates, problems } = await rateTable(ctx.adapter(), ctx.assets);
      for (const a of ctx.assets) {
        for (const b of ctx.assets) {
          for (const c of ctx.assets) {
            if (a === b || b === c || a === c) continue;
            const ab = rates.get(label(a, b));
            const bc = rates.get(label(b, c));
            const ac = rates.get(label(a, c));
            if (!ab || !bc || !ac) continue;
            const problem = beyond(mul(ab, bc), ac, [ab, bc, ac], ctx.tolerance);
            if (problem)
              problems.push(`${label(a, c)} is ${showRatio(ac, 20)} but ${label(a, b)} × ${label(b, c)} is ${showRatio(mul(ab, bc), 20)}: ${problem}`);
          }
        }
      }
      expect(problems, "triples whose rate through the middle asset is not the direct rate").toEqual([]);
    });
  });
}

/**
 * Null when `actual` is `expected` within the tolerance plus the rounding slack of `rates`;
 * otherwise how far off it is, for the message.
 */
function beyond(actual: Ratio, expected: Ratio, rates: readonly Ratio[], tolerance: Ratio): string | null {
  const gap = relativeGap(actual, expected);
  const slack = roundingSlack(rates);
  if (atMost(gap, add(tolerance, slack))) return null;
  return `off by ${showRatio(gap)} relative, more than the tolerance ${showRatio(tolerance)} (+ ${showRatio(slack)} for rounding at 18 decimals)`;
}
