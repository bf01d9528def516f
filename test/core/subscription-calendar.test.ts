import { describe, expect, it } from "vitest";
import type { BillingInterval } from "../../src/core/subscriptions/records";
import { addMonths, periodIndexAt, periodStart, shortestPeriodDays } from "../../src/core/subscriptions/calendar";

/**
 * The billing calendar, exhaustively over four years of anchors (a leap year among them): each
 * period start against an independent reckoning of the calendar (year, month and the clamped day
 * as numbers, checked through the ISO string), and periodIndexAt as its inverse at and around
 * every boundary.
 */

const MONTH: BillingInterval = { unit: "month", count: 1 };
const YEAR: BillingInterval = { unit: "year", count: 1 };
const DAY_MS = 86_400_000;

/** Days in month `month` (1-12) of `year`, by the Gregorian rule, written out. */
function monthLength(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/** The ISO string the i-th monthly period from an anchor of (year, month, day) at hh:mm must start at. */
function expectedMonthly(year: number, month: number, day: number, time: string, months: number): string {
  const total = year * 12 + (month - 1) + months;
  const y = Math.floor(total / 12);
  const m = (total % 12) + 1;
  return `${pad(y, 4)}-${pad(m)}-${pad(Math.min(day, monthLength(y, m)))}T${time}`;
}

describe("monthly periods", () => {
  it("keep the anchor day, clamped to shorter months, for every anchor day of 2024-2027 and 50 periods", () => {
    for (let at = Date.parse("2024-01-01T07:30:00.000Z"); at < Date.parse("2028-01-01T00:00:00.000Z"); at += DAY_MS) {
      const anchor = new Date(at);
      for (let i = 0; i <= 50; i++) {
        const start = periodStart(at, MONTH, i);
        expect(new Date(start).toISOString()).toBe(expectedMonthly(anchor.getUTCFullYear(), anchor.getUTCMonth() + 1, anchor.getUTCDate(), "07:30:00.000Z", i));
        expect(periodIndexAt(at, MONTH, start)).toBe(i);
        expect(periodIndexAt(at, MONTH, start - 1)).toBe(i - 1);
        expect(periodIndexAt(at, MONTH, start + DAY_MS)).toBe(i);
      }
    }
  });

  it("from the 31st: the last day of each shorter month, and the 31st again after it (no drift)", () => {
    const anchor = Date.parse("2026-01-31T10:00:00.000Z");
    const starts = Array.from({ length: 13 }, (_, i) => new Date(periodStart(anchor, MONTH, i)).toISOString().slice(0, 10));
    expect(starts).toEqual([
      "2026-01-31",
      "2026-02-28",
      "2026-03-31",
      "2026-04-30",
      "2026-05-31",
      "2026-06-30",
      "2026-07-31",
      "2026-08-31",
      "2026-09-30",
      "2026-10-31",
      "2026-11-30",
      "2026-12-31",
      "2027-01-31",
    ]);
  });

  it("of several months keep the anchor day too", () => {
    const anchor = Date.parse("2026-08-31T00:00:00.000Z");
    const quarter: BillingInterval = { unit: "month", count: 3 };
    expect([0, 1, 2, 3].map((i) => new Date(periodStart(anchor, quarter, i)).toISOString().slice(0, 10))).toEqual([
      "2026-08-31",
      "2026-11-30",
      "2027-02-28",
      "2027-05-31",
    ]);
    expect(periodIndexAt(anchor, quarter, Date.parse("2027-02-27T23:59:59.999Z"))).toBe(1);
    expect(periodIndexAt(anchor, quarter, Date.parse("2027-02-28T00:00:00.000Z"))).toBe(2);
  });

  it("count back before the anchor: -1 until it starts", () => {
    const anchor = Date.parse("2026-03-31T00:00:00.000Z");
    expect(periodIndexAt(anchor, MONTH, anchor - 1)).toBe(-1);
    expect(new Date(periodStart(anchor, MONTH, -1)).toISOString()).toBe("2026-02-28T00:00:00.000Z");
  });
});

describe("yearly periods", () => {
  it("from Feb 29: Feb 28 in common years, Feb 29 again in leap years", () => {
    const anchor = Date.parse("2024-02-29T12:00:00.000Z");
    expect([0, 1, 2, 3, 4, 5].map((i) => new Date(periodStart(anchor, YEAR, i)).toISOString().slice(0, 10))).toEqual([
      "2024-02-29",
      "2025-02-28",
      "2026-02-28",
      "2027-02-28",
      "2028-02-29",
      "2029-02-28",
    ]);
    expect(periodIndexAt(anchor, YEAR, Date.parse("2025-02-28T11:59:59.999Z"))).toBe(0);
    expect(periodIndexAt(anchor, YEAR, Date.parse("2025-02-28T12:00:00.000Z"))).toBe(1);
  });

  it("match twelve months for every anchor day of 2024-2027", () => {
    for (let at = Date.parse("2024-01-01T00:00:00.000Z"); at < Date.parse("2028-01-01T00:00:00.000Z"); at += DAY_MS) {
      for (let i = 0; i <= 8; i++) expect(periodStart(at, YEAR, i)).toBe(periodStart(at, MONTH, 12 * i));
    }
  });
});

describe("weeks and days", () => {
  it("are plain lengths from the anchor, whatever the month", () => {
    const anchor = Date.parse("2026-02-26T23:00:00.000Z");
    expect(new Date(periodStart(anchor, { unit: "week", count: 1 }, 1)).toISOString()).toBe("2026-03-05T23:00:00.000Z");
    expect(new Date(periodStart(anchor, { unit: "day", count: 10 }, 3)).toISOString()).toBe("2026-03-28T23:00:00.000Z");
    for (let i = -3; i <= 400; i++) {
      const start = periodStart(anchor, { unit: "day", count: 3 }, i);
      expect(start).toBe(anchor + i * 3 * DAY_MS);
      expect(periodIndexAt(anchor, { unit: "day", count: 3 }, start)).toBe(i);
      expect(periodIndexAt(anchor, { unit: "day", count: 3 }, start - 1)).toBe(i - 1);
    }
  });

  it("shortest periods bound the grace and lead days", () => {
    expect(shortestPeriodDays({ unit: "day", count: 5 })).toBe(5);
    expect(shortestPeriodDays({ unit: "week", count: 1 })).toBe(7);
    expect(shortestPeriodDays(MONTH)).toBe(28);
    expect(shortestPeriodDays(YEAR)).toBe(365);
  });
});

describe("addMonths", () => {
  it("keeps the time of day and handles the years around year 100", () => {
    expect(new Date(addMonths(Date.parse("2026-01-31T23:59:59.999Z"), 1)).toISOString()).toBe("2026-02-28T23:59:59.999Z");
    expect(new Date(addMonths(Date.parse("0099-12-31T00:00:00.000Z"), 2)).toISOString()).toBe("0100-02-28T00:00:00.000Z");
    expect(new Date(addMonths(Date.parse("2026-03-31T00:00:00.000Z"), -13)).toISOString()).toBe("2025-02-28T00:00:00.000Z");
  });
});
