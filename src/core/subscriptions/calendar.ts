import type { BillingInterval } from "./records";

/**
 * Billing periods in UTC calendar terms, as pure functions of the anchor (the start of period 0)
 * and the interval. Every period start is computed from the anchor, never from the previous
 * period, so a monthly plan anchored on the 31st renews on the last day of a shorter month and
 * back on the 31st after it (no drift), and a yearly plan from Feb 29 renews on Feb 28 in common
 * years. Days and weeks are fixed lengths (UTC has no daylight saving time). The time of day of
 * the anchor is kept.
 */

const DAY_MS = 86_400_000;

/** Days in a month of the proleptic Gregorian calendar (`month` 0-11). */
function daysInMonth(year: number, month: number): number {
  if (month === 1) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 3 || month === 5 || month === 8 || month === 10 ? 30 : 31;
}

/** `months` calendar months after `at` (UTC), the day of month clamped to the target month's length. */
export function addMonths(at: number, months: number): number {
  const date = new Date(at);
  const total = date.getUTCFullYear() * 12 + date.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const day = Math.min(date.getUTCDate(), daysInMonth(year, month));
  // A UTC day is exactly DAY_MS long (no leap seconds in epoch time), so the time of day is a remainder.
  const timeOfDay = ((at % DAY_MS) + DAY_MS) % DAY_MS;
  const start = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  start.setUTCFullYear(year, month, day);
  return start.getTime() + timeOfDay;
}

/** The length of a fixed interval in ms, or null for months and years. */
function fixedLength(interval: BillingInterval): number | null {
  if (interval.unit === "day") return interval.count * DAY_MS;
  if (interval.unit === "week") return interval.count * 7 * DAY_MS;
  return null;
}

/** Calendar months in one interval of a month or year plan. */
function monthsOf(interval: BillingInterval): number {
  return interval.unit === "year" ? interval.count * 12 : interval.count;
}

/** The start of period `index` (0 at the anchor; negative indexes count back). */
export function periodStart(anchor: number, interval: BillingInterval, index: number): number {
  const length = fixedLength(interval);
  return length === null ? addMonths(anchor, index * monthsOf(interval)) : anchor + index * length;
}

/** The index of the period that contains `at`: -1 (or lower) before the anchor. */
export function periodIndexAt(anchor: number, interval: BillingInterval, at: number): number {
  const length = fixedLength(interval);
  if (length !== null) return Math.floor((at - anchor) / length);
  const from = new Date(anchor);
  const to = new Date(at);
  const months = (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + (to.getUTCMonth() - from.getUTCMonth());
  let index = Math.floor(months / monthsOf(interval));
  // The estimate is off by at most one either way (the day and time of month decide).
  while (periodStart(anchor, interval, index) > at) index--;
  while (periodStart(anchor, interval, index + 1) <= at) index++;
  return index;
}

/** The shortest a period of this interval can be, in whole days (28 for a month, 365 for a year). */
export function shortestPeriodDays(interval: BillingInterval): number {
  if (interval.unit === "day") return interval.count;
  if (interval.unit === "week") return interval.count * 7;
  if (interval.unit === "month") return interval.count * 28;
  return interval.count * 365;
}

/** Whole days as milliseconds. */
export const days = (count: number): number => count * DAY_MS;
