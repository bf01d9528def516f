import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AmountFormatError,
  formatDecimal,
  mulDivDown,
  mulDivUp,
  parseDecimal,
  parseNumber,
  pow10,
  rescaleDown,
  rescaleUp,
  roundDownToStep,
  roundUpToStep,
  toNumber,
} from "../src/money";

const decimalsArb = fc.integer({ min: 0, max: 30 });
const nonNegative = fc.bigInt({ min: 0n, max: 10n ** 40n });
const positive = fc.bigInt({ min: 1n, max: 10n ** 30n });
const digits = (min: number, max: number) => fc.array(fc.constantFrom(..."0123456789"), { minLength: min, maxLength: max }).map((chars) => chars.join(""));

describe("pow10", () => {
  it("returns 10^n as a bigint", () => {
    expect(pow10(0)).toBe(1n);
    expect(pow10(18)).toBe(10n ** 18n);
  });

  it("rejects negative or fractional exponents", () => {
    expect(() => pow10(-1)).toThrow(RangeError);
    expect(() => pow10(1.5)).toThrow(RangeError);
  });
});

describe("parseDecimal", () => {
  it("parses whole numbers, fractions and negatives into smallest units", () => {
    expect(parseDecimal("12", 2)).toBe(1200n);
    expect(parseDecimal("0.05", 2)).toBe(5n);
    expect(parseDecimal("-3.1", 8)).toBe(-310000000n);
    expect(parseDecimal("7", 0)).toBe(7n);
  });

  it("accepts trailing zeros beyond the scale because they change nothing", () => {
    expect(parseDecimal("1.500", 1)).toBe(15n);
    expect(parseDecimal("2.000", 0)).toBe(2n);
  });

  it("rejects text that is not a plain decimal", () => {
    for (const text of ["", "abc", "1e5", "1.", ".5", "+1", "1,5", "0x10", "1.2.3", "--1"]) {
      expect(() => parseDecimal(text, 8), text).toThrow(AmountFormatError);
    }
  });

  it("rejects more decimals than allowed in exact mode", () => {
    expect(() => parseDecimal("0.123", 2)).toThrow(/more than 2 decimal places/);
    expect(() => parseDecimal("1.5", 0)).toThrow(AmountFormatError);
  });

  it("rounds extra decimals down or up when asked", () => {
    expect(parseDecimal("0.129", 2, "down")).toBe(12n);
    expect(parseDecimal("0.121", 2, "up")).toBe(13n);
    expect(parseDecimal("1.5", 0, "up")).toBe(2n);
    expect(parseDecimal("0.120", 2, "up")).toBe(12n);
  });

  it("rounds the magnitude of a negative amount", () => {
    expect(parseDecimal("-1.25", 1, "up")).toBe(-13n);
    expect(parseDecimal("-1.25", 1, "down")).toBe(-12n);
  });

  it("round-trips with formatDecimal for any amount and scale from 0 to 30", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 45n), max: 10n ** 45n }), decimalsArb, (units, decimals) => {
        expect(parseDecimal(formatDecimal(units, decimals), decimals)).toBe(units);
      }),
    );
  });

  it("rejects any decimal with more significant places than the scale in exact mode, and rounds it in up/down mode", () => {
    fc.assert(
      fc.property(digits(1, 20), fc.integer({ min: 0, max: 20 }), digits(0, 10), fc.integer({ min: 1, max: 9 }), (whole, decimals, middle, last) => {
        // Build a fraction longer than `decimals` whose last digit is non-zero.
        const fraction = middle.padEnd(decimals, "0") + String(last);
        const text = `${whole}.${fraction}`;
        const exact = parseDecimal(text, fraction.length);
        const shift = pow10(fraction.length - decimals);
        expect(() => parseDecimal(text, decimals)).toThrow(AmountFormatError);
        expect(parseDecimal(text, decimals, "down")).toBe(exact / shift);
        expect(parseDecimal(text, decimals, "up")).toBe(exact / shift + 1n);
      }),
    );
  });
});

describe("formatDecimal", () => {
  it("writes no trailing fraction zeros", () => {
    expect(formatDecimal(150n, 2)).toBe("1.5");
    expect(formatDecimal(2000n, 2)).toBe("20");
    expect(formatDecimal(5n, 8)).toBe("0.00000005");
    expect(formatDecimal(0n, 6)).toBe("0");
    expect(formatDecimal(42n, 0)).toBe("42");
  });

  it("keeps the sign of negative amounts, including those below one unit", () => {
    expect(formatDecimal(-5n, 2)).toBe("-0.05");
    expect(formatDecimal(-1234n, 2)).toBe("-12.34");
  });
});

