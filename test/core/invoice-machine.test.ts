import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isTerminal, nextStep, settle, type MachineDeposit, type MachineState, type Step } from "../../src/core/invoices/machine";
import { settleThreshold } from "../../src/core/invoices/fees";
import type { DepositStatus } from "../../src/core/deposits/records";
import type { InvoiceStatus, PaymentEventType } from "../../src/core/invoices/records";

/** The invoice lifecycle table in docs/money.md, one test per row and branch. */

const PAY = 100_000_000n; // 100 USDT
const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const EXPIRES = T0 + 30 * 60_000;
const BEFORE = EXPIRES - 60_000;
const AFTER = EXPIRES + 60_000;

function state(status: InvoiceStatus, change: Partial<MachineState> = {}): MachineState {
  return { status, payAmount: PAY, underPaidCoverTenths: 0, expiresAt: EXPIRES, late: false, failureReason: null, ...change };
}

function dep(status: DepositStatus, amount = PAY, countsTowardInvoice = true): MachineDeposit {
  return { status, amount, countsTowardInvoice };
}

const pending = (amount = PAY) => dep("PENDING", amount);
const confirmed = (amount = PAY) => dep("CONFIRMED", amount);
const dropped = (amount = PAY) => dep("DROPPED", amount);

/** The statuses and events `settle` walks through, in a compact form. */
function walk(steps: Step[]): Array<[InvoiceStatus, PaymentEventType[]]> {
  return steps.map((step) => [step.state.status, step.events]);
}

