/**
 * Exact money. Every amount inside the library is a bigint count of an asset's smallest
 * unit; decimal strings (or, on the merchant endpoints, JSON numbers) exist only at the edges.
 * Nothing here ever multiplies or divides a `number` that carries money.
 */

/** Decimals used for exchange rates: a rate is a bigint scaled by 10^RATE_DECIMALS. */
export const RATE_DECIMALS = 18;

const DECIMAL_PATTERN = /^(-)?(\d+)(?:\.(\d+))?$/;

/** Thrown when a decimal string or number cannot be represented exactly at the wanted scale. */
export class AmountFormatError extends Error {
  override name = "AmountFormatError";
}

// 10^n cached: scales are few and used on every request.
const POWERS: bigint[] = [];
/** 10^n as a bigint, for n a whole number >= 0. */
export function pow10(n: number): bigint {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`pow10 needs a whole number >= 0, got ${n}`);
  return (POWERS[n] ??= 10n ** BigInt(n));
}

/**
 * Parses a plain decimal string ("12", "0.05", "-3.1") into smallest units at `decimals`.
 * Throws `AmountFormatError` when the string is not a decimal or has more fraction digits than
 * `decimals`, unless `rounding` says how to drop them.
 */
export function parseDecimal(text: string, decimals: number, rounding: "exact" | "down" | "up" = "exact"): bigint {
  const match = DECIMAL_PATTERN.exec(text.trim());
  if (!match) throw new AmountFormatError(`"${text}" is not a decimal number`);
  const [, sign, whole, fraction = ""] = match;
  let kept = fraction.slice(0, decimals);
  const dropped = fraction.slice(decimals);
  kept = kept.padEnd(decimals, "0");
  let units = BigInt(whole!) * pow10(decimals) + (decimals > 0 ? BigInt(kept) : 0n);
  if (/[1-9]/.test(dropped)) {
    if (rounding === "exact") {
      throw new AmountFormatError(`"${text}" has more than ${decimals} decimal places`);
    }
    // Rounding is applied to the magnitude; callers only round non-negative amounts.
    if (rounding === "up") units += 1n;
  }
  return sign ? -units : units;
}

/**
 * Converts a JSON number into smallest units without float arithmetic: the number's shortest
 * round-trip decimal form (what the sender most likely wrote) is parsed as text.
 */
export function parseNumber(value: number, decimals: number): bigint {
  if (!Number.isFinite(value)) throw new AmountFormatError(`${value} is not a finite number`);
  return parseDecimal(numberToDecimal(value), decimals);
}

/** The shortest decimal form of a finite number, never in exponent notation ("1e-7" -> "0.0000001"). */
export function numberToDecimal(value: number): string {
  return expandExponent(String(value));
}

/** Rewrites "1e-7" / "1.5e+21" as plain decimals so that they can be parsed exactly. */
function expandExponent(text: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/i.exec(text);
  if (!match) return text;
  const [, sign, whole, fraction = "", exponentText] = match;
  const exponent = Number(exponentText);
  const digits = whole! + fraction;
  const point = whole!.length + exponent;
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Formats smallest units as a decimal string with no trailing fraction zeros ("1.5", "20"). */
export function formatDecimal(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const magnitude = negative ? -units : units;
  const scale = pow10(decimals);
  const whole = magnitude / scale;
  const fraction = (magnitude % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/**
 * Smallest units as a JSON number, for the merchant endpoints whose spec types amounts as
 * numbers. Exact for the values those endpoints quote (at most 8 decimals and well inside
 * 2^53 significant digits): the double nearest to the decimal prints back as the same decimal.
 */
export function toNumber(units: bigint, decimals: number): number {
  return Number(formatDecimal(units, decimals));
}

/** `a * b / c` rounded down (towards zero for non-negative inputs). */
export function mulDivDown(a: bigint, b: bigint, c: bigint): bigint {
  if (c === 0n) throw new RangeError("division by zero");
  return (a * b) / c;
}

/** `a * b / c` rounded up; inputs are non-negative. */
export function mulDivUp(a: bigint, b: bigint, c: bigint): bigint {
  if (c === 0n) throw new RangeError("division by zero");
  const product = a * b;
  return product % c === 0n ? product / c : product / c + 1n;
}

/** Rounds `units` up to a multiple of `step` (non-negative inputs). */
export function roundUpToStep(units: bigint, step: bigint): bigint {
  const rest = units % step;
  return rest === 0n ? units : units + step - rest;
}

/** Rounds `units` down to a multiple of `step` (non-negative inputs). */
export function roundDownToStep(units: bigint, step: bigint): bigint {
  return units - (units % step);
}

/** Re-expresses an amount from one scale of decimals to another, rounding down when shrinking. */
export function rescaleDown(units: bigint, from: number, to: number): bigint {
  return to >= from ? units * pow10(to - from) : units / pow10(from - to);
}

/** Re-expresses an amount from one scale of decimals to another, rounding up when shrinking. */
export function rescaleUp(units: bigint, from: number, to: number): bigint {
  return to >= from ? units * pow10(to - from) : mulDivUp(units, 1n, pow10(from - to));
}
