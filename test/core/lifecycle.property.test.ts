import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Scope } from "../../src/core/ports/storage/index";
import { paymentFee } from "../../src/core/invoices/fees";
import type { DepositRecord } from "../../src/core/deposits/records";
import type { InvoiceStatus } from "../../src/core/invoices/records";
import { setup, type Harness } from "../helpers";

/**
 * Random programs against the real router, through the sandbox endpoints: whatever the order of
 * deposits, confirmations, drops, clock moves and background rounds, every confirmed deposit is
 * credited exactly once (net of the fee), nothing else is, and the balance never goes negative.
 */

const INVOICE_COUNT = fc.integer({ min: 1, max: 3 });

type Command =
  | { kind: "deposit"; invoice: number; units: number; confirmations: number }
  | { kind: "confirm"; pick: number; confirmations: number }
  | { kind: "drop"; pick: number }
  | { kind: "advance"; minutes: number }
  | { kind: "tick" };

// Amounts around the 100 USDT asked, so programs hit paid, underpaid and overpaid alike.
const units = fc.oneof(fc.integer({ min: 1_000_000, max: 130_000_000 }), fc.constantFrom(50_000_000, 99_000_000, 99_500_000, 100_000_000));

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("deposit" as const), invoice: fc.nat(), units, confirmations: fc.integer({ min: 0, max: 25 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("confirm" as const), pick: fc.nat(), confirmations: fc.integer({ min: 0, max: 25 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("drop" as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("advance" as const), minutes: fc.integer({ min: 0, max: 120 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "tick" as const }) },
);

const program = fc.record({
  invoices: INVOICE_COUNT,
  underPaidCover: fc.constantFrom(0, 1),
  commands: fc.array(command, { minLength: 1, maxLength: 12 }),
});

async function run(h: Harness, commands: readonly Command[], addresses: readonly string[], ids: readonly string[]): Promise<void> {
  const scope: Scope = { merchantId: h.merchant.id, mode: "test" };
  const txHashes: string[] = [];
  const terminal = new Map<string, InvoiceStatus>();
  for (const move of commands) {
    let res: { status: number; body: { txHash?: string } } | null = null;
    switch (move.kind) {
      case "deposit":
        res = await h.post("/api/v1/sandbox/deposit/create", {
          address: addresses[move.invoice % addresses.length],
          amount: move.units / 1_000_000,
          confirmations: move.confirmations,
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        txHashes.push(res.body.txHash!);
        break;
      case "confirm":
      case "drop": {
        const txHash = txHashes[move.pick % Math.max(txHashes.length, 1)];
        if (txHash === undefined) break;
        res =
          move.kind === "confirm"
            ? await h.post("/api/v1/sandbox/deposit/confirm", { txHash, confirmations: move.confirmations })
            : await h.post("/api/v1/sandbox/deposit/drop", { txHash });
        // 409: confirming a dropped deposit (dropping a confirmed one reverses it).
        expect([200, 409], JSON.stringify(res.body)).toContain(res.status);
        break;
      }
      case "advance":
        h.clock.advanceMinutes(move.minutes);
        break;
      case "tick":
        await h.router.tick();
        break;
    }
    expect(await h.router.storage.getBalance(scope, "USDT")).toBeGreaterThanOrEqual(0n);
    // PAID and FAILED are final whatever happens next.
    for (const id of ids) {
      const status = (await h.router.storage.getInvoice(scope, id))!.status;
      const was = terminal.get(id);
      if (was) expect(status, `invoice left ${was}`).toBe(was);
      else if (status === "PAID" || status === "FAILED") terminal.set(id, status);
    }
  }
}

describe("invoice lifecycle through the router, random programs", () => {
  it("credits every confirmed deposit exactly once, net of the fee, and nothing else", async () => {
    await fc.assert(
      fc.asyncProperty(program, async ({ invoices, underPaidCover, commands }) => {
        const h = await setup();
        try {
          const scope: Scope = { merchantId: h.merchant.id, mode: "test" };
          const created = [];
          for (let i = 0; i < invoices; i++) {
            const res = await h.post("/api/v1/merchants/whitelabel/create", {
              amount: 100,
              payCurrency: "USDT",
              network: "TRX",
              lifeTime: 30,
              underPaidCover,
            });
            expect(res.status).toBe(200);
            created.push(res.body as { id: string; address: string });
          }
          const ids = created.map((invoice) => invoice.id);
          await run(
            h,
            commands,
            created.map((invoice) => invoice.address),
            ids,
          );

          const deposits: DepositRecord[] = [];
          for (const id of ids) deposits.push(...(await h.router.storage.listDepositsForInvoice(id)));
          const entries = await h.router.storage.listLedgerEntries(scope, "USDT");
          const confirmed = deposits.filter((deposit) => deposit.status === "CONFIRMED");

          // Per deposit: its credits less its reversals is one for a confirmed deposit and zero
          // for any other (a confirmed one dropped is a deep reorg: reversed once); each entry
          // is the net amount, and no other kind of entry exists.
          expect(entries.every((entry) => entry.kind === "deposit" || entry.kind === "deposit_reversal")).toBe(true);
          for (const deposit of deposits) {
            const own = entries.filter((entry) => entry.causeKey === `deposit:${deposit.id}` || entry.causeKey.startsWith(`deposit:${deposit.id}:`));
            const credits = own.filter((entry) => entry.kind === "deposit");
            const reversals = own.filter((entry) => entry.kind === "deposit_reversal");
            expect(credits.length - reversals.length).toBe(deposit.status === "CONFIRMED" ? 1 : 0);
            expect(reversals).toHaveLength(deposit.reversals);
            for (const entry of own) expect(entry.amount).toBe((entry.kind === "deposit" ? 1n : -1n) * (deposit.amount - paymentFee(deposit.amount)));
            if (credits.length > 0) expect(deposit.fee).toBe(paymentFee(deposit.amount));
            expect(deposit.creditedAt === null).toBe(deposit.status !== "CONFIRMED");
          }

          const expected = confirmed.reduce((sum, deposit) => sum + deposit.amount - paymentFee(deposit.amount), 0n);
          const balance = await h.router.storage.getBalance(scope, "USDT");
          expect(balance).toBe(expected);
          expect(balance).toBeGreaterThanOrEqual(0n);

          // Each invoice shows what it received and completes at most once, exactly when PAID.
          for (const id of ids) {
            const invoice = (await h.router.storage.getInvoice(scope, id))!;
            const kept = deposits.filter((deposit) => deposit.invoiceId === id && (deposit.status === "PENDING" || deposit.status === "CONFIRMED"));
            expect(invoice.receivedAmount).toBe(kept.reduce((sum, deposit) => sum + deposit.amount, 0n));
            const events = (await h.router.storage.listEvents(scope, { invoiceId: id })).map((event) => event.type);
            expect(events[0]).toBe("payment.created");
            expect(events.filter((type) => type === "payment.created")).toHaveLength(1);
            expect(events.filter((type) => type === "payment.completed")).toHaveLength(invoice.status === "PAID" ? 1 : 0);
            expect(events.filter((type) => type === "payment.expired").length).toBeLessThanOrEqual(1);
          }
        } finally {
          await h.router.close();
        }
      }),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 40) },
    );
  });
});