describe("nextStep", () => {
  describe("PENDING", () => {
    it("rests with no deposit inside the window", () => {
      expect(nextStep(state("PENDING"), [], BEFORE)).toBeNull();
    });

    it("moves to CONFIRMING with payment.confirming when a deposit is seen", () => {
      expect(nextStep(state("PENDING"), [pending()], BEFORE)).toEqual({ state: state("CONFIRMING"), events: ["payment.confirming"] });
    });

    it("moves to CONFIRMING first even when the deposit arrives confirmed", () => {
      expect(nextStep(state("PENDING"), [confirmed()], BEFORE)?.state.status).toBe("CONFIRMING");
    });

    it("moves to CONFIRMING for a deposit seen after expiresAt (it is waited for, not expired)", () => {
      expect(nextStep(state("PENDING"), [pending()], AFTER)?.state.status).toBe("CONFIRMING");
    });

    it("expires with payment.expired once expiresAt is reached with nothing received", () => {
      expect(nextStep(state("PENDING"), [], EXPIRES - 1)).toBeNull();
      expect(nextStep(state("PENDING"), [], EXPIRES)).toEqual({ state: state("EXPIRED"), events: ["payment.expired"] });
    });

    it("ignores dropped deposits and deposits that do not count toward it", () => {
      expect(nextStep(state("PENDING"), [dropped(), dep("PENDING", PAY, false)], BEFORE)).toBeNull();
      expect(nextStep(state("PENDING"), [dropped()], AFTER)?.state.status).toBe("EXPIRED");
    });
  });

  describe("CONFIRMING", () => {
    it("rests while any deposit is unconfirmed, inside the window or past it", () => {
      expect(nextStep(state("CONFIRMING"), [confirmed(), pending()], BEFORE)).toBeNull();
      expect(nextStep(state("CONFIRMING"), [pending()], AFTER)).toBeNull();
    });

    it("moves to PAID with payment.confirmed then payment.completed once every deposit is confirmed and covers payAmount", () => {
      expect(nextStep(state("CONFIRMING"), [confirmed(60_000_000n), confirmed(40_000_000n)], BEFORE)).toEqual({
        state: state("PAID"),
        events: ["payment.confirmed", "payment.completed"],
      });
    });

    it("moves to PAID when overpaid", () => {
      expect(nextStep(state("CONFIRMING"), [confirmed(PAY * 2n)], BEFORE)?.state.status).toBe("PAID");
    });

    it("moves to PAID after expiresAt too, for a deposit seen in time", () => {
      expect(nextStep(state("CONFIRMING"), [confirmed()], AFTER)?.state.status).toBe("PAID");
    });

    it("accepts exactly payAmount less underPaidCover, and not one unit less", () => {
      const covered = state("CONFIRMING", { underPaidCoverTenths: 10 });
      expect(settleThreshold(PAY, 10)).toBe(99_000_000n);
      expect(nextStep(covered, [confirmed(99_000_000n)], BEFORE)?.state.status).toBe("PAID");
      expect(nextStep(covered, [confirmed(98_999_999n)], BEFORE)?.state.status).toBe("UNDER_PAID");
    });

    it("rounds the underpayment threshold up, so cover never accepts more than it says", () => {
      // 0.1% of 999 units is 0.999 of a unit: the threshold 998.001 rounds up to 999, so nothing short passes.
      const small = state("CONFIRMING", { payAmount: 999n, underPaidCoverTenths: 1 });
      expect(settleThreshold(999n, 1)).toBe(999n);
      expect(nextStep(small, [confirmed(998n)], BEFORE)?.state.status).toBe("UNDER_PAID");
    });

    it("moves to UNDER_PAID with payment.confirmed when confirmed short inside the window", () => {
      expect(nextStep(state("CONFIRMING"), [confirmed(50_000_000n)], BEFORE)).toEqual({
        state: state("UNDER_PAID"),
        events: ["payment.confirmed"],
      });
    });

    it("moves to FAILED with payment.confirmed and payment.failed when confirmed short after the window", () => {
      expect(nextStep(state("CONFIRMING"), [confirmed(50_000_000n)], AFTER)).toEqual({
        state: state("FAILED", { failureReason: "underpaid" }),
        events: ["payment.confirmed", "payment.failed"],
      });
    });

    it("fails a late-reopened invoice confirmed short even before its old expiresAt (its window is closed)", () => {
      const late = state("CONFIRMING", { late: true });
      expect(nextStep(late, [confirmed(50_000_000n)], BEFORE)?.state).toEqual({ ...late, status: "FAILED", failureReason: "underpaid" });
    });

    it("goes back to PENDING silently when its only deposit is dropped inside the window", () => {
      expect(nextStep(state("CONFIRMING"), [dropped()], BEFORE)).toEqual({ state: state("PENDING"), events: [] });
    });

    it("expires with payment.expired when its only deposit is dropped after the window", () => {
      expect(nextStep(state("CONFIRMING"), [dropped()], AFTER)).toEqual({ state: state("EXPIRED"), events: ["payment.expired"] });
    });

    it("expires silently when the only deposit of a late-reopened invoice is dropped (it expired once already)", () => {
      const late = state("CONFIRMING", { late: true });
      expect(nextStep(late, [dropped()], AFTER)).toEqual({ state: { ...late, status: "EXPIRED" }, events: [] });
    });

    it("never counts a dropped deposit toward the total", () => {
      expect(nextStep(state("CONFIRMING"), [confirmed(50_000_000n), dropped(50_000_000n)], BEFORE)?.state.status).toBe("UNDER_PAID");
    });

    it("never counts a deposit that arrived after the late window", () => {
      expect(nextStep(state("CONFIRMING"), [confirmed(50_000_000n), dep("CONFIRMED", PAY, false)], BEFORE)?.state.status).toBe("UNDER_PAID");
    });
  });

  describe("UNDER_PAID", () => {
    it("rests inside the window", () => {
      expect(nextStep(state("UNDER_PAID"), [confirmed(50_000_000n)], BEFORE)).toBeNull();
    });

    it("moves to CONFIRMING with payment.confirming when another deposit is seen", () => {
      expect(nextStep(state("UNDER_PAID"), [confirmed(50_000_000n), pending(50_000_000n)], BEFORE)).toEqual({
        state: state("CONFIRMING"),
        events: ["payment.confirming"],
      });
    });

    it("moves to FAILED with payment.failed and reason underpaid at expiresAt", () => {
      expect(nextStep(state("UNDER_PAID"), [confirmed(50_000_000n)], EXPIRES)).toEqual({
        state: state("FAILED", { failureReason: "underpaid" }),
        events: ["payment.failed"],
      });
    });

    it("goes through CONFIRMING when a covering deposit arrives confirmed, then to PAID", () => {
      const deposits = [confirmed(50_000_000n), confirmed(50_000_000n)];
      expect(nextStep(state("UNDER_PAID"), deposits, BEFORE)).toEqual({
        state: state("CONFIRMING"),
        events: ["payment.confirming"],
      });
      expect(settle(state("UNDER_PAID"), deposits, BEFORE).flatMap((step) => step.events)).toEqual([
        "payment.confirming",
        "payment.confirmed",
        "payment.completed",
      ]);
    });
  });

  describe("EXPIRED", () => {
    it("rests without a counting deposit", () => {
      expect(nextStep(state("EXPIRED"), [], AFTER)).toBeNull();
      expect(nextStep(state("EXPIRED"), [dep("CONFIRMED", PAY, false), dropped()], AFTER)).toBeNull();
    });

    it("reopens as a late CONFIRMING with payment.confirming for a deposit inside the late window", () => {
      expect(nextStep(state("EXPIRED"), [pending()], AFTER)).toEqual({
        state: state("CONFIRMING", { late: true }),
        events: ["payment.confirming"],
      });
    });
  });

  describe("PAID and FAILED", () => {
    it.each(["PAID", "FAILED"] as const)("%s never moves, whatever the deposits and the clock", (status) => {
      for (const deposits of [[], [pending()], [dropped()], [confirmed(1n)], [confirmed(PAY * 3n)]]) {
        expect(nextStep(state(status), deposits, BEFORE)).toBeNull();
        expect(nextStep(state(status), deposits, AFTER)).toBeNull();
      }
    });

    it("reports only PAID and FAILED as terminal", () => {
      expect(["PENDING", "CONFIRMING", "UNDER_PAID", "PAID", "FAILED", "EXPIRED"].filter((status) => isTerminal(status as InvoiceStatus))).toEqual([
        "PAID",
        "FAILED",
      ]);
    });
  });

  it("never settles an invoice without a payAmount (hosted, no coin chosen yet)", () => {
    expect(nextStep(state("CONFIRMING", { payAmount: null }), [confirmed()], BEFORE)?.state.status).toBe("UNDER_PAID");
  });
});

