import { describe, expect, it } from "vitest";
import { nextRunAt, nextStep } from "../../src/core/subscriptions/machine";
import { subscription } from "../../src/testing/storage/subscriptions";

/**
 * The subscription's state machine as pure functions: which step comes first when several are
 * due at once (a late round, a clock that jumped), and when the background work looks again.
 */

const DAY = 86_400_000;
const T0 = Date.parse("2026-03-01T00:00:00.000Z");
/** Weekly, anchored at T0, in period 0 with its payment open. */
const weekly = (over: Parameters<typeof subscription>[0] = {}) =>
  subscription({ interval: { unit: "week", count: 1 }, anchorAt: T0, startAt: T0, nextRunAt: T0, ...over });

describe("nextStep", () => {
  it("takes a payment first, even when the period it paid for has ended", () => {
    expect(nextStep(weekly({ status: "past_due" }), T0 + 9 * DAY, "PAID")).toEqual({ kind: "paid" });
  });

  it("makes the next payment renewBeforeDays before its period, only once the open one is paid", () => {
    const paid = weekly({ openInvoiceId: null, paidThrough: 0 });
    expect(nextStep(paid, T0 + 4 * DAY - 1, null)).toBeNull();
    expect(nextStep(paid, T0 + 4 * DAY, null)).toEqual({ kind: "invoice", index: 1 });
    expect(nextStep(weekly({ gracePeriodDays: 5 }), T0 + 4 * DAY, "PENDING")).toBeNull();
    expect(nextStep({ ...paid, cancelAtPeriodEnd: true }, T0 + 4 * DAY, null)).toBeNull();
  });

  it("enters the next period when the current one is paid, cancels it when unpaid or set to end", () => {
    const paid = weekly({ openInvoiceId: "inv_2", invoicedThrough: 1, paidThrough: 0 });
    expect(nextStep(paid, T0 + 7 * DAY, "PENDING")).toEqual({ kind: "enter", index: 1 });
    expect(nextStep(weekly({ status: "past_due" }), T0 + 7 * DAY, "PENDING")).toEqual({ kind: "cancel", reason: "unpaid" });
    expect(nextStep(weekly({ openInvoiceId: null, paidThrough: 0, cancelAtPeriodEnd: true }), T0 + 7 * DAY, null)).toEqual({
      kind: "cancel",
      reason: "period_end",
    });
  });

  it("is past due once the grace days of an unpaid current period are over, once", () => {
    expect(nextStep(weekly(), T0 + 3 * DAY - 1, "PENDING")).toBeNull();
    expect(nextStep(weekly(), T0 + 3 * DAY, "PENDING")).toEqual({ kind: "past_due" });
    expect(nextStep(weekly({ status: "past_due" }), T0 + 3 * DAY, "PENDING")).toBeNull();
  });

  it("does nothing for a cancelled subscription, nor during a trial before its first payment is due", () => {
    expect(nextStep(weekly({ status: "cancelled" }), T0 + 100 * DAY, "PAID")).toBeNull();
    const trial = weekly({ anchorAt: T0 + 14 * DAY, trialEnd: T0 + 14 * DAY, currentPeriod: -1, invoicedThrough: -1, openInvoiceId: null });
    expect(nextStep(trial, T0 + 11 * DAY - 1, null)).toBeNull();
    expect(nextStep(trial, T0 + 11 * DAY, null)).toEqual({ kind: "invoice", index: 0 });
  });
});

describe("nextRunAt", () => {
  it("is now while a payment is awaited, else the earliest of the next payment, the period's end and the grace's end", () => {
    expect(nextRunAt(weekly(), T0 + DAY)).toBe(T0 + DAY);
    expect(nextRunAt(weekly({ openInvoiceId: null, paidThrough: 0 }), T0 + DAY)).toBe(T0 + 4 * DAY);
    expect(nextRunAt(weekly({ openInvoiceId: null, paidThrough: 0, cancelAtPeriodEnd: true }), T0 + DAY)).toBe(T0 + 7 * DAY);
    expect(nextRunAt(weekly({ status: "cancelled" }), T0)).toBe(Number.MAX_SAFE_INTEGER);
  });
});
