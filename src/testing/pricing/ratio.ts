import { pow10, RATE_DECIMALS } from "../../money";

/**
 * Exact fractions of bigints, for judging rates without floats: a rate string is read as the
 * fraction it writes, products of rates stay exact, and a tolerance is compared by
 * cross-multiplication. Denominators are always positive.
 */
export interface Ratio {
  readonly n: bigint;
  readonly d: bigint;
}

/** What a rate string must look like: a plain positive decimal, no sign, exponent or padding. */
export const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;

// Lenient on purpose: the consistency tests judge the value of a rate that the format test has
// already refused ("1.2e-7", " 3"), so that each failing test points at one bug.
const NUMBER_TEXT = /^\s*\+?(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?\s*$/i;

/** The exact value a rate string writes ("60000.5", and leniently "1.2e-7"); null when it is no number. */
export function readRatio(text: unknown): Ratio | null {
  if (typeof text !== "string") return null;
  const match = NUMBER_TEXT.exec(text);
  if (!match) return null;
  const [, whole = "", fraction = "", exponentText = "0"] = match;
  if (whole === "" && fraction === "") return null;
  const exponent = Number(exponentText) - fraction.length;
  // An exponent this large is no price; refusing it keeps 10^exponent affordable.
  if (Math.abs(exponent) > 400) return null;
  const digits = BigInt(`${whole}${fraction}` || "0");
  return exponent >= 0 ? ratio(digits * pow10(exponent), 1n) : ratio(digits, pow10(-exponent));
}

/** n / d, with the sign carried by the numerator. */
export function ratio(n: bigint, d: bigint): Ratio {
  if (d === 0n) throw new RangeError("ratio: division by zero");
  return d < 0n ? { n: -n, d: -d } : { n, d };
}

/** 1, what a rate times its inverse should be. */
export const ONE: Ratio = ratio(1n, 1n);

/** One unit of the last decimal a rate carries (10^-18): what rounding a rate may cost it. */
export const RATE_UNIT: Ratio = ratio(1n, pow10(RATE_DECIMALS));

/** a × b. */
export function mul(a: Ratio, b: Ratio): Ratio {
  return ratio(a.n * b.n, a.d * b.d);
}

/** a / b (b not zero). */
export function div(a: Ratio, b: Ratio): Ratio {
  return ratio(a.n * b.d, a.d * b.n);
}

/** a + b. */
export function add(a: Ratio, b: Ratio): Ratio {
  return ratio(a.n * b.d + b.n * a.d, a.d * b.d);
}

/** a − b. */
export function sub(a: Ratio, b: Ratio): Ratio {
  return ratio(a.n * b.d - b.n * a.d, a.d * b.d);
}

/** |a|. */
export function abs(a: Ratio): Ratio {
  return a.n < 0n ? ratio(-a.n, a.d) : a;
}

/** a <= b. */
export function atMost(a: Ratio, b: Ratio): boolean {
  return a.n * b.d <= b.n * a.d;
}

/** How far `actual` is from `expected`, relative to `expected` (which must not be zero). */
export function relativeGap(actual: Ratio, expected: Ratio): Ratio {
  return abs(div(sub(actual, expected), expected));
}

/**
 * What 18 decimals force on a rate: each rate in `rates` may be off by a unit or two of its 18th
 * decimal, which relative to the rate is 2 * 10^-18 / rate. Negligible for BTC/USD, but a rate of
 * 10^-10 carries only 8 significant digits and no adapter can do better.
 */
export function roundingSlack(rates: readonly Ratio[]): Ratio {
  return rates.reduce((sum, rate) => add(sum, mul(ratio(2n, 1n), div(RATE_UNIT, rate))), ratio(0n, 1n));
}

/** A short decimal for messages: "0.0000000012" rather than a fraction of 40-digit numbers. */
export function showRatio(value: Ratio, significant = 3): string {
  const scale = 40;
  const units = (abs(value).n * pow10(scale)) / value.d;
  const text = units.toString().padStart(scale + 1, "0");
  const whole = text.slice(0, text.length - scale);
  const fraction = text.slice(text.length - scale);
  const firstDigit = fraction.search(/[1-9]/);
  const kept = whole !== "0" ? fraction.slice(0, significant) : firstDigit < 0 ? "" : fraction.slice(0, firstDigit + significant);
  const trimmed = kept.replace(/0+$/, "");
  return `${value.n < 0n ? "-" : ""}${whole}${trimmed ? `.${trimmed}` : ""}`;
}