describe("settle", () => {
  it("returns no steps for an invoice at rest", () => {
    expect(settle(state("PENDING"), [], BEFORE)).toEqual([]);
  });

  it("walks PENDING -> CONFIRMING -> PAID with every event for a deposit that arrives confirmed", () => {
    expect(walk(settle(state("PENDING"), [confirmed()], BEFORE))).toEqual([
      ["CONFIRMING", ["payment.confirming"]],
      ["PAID", ["payment.confirmed", "payment.completed"]],
    ]);
  });

  it("walks PENDING -> CONFIRMING -> UNDER_PAID for a confirmed short deposit inside the window", () => {
    expect(walk(settle(state("PENDING"), [confirmed(10n)], BEFORE))).toEqual([
      ["CONFIRMING", ["payment.confirming"]],
      ["UNDER_PAID", ["payment.confirmed"]],
    ]);
  });

  it("walks EXPIRED -> CONFIRMING (late) -> FAILED for a late deposit confirmed short", () => {
    const steps = settle(state("EXPIRED"), [confirmed(10n)], AFTER);
    expect(walk(steps)).toEqual([
      ["CONFIRMING", ["payment.confirming"]],
      ["FAILED", ["payment.confirmed", "payment.failed"]],
    ]);
    expect(steps.at(-1)?.state).toMatchObject({ late: true, failureReason: "underpaid" });
  });

  it("walks UNDER_PAID -> CONFIRMING and stops there while the new deposit is unconfirmed", () => {
    expect(walk(settle(state("UNDER_PAID"), [confirmed(10n), pending()], AFTER))).toEqual([["CONFIRMING", ["payment.confirming"]]]);
  });

  it("does not change its input", () => {
    const start = state("PENDING");
    const deposits = [confirmed()];
    settle(start, deposits, BEFORE);
    expect(start).toEqual(state("PENDING"));
    expect(deposits).toEqual([confirmed()]);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties: random histories of deposits, confirmations, drops and clock moves.

const LATE_WINDOW_MS = 60 * 60_000;

/** The moves a history is made of, as the chain and the clock would make them. */
type Command =
  | { kind: "deposit"; amount: bigint; confirmed: boolean }
  | { kind: "confirm"; pick: number }
  | { kind: "drop"; pick: number }
  | { kind: "advance"; minutes: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant("deposit" as const), amount: fc.bigInt({ min: 1n, max: (PAY * 13n) / 10n }), confirmed: fc.boolean() }),
  fc.record({ kind: fc.constant("confirm" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("drop" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("advance" as const), minutes: fc.integer({ min: 0, max: 120 }) }),
);

const startState: fc.Arbitrary<MachineState> = fc.record({
  status: fc.constant("PENDING" as const),
  payAmount: fc.constant(PAY),
  underPaidCoverTenths: fc.constantFrom(0, 5, 10, 100, 500),
  expiresAt: fc.integer({ min: 1, max: 240 }).map((minutes) => T0 + minutes * 60_000),
  late: fc.constant(false),
  failureReason: fc.constant(null),
});

/** Every (from, to) move the table allows. */
const ALLOWED = new Set([
  "PENDING>CONFIRMING",
  "PENDING>EXPIRED",
  "CONFIRMING>PAID",
  "CONFIRMING>UNDER_PAID",
  "CONFIRMING>FAILED",
  "CONFIRMING>PENDING",
  "CONFIRMING>EXPIRED",
  "UNDER_PAID>CONFIRMING",
  "UNDER_PAID>PAID",
  "UNDER_PAID>FAILED",
  "EXPIRED>CONFIRMING",
]);

interface Trace {
  statuses: InvoiceStatus[];
  transitions: string[];
  events: PaymentEventType[];
  /** For each PAID step: the counted confirmed total and whether anything was unconfirmed. */
  paidWith: Array<{ total: bigint; waiting: boolean }>;
}

/**
 * Replays a history the way core does: before a chain report is applied the clock is (settle
 * at `now`), then the deposit changes, then settle again; a clock move settles once (a tick).
 * A new deposit counts toward an EXPIRED invoice only inside the late window; a confirmed
 * deposit is final and cannot be dropped.
 */
function replay(start: MachineState, commands: readonly Command[]): Trace {
  let current = start;
  let now = T0;
  const deposits: MachineDeposit[] = [];
  const trace: Trace = { statuses: [start.status], transitions: [], events: [], paidWith: [] };
  const run = () => {
    for (const step of settle(current, deposits, now)) {
      trace.transitions.push(`${current.status}>${step.state.status}`);
      trace.events.push(...step.events);
      if (step.state.status === "PAID") {
        const live = deposits.filter((deposit) => deposit.status !== "DROPPED" && deposit.countsTowardInvoice);
        trace.paidWith.push({
          total: live.reduce((sum, deposit) => sum + deposit.amount, 0n),
          waiting: live.some((deposit) => deposit.status === "PENDING"),
        });
      }
      current = step.state;
      trace.statuses.push(current.status);
    }
    // At rest: one more look changes nothing.
    expect(nextStep(current, deposits, now)).toBeNull();
  };
  for (const move of commands) {
    if (move.kind === "advance") {
      now += move.minutes * 60_000;
      run();
      continue;
    }
    run(); // the clock first
    if (move.kind === "deposit") {
      const counts = current.status !== "EXPIRED" || now < current.expiresAt + LATE_WINDOW_MS;
      deposits.push({ status: move.confirmed ? "CONFIRMED" : "PENDING", amount: move.amount, countsTowardInvoice: counts });
    } else {
      const open = deposits.filter((deposit) => deposit.status === "PENDING");
      const target = open[move.pick % Math.max(open.length, 1)];
      if (!target) continue;
      target.status = move.kind === "confirm" ? "CONFIRMED" : "DROPPED";
    }
    run();
  }
  return trace;
}

const history = fc.array(command, { minLength: 1, maxLength: 30 });

describe("invoice machine properties", () => {
  it("always settles, and only along the table's arrows", () => {
    fc.assert(
      fc.property(startState, history, (start, commands) => {
        const trace = replay(start, commands);
        for (const move of trace.transitions) expect(ALLOWED.has(move), move).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("never leaves PAID or FAILED once reached", () => {
    fc.assert(
      fc.property(startState, history, (start, commands) => {
        const { statuses } = replay(start, commands);
        const first = statuses.findIndex((status) => isTerminal(status));
        if (first >= 0) expect(statuses.slice(first).every((status) => status === statuses[first])).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("emits payment.completed at most once, and only on reaching PAID", () => {
    fc.assert(
      fc.property(startState, history, (start, commands) => {
        const { events, statuses } = replay(start, commands);
        const completed = events.filter((type) => type === "payment.completed").length;
        expect(completed).toBeLessThanOrEqual(1);
        expect(completed === 1).toBe(statuses.at(-1) === "PAID");
      }),
      { numRuns: 500 },
    );
  });

  it("emits payment.expired and payment.failed at most once each, and never payment.created", () => {
    fc.assert(
      fc.property(startState, history, (start, commands) => {
        const { events } = replay(start, commands);
        expect(events.filter((type) => type === "payment.expired").length).toBeLessThanOrEqual(1);
        expect(events.filter((type) => type === "payment.failed").length).toBeLessThanOrEqual(1);
        expect(events).not.toContain("payment.created");
      }),
      { numRuns: 500 },
    );
  });

  it("reaches PAID only with every counted deposit confirmed and the threshold met", () => {
    fc.assert(
      fc.property(startState, history, (start, commands) => {
        const { paidWith } = replay(start, commands);
        for (const paid of paidWith) {
          expect(paid.waiting).toBe(false);
          expect(paid.total >= settleThreshold(start.payAmount!, start.underPaidCoverTenths)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("settles any state and deposit set within its step bound", () => {
    const anyState: fc.Arbitrary<MachineState> = fc.record({
      status: fc.constantFrom("PENDING", "CONFIRMING", "UNDER_PAID", "PAID", "FAILED", "EXPIRED"),
      payAmount: fc.option(fc.bigInt({ min: 1n, max: PAY }), { nil: null }),
      underPaidCoverTenths: fc.integer({ min: 0, max: 500 }),
      expiresAt: fc.integer({ min: T0, max: T0 + 10 * 60_000 }),
      late: fc.boolean(),
      failureReason: fc.constantFrom("underpaid" as const, null),
    });
    const anyDeposit: fc.Arbitrary<MachineDeposit> = fc.record({
      status: fc.constantFrom("PENDING", "CONFIRMED", "DROPPED"),
      amount: fc.bigInt({ min: 1n, max: PAY }),
      countsTowardInvoice: fc.boolean(),
    });
    fc.assert(
      fc.property(anyState, fc.array(anyDeposit, { maxLength: 5 }), fc.integer({ min: T0, max: T0 + 20 * 60_000 }), (start, deposits, now) => {
        const steps = settle(start, deposits, now);
        expect(steps.length).toBeLessThanOrEqual(3);
        const end = steps.at(-1)?.state ?? start;
        expect(settle(end, deposits, now)).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });
});
