import type { PricingAdapter, Rate } from "../../core/ports/pricing";
import { readRatio, type Ratio } from "./ratio";

/** What each part of the conformance suite gets: the adapter of the running test and the options. */
export interface PricingSuiteContext {
  /** The fresh adapter `createAdapter` made for the running test. */
  adapter(): PricingAdapter;
  /** The assets every ordered pair of which is quoted. */
  assets: readonly string[];
  /** The assets of `unknownPair` that are not in `assets`: the adapter knows no price of them. */
  unknownAssets: readonly string[];
  /** The pair the adapter does not know. */
  unknownPair: readonly [string, string];
  /** Relative tolerance of the consistency tests. */
  tolerance: Ratio;
}

/** "BTC/USD", for messages. */
export function label(base: string, quote: string): string {
  return `${base}/${quote}`;
}

/** Every ordered pair of distinct assets. */
export function orderedPairs(assets: readonly string[]): Array<[string, string]> {
  return assets.flatMap((base) => assets.filter((quote) => quote !== base).map((quote): [string, string] => [base, quote]));
}

/** What one getRate call gave: its answer, or what it threw. */
export type Answer = { ok: true; rate: Rate | null } | { ok: false; error: unknown };

/** The Rate an answer carries: null for a throw, a null answer, or a value that is no object (an adapter's mistake to report). */
export function quotedRate(answer: Answer): Rate | null {
  return answer.ok && answer.rate && typeof answer.rate === "object" ? answer.rate : null;
}

/** Calls getRate and keeps a throw (or a rejection) as an answer, so that a test can list every bad pair. */
export async function ask(adapter: PricingAdapter, base: string, quote: string): Promise<Answer> {
  try {
    return { ok: true, rate: await adapter.getRate(base, quote) };
  } catch (error) {
    return { ok: false, error };
  }
}

/** A thrown value, for messages. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** What getRate(base, quote) answered, for messages: `"60000"`, `null`, `threw Error: ...`. */
export function describeAnswer(answer: Answer): string {
  if (!answer.ok) return `threw ${describeError(answer.error)}`;
  if (answer.rate === null) return "null";
  if (typeof answer.rate !== "object") return `${typeof answer.rate} ${String(answer.rate)}`;
  return JSON.stringify(answer.rate.rate) ?? String(answer.rate.rate);
}

/**
 * The value of every ordered pair's rate, for the consistency tests, and a problem for each pair
 * that has none (null, a throw, a rate that is no number or not positive): those cannot be
 * checked, and the quoting test says why in more detail.
 */
export async function rateTable(adapter: PricingAdapter, assets: readonly string[]): Promise<{ rates: Map<string, Ratio>; problems: string[] }> {
  const rates = new Map<string, Ratio>();
  const problems: string[] = [];
  for (const [base, quote] of orderedPairs(assets)) {
    const answer = await ask(adapter, base, quote);
    const rate = quotedRate(answer);
    const value = rate ? readRatio(rate.rate) : null;
    if (value && value.n > 0n) rates.set(label(base, quote), value);
    else problems.push(`${label(base, quote)}: no positive rate to check (getRate answered ${describeAnswer(answer)})`);
  }
  return { rates, problems };
}
