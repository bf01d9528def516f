import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inversePrice, plainDecimal, positivePrice } from "../../../../src/adapters/pricing/sources/decimal";
import { PriceSourceError } from "../../../../src/adapters/pricing/sources/types";
import { parseDecimal, pow10, RATE_DECIMALS } from "../../../../src/money";

describe("plainDecimal", () => {
  it("writes exponent notation as a plain decimal, by moving the point in the text", () => {
    expect(plainDecimal("1.2e-7")).toBe("0.00000012");
    expect(plainDecimal("1.2E-7")).toBe("0.00000012");
    expect(plainDecimal("5e3")).toBe("5000");
    expect(plainDecimal("6.718733e+4")).toBe("67187.33");
    expect(plainDecimal("12345678901234567890e-10")).toBe("1234567890.123456789");
    expect(plainDecimal("0.000e5")).toBe("0");
  });

  it("keeps every digit written and drops only leading and trailing zeros", () => {
    expect(plainDecimal("67187.33")).toBe("67187.33");
    expect(plainDecimal("67187.30000")).toBe("67187.3");
    expect(plainDecimal("0067187.33")).toBe("67187.33");
    expect(plainDecimal("12345678901234567890.12345678901234567890")).toBe("12345678901234567890.1234567890123456789");
    expect(plainDecimal("0.0")).toBe("0");
  });

  it("returns null for anything that is not an unsigned decimal", () => {
    for (const text of ["", "-1", "+1", "1.", ".5", "1e", "NaN", "Infinity", "0x10", "1,5", " 1", "1e999999999"]) {
      expect(plainDecimal(text), text).toBeNull();
    }
  });

  it("gives the same value as the text it was given", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: -40, max: 40 }), (digits, exponent) => {
        const plain = plainDecimal(`${digits}e${exponent}`)!;
        // digits * 10^exponent, both sides scaled by 10^80 to compare as integers
        const expected = digits * pow10(80 + exponent);
        expect(parseDecimal(plain, 80)).toBe(expected);
        expect(plain).not.toMatch(/e|^0\d|\.\d*0$/);
      }),
    );
  });
});

describe("positivePrice", () => {
  it("names what is wrong with a price", () => {
    expect(positivePrice("x", "BTC price", "1.5e-3")).toBe("0.0015");
    expect(() => positivePrice("x", "BTC price", "0.000")).toThrow(new PriceSourceError("x", 'BTC price "0.000" is zero: a price must be a positive decimal'));
    expect(() => positivePrice("x", "BTC price", "-2")).toThrow(/"-2" is negative/);
    expect(() => positivePrice("x", "BTC price", "1e500")).toThrow(/"1e500" is out of range/);
    expect(() => positivePrice("x", "BTC price", "soon")).toThrow(/"soon" is not a decimal number/);
  });
});

describe("inversePrice", () => {
  it("rounds 1 / price down at 18 decimals", () => {
    expect(inversePrice("0.92")).toBe("1.086956521739130434");
    expect(inversePrice("3")).toBe("0.333333333333333333");
    expect(inversePrice("0.5")).toBe("2");
    expect(inversePrice("1000000000000000000")).toBe("0.000000000000000001");
    expect(inversePrice("1000000000000000001")).toBeNull();
  });

  it("is within one unit of the 18th decimal below the exact inverse", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 24n }), fc.integer({ min: 0, max: 24 }), (units, decimals) => {
        const text = plainDecimal(`${units}e-${decimals}`)!;
        const inverse = inversePrice(text);
        // exact inverse = 10^decimals / units; q = floor(that * 10^18)
        const q = inverse === null ? 0n : parseDecimal(inverse, RATE_DECIMALS);
        const scaled = pow10(RATE_DECIMALS + decimals);
        expect(q * units <= scaled).toBe(true);
        expect((q + 1n) * units > scaled).toBe(true);
      }),
    );
  });
});
