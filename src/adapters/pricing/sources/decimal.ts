import { formatDecimal, pow10, RATE_DECIMALS } from "../../../money";
import { PriceSourceError } from "./types";

/**
 * Prices as providers write them, turned into plain decimal strings by string manipulation
 * only: a provider's "1.2e-7" becomes "0.00000012" and a 20-digit number keeps its 20 digits.
 */

// An unsigned JSON number or decimal string, exponent allowed ("67187.33", "1.2e-7", "5E+3").
const NUMBER = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

// A price needs no more than this many digits either side of the point. The bound only keeps a
// hostile "1e999999999" from becoming a billion-character string.
const MAX_EXPONENT = 100;

/**
 * The canonical plain form of an unsigned decimal ("067187.330" -> "67187.33", "1.2e-7" ->
 * "0.00000012", "1.5E3" -> "1500"): no exponent, no leading zeros, no trailing fraction zeros.
 * The value is exactly the one written. Returns null when `text` is not such a number.
 */
export function plainDecimal(text: string): string | null {
  const match = NUMBER.exec(text);
  if (!match) return null;
  const [, whole, fraction = "", exponentText = "0"] = match;
  const exponent = Number(exponentText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > MAX_EXPONENT) return null;
  const digits = whole! + fraction;
  const point = whole!.length + exponent; // where the decimal point falls within `digits`
  let intPart: string;
  let fracPart: string;
  if (point <= 0) {
    intPart = "0";
    fracPart = "0".repeat(-point) + digits;
  } else if (point >= digits.length) {
    intPart = digits + "0".repeat(point - digits.length);
    fracPart = "";
  } else {
    intPart = digits.slice(0, point);
    fracPart = digits.slice(point);
  }
  intPart = intPart.replace(/^0+(?=\d)/, "");
  fracPart = fracPart.replace(/0+$/, "");
  return fracPart ? `${intPart}.${fracPart}` : intPart;
}

/**
 * `text` as a positive plain decimal (see `plainDecimal`), or a `PriceSourceError` saying what
 * is wrong with it: negative, zero, or not a decimal number at all. `what` names the value in
 * the message ("BTC price").
 */
export function positivePrice(source: string, what: string, text: string): string {
  const plain = plainDecimal(text);
  if (plain !== null && /[1-9]/.test(plain)) return plain;
  const shown = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}...` : text);
  let problem = "not a decimal number";
  if (plain !== null) problem = "zero";
  else if (/^-/.test(text) && plainDecimal(text.slice(1)) !== null) problem = "negative";
  else if (NUMBER.test(text)) problem = "out of range";
  throw new PriceSourceError(source, `${what} ${shown} is ${problem}: a price must be a positive decimal`);
}

/**
 * 1 / `price` for a positive plain decimal, rounded DOWN at RATE_DECIMALS (18) decimal places,
 * without trailing zeros: "0.92" -> "1.086956521739130434". Used where a provider quotes USD in
 * another currency (EUR per USD) and we need that currency in USD. Exact bigint arithmetic:
 * price = n / 10^d, so 1 / price = 10^d / n, scaled by 10^18 and floored.
 *
 * Returns null when the inverse is below 10^-18 (it would round to zero).
 */
export function inversePrice(price: string): string | null {
  const [whole, fraction = ""] = price.split(".");
  const numerator = BigInt(whole! + fraction);
  if (numerator <= 0n) throw new RangeError(`inversePrice needs a positive price, got "${price}"`);
  const scaled = pow10(RATE_DECIMALS + fraction.length) / numerator;
  return scaled === 0n ? null : formatDecimal(scaled, RATE_DECIMALS);
}

/** The inverse of a positive price, or a `PriceSourceError` when it would round to zero. */
export function invertedPrice(source: string, what: string, price: string): string {
  const inverse = inversePrice(price);
  if (inverse === null) throw new PriceSourceError(source, `${what} "${price}" is too large to invert at ${RATE_DECIMALS} decimals`);
  return inverse;
}
