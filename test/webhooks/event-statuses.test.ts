import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { settle, type MachineDeposit, type MachineState } from "../../src/core/invoices/machine";
import { INVOICE_STATUSES, PAYMENT_EVENT_TYPES, type PaymentEventType } from "../../src/core/invoices/records";
import { PAYMENT_EVENT_STATUSES } from "../../src/schemas/service-event";

/**
 * The receiver types each event's `data.status` from PAYMENT_EVENT_STATUSES and refuses any
 * other. That table is only right if core's state machine never records an event with another
 * status: every event of a step carries the invoice as it stands after that step
 * (core/webhooks/events.ts), so the step's status is the one a receiver sees.
 */

const NOW = 1_772_366_400_000;
const machineState: fc.Arbitrary<MachineState> = fc.record({
  status: fc.constantFrom(...INVOICE_STATUSES),
  payAmount: fc.option(fc.bigInt({ min: 1n, max: 1_000n }), { nil: null }),
  underPaidCoverTenths: fc.integer({ min: 0, max: 1000 }),
  expiresAt: fc.integer({ min: NOW - 3_600_000, max: NOW + 3_600_000 }),
  late: fc.boolean(),
  failureReason: fc.constantFrom("underpaid" as const, null),
});
const deposit: fc.Arbitrary<MachineDeposit> = fc.record({
  status: fc.constantFrom("PENDING" as const, "CONFIRMED" as const, "DROPPED" as const, "REVERSED" as const),
  amount: fc.bigInt({ min: 1n, max: 1_500n }),
  countsTowardInvoice: fc.boolean(),
});

describe("the statuses each event type carries", () => {
  it("cover every status the state machine records with each event, and no more", () => {
    const seen = new Map<PaymentEventType, Set<string>>();
    fc.assert(
      fc.property(machineState, fc.array(deposit, { maxLength: 4 }), fc.integer({ min: NOW - 7_200_000, max: NOW + 7_200_000 }), (state, deposits, now) => {
        for (const step of settle(state, deposits, now)) {
          for (const type of step.events) {
            expect(PAYMENT_EVENT_STATUSES[type]).toContain(step.state.status);
            seen.set(type, (seen.get(type) ?? new Set()).add(step.state.status));
          }
        }
      }),
      { numRuns: 5000 },
    );
    // Every status the table allows is one the machine produces (the table is not too wide);
    // payment.created comes from invoice creation, always PENDING, not from a transition, and
    // the deposit events come from the deposit itself, at whatever status the payment has.
    const fromDeposits: readonly string[] = ["payment.unexpected_deposit", "payment.reversed", "payment.deposit_dropped"];
    for (const type of fromDeposits) expect([...PAYMENT_EVENT_STATUSES[type as PaymentEventType]].sort()).toEqual([...INVOICE_STATUSES].sort());
    for (const type of PAYMENT_EVENT_TYPES.filter((name) => name !== "payment.created" && !fromDeposits.includes(name))) {
      expect([...(seen.get(type) ?? [])].sort()).toEqual([...PAYMENT_EVENT_STATUSES[type]].sort());
    }
    expect(PAYMENT_EVENT_STATUSES["payment.created"]).toEqual(["PENDING"]);
  });
});