describe("parseNumber", () => {
  it("parses a JSON number through its shortest decimal form", () => {
    expect(parseNumber(0.1, 8)).toBe(10000000n);
    expect(parseNumber(0.3, 2)).toBe(30n);
    expect(parseNumber(1.005, 3)).toBe(1005n);
    expect(parseNumber(-2.5, 1)).toBe(-25n);
  });

  it("expands exponent notation instead of rejecting it", () => {
    expect(String(1e-7)).toBe("1e-7");
    expect(parseNumber(1e-7, 8)).toBe(10n);
    expect(parseNumber(1.5e-7, 8)).toBe(15n);
    expect(parseNumber(-1e-7, 8)).toBe(-10n);
    expect(parseNumber(1.5e21, 0)).toBe(1500000000000000000000n);
    expect(parseNumber(1e21, 2)).toBe(10n ** 23n);
  });

  it("rejects a number with more decimals than the scale", () => {
    expect(() => parseNumber(0.123, 2)).toThrow(AmountFormatError);
    expect(() => parseNumber(1e-9, 8)).toThrow(AmountFormatError);
  });

  it("rejects NaN and infinities", () => {
    expect(() => parseNumber(Number.NaN, 2)).toThrow(AmountFormatError);
    expect(() => parseNumber(Number.POSITIVE_INFINITY, 2)).toThrow(AmountFormatError);
    expect(() => parseNumber(Number.NEGATIVE_INFINITY, 2)).toThrow(AmountFormatError);
  });

  it("equals parseDecimal of the written decimal for any number with at most 8 decimals", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n) + 1n, max: 10n ** 15n - 1n }), fc.integer({ min: 0, max: 8 }), (units, places) => {
        // At most 15 significant digits: the double nearest to the decimal prints back as it.
        const written = formatDecimal(units, places);
        const value = Number(written);
        expect(parseNumber(value, 8)).toBe(parseDecimal(written, 8));
        const printed = String(value);
        if (!/e/i.test(printed)) expect(parseNumber(value, 8)).toBe(parseDecimal(printed, 8));
      }),
    );
  });

  it("round-trips through toNumber for amounts quoted with at most 8 decimals", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }), fc.integer({ min: 0, max: 8 }), (units, decimals) => {
        expect(parseNumber(toNumber(units, decimals), decimals)).toBe(units);
      }),
    );
  });
});

describe("mulDivDown and mulDivUp", () => {
  it("divide exactly when the product is a multiple", () => {
    expect(mulDivDown(6n, 4n, 3n)).toBe(8n);
    expect(mulDivUp(6n, 4n, 3n)).toBe(8n);
  });

  it("round a remainder down and up", () => {
    expect(mulDivDown(10n, 1n, 3n)).toBe(3n);
    expect(mulDivUp(10n, 1n, 3n)).toBe(4n);
  });

  it("refuse to divide by zero", () => {
    expect(() => mulDivDown(1n, 1n, 0n)).toThrow(RangeError);
    expect(() => mulDivUp(1n, 1n, 0n)).toThrow(RangeError);
  });

  it("bracket the exact quotient and differ by at most 1", () => {
    fc.assert(
      fc.property(nonNegative, nonNegative, positive, (a, b, c) => {
        const down = mulDivDown(a, b, c);
        const up = mulDivUp(a, b, c);
        expect(up >= down).toBe(true);
        expect(up - down <= 1n).toBe(true);
        expect(down * c <= a * b).toBe(true);
        expect(up * c >= a * b).toBe(true);
        expect(up === down).toBe((a * b) % c === 0n);
      }),
    );
  });
});

describe("roundUpToStep and roundDownToStep", () => {
  it("leave multiples of the step unchanged", () => {
    expect(roundUpToStep(300n, 100n)).toBe(300n);
    expect(roundDownToStep(300n, 100n)).toBe(300n);
  });

  it("move other amounts to the next multiple up or down", () => {
    expect(roundUpToStep(301n, 100n)).toBe(400n);
    expect(roundDownToStep(399n, 100n)).toBe(300n);
  });

  it("give a multiple of the step within one step of the input", () => {
    fc.assert(
      fc.property(nonNegative, positive, (units, step) => {
        const up = roundUpToStep(units, step);
        expect(up % step).toBe(0n);
        expect(up >= units).toBe(true);
        expect(up < units + step).toBe(true);
        const down = roundDownToStep(units, step);
        expect(down % step).toBe(0n);
        expect(down <= units).toBe(true);
        expect(down > units - step).toBe(true);
      }),
    );
  });
});

describe("rescaleDown and rescaleUp", () => {
  it("multiply exactly when the scale grows", () => {
    expect(rescaleDown(15n, 1, 8)).toBe(150000000n);
    expect(rescaleUp(15n, 1, 8)).toBe(150000000n);
  });

  it("round down or up when the scale shrinks", () => {
    expect(rescaleDown(123456789n, 8, 6)).toBe(1234567n);
    expect(rescaleUp(123456789n, 8, 6)).toBe(1234568n);
    expect(rescaleUp(123456700n, 8, 6)).toBe(1234567n);
  });

  it("bracket the exact value within one unit of the new scale", () => {
    fc.assert(
      fc.property(nonNegative, decimalsArb, decimalsArb, (units, from, to) => {
        const down = rescaleDown(units, from, to);
        const up = rescaleUp(units, from, to);
        // Compare at a common scale: value = units / 10^from, rescaled = x / 10^to.
        const exact = units * pow10(to);
        expect(down * pow10(from) <= exact).toBe(true);
        expect(up * pow10(from) >= exact).toBe(true);
        expect(up - down <= 1n).toBe(true);
        if (to >= from) expect(up).toBe(down);
      }),
    );
  });
});
