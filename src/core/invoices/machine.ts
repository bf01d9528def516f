import { settleThreshold } from "./fees";
import type { DepositStatus } from "../deposits/records";
import type { InvoiceStatus, PaymentEventType } from "./records";

/** What the state machine looks at: the invoice's own state plus its deposits and the clock. */
export interface MachineState {
  status: InvoiceStatus;
  payAmount: bigint | null;
  underPaidCoverTenths: number;
  expiresAt: number;
  /** Reopened by a deposit after expiry: its window is closed, so it cannot be UNDER_PAID. */
  late: boolean;
  failureReason: "underpaid" | null;
}

/** The part of a deposit the machine needs. */
export interface MachineDeposit {
  status: DepositStatus;
  amount: bigint;
  countsTowardInvoice: boolean;
}

/** One transition: the state it leads to and the events it records, in order. */
export interface Step {
  state: MachineState;
  events: PaymentEventType[];
}

const TERMINAL: ReadonlySet<InvoiceStatus> = new Set(["PAID", "FAILED"]);

/** Whether nothing can change this invoice's status any more. */
export function isTerminal(status: InvoiceStatus): boolean {
  return TERMINAL.has(status);
}

/**
 * The single transition the invoice takes now, or null when it is at rest. This is the invoice
 * lifecycle table in docs/money.md, one row per branch; `settle` applies it until nothing
 * moves, so a deposit that arrives fully confirmed walks PENDING -> CONFIRMING -> PAID with
 * every event.
 */
export function nextStep(state: MachineState, deposits: readonly MachineDeposit[], now: number): Step | null {
  // A deposit that left the chain (dropped before it was final, or reversed after) no longer counts.
  const live = deposits.filter((deposit) => (deposit.status === "PENDING" || deposit.status === "CONFIRMED") && deposit.countsTowardInvoice);
  const waiting = live.some((deposit) => deposit.status === "PENDING");
  const total = live.reduce((sum, deposit) => sum + deposit.amount, 0n);
  const windowOpen = now < state.expiresAt && !state.late;
  const covered = state.payAmount !== null && total >= settleThreshold(state.payAmount, state.underPaidCoverTenths);
  const to = (status: InvoiceStatus, events: PaymentEventType[], change: Partial<MachineState> = {}): Step => ({
    state: { ...state, ...change, status },
    events,
  });

  switch (state.status) {
    case "PENDING":
      if (live.length > 0) return to("CONFIRMING", ["payment.confirming"]);
      if (now >= state.expiresAt) return to("EXPIRED", ["payment.expired"]);
      return null;
    case "CONFIRMING":
    case "UNDER_PAID":
      if (live.length === 0) {
        // Every deposit was dropped: back to waiting, or closed if the window has passed.
        // A late-reopened invoice had its payment.expired already, so it goes back silently.
        if (now < state.expiresAt) return to("PENDING", []);
        return to("EXPIRED", state.late ? [] : ["payment.expired"]);
      }
      // An UNDER_PAID invoice moves only because a deposit arrived: it goes through CONFIRMING
      // so the merchant sees the same event trail as for a first payment.
      if (state.status === "UNDER_PAID" && (waiting || covered)) return to("CONFIRMING", ["payment.confirming"]);
      if (waiting) return null;
      if (covered) return to("PAID", ["payment.confirmed", "payment.completed"]);
      if (state.status === "CONFIRMING") {
        if (windowOpen) return to("UNDER_PAID", ["payment.confirmed"]);
        return to("FAILED", ["payment.confirmed", "payment.failed"], { failureReason: "underpaid" });
      }
      return windowOpen ? null : to("FAILED", ["payment.failed"], { failureReason: "underpaid" });
    case "EXPIRED":
      // Only deposits seen inside the late window count toward an expired invoice.
      if (live.length > 0) return to("CONFIRMING", ["payment.confirming"], { late: true });
      return null;
    case "PAID":
    case "FAILED":
      return null;
  }
}

/** Applies `nextStep` until the invoice is at rest; returns every step taken, in order. */
export function settle(state: MachineState, deposits: readonly MachineDeposit[], now: number): Step[] {
  const steps: Step[] = [];
  let current = state;
  // The table has no cycle without a change of input, so a handful of steps always suffices;
  // the bound turns a future table mistake into an error instead of a hung request.
  for (let guard = 0; guard < 8; guard++) {
    const step = nextStep(current, deposits, now);
    if (!step) return steps;
    steps.push(step);
    current = step.state;
  }
  throw new Error(`invoice state machine did not settle from ${state.status}`);
}
