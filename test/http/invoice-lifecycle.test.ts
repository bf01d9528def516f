import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Scope } from "../../src/core/ports/storage/index";
import { setup, type Harness } from "../helpers";

/**
 * The invoice lifecycle (the table in docs/money.md), driven through the sandbox endpoints only.
 * Whitelabel USDT on TRX: 6 decimals, minConfirm 19, and priced in USD at 1 USDT = 1 USD, so
 * an invoice of 100 USD asks for exactly 100 USDT (100_000_000 units).
 */

const UNITS = 1_000_000n; // smallest units per USDT
const MIN_CONFIRM = 19;
const LIFETIME = 30; // minutes
const LATE_WINDOW = 60; // minutes, the default

let h: Harness;
let scope: Scope;

beforeEach(async () => {
  h = await setup();
  scope = { merchantId: h.merchant.id, mode: "test" };
});

afterEach(async () => {
  await h.router.close();
});

interface InvoiceBody {
  id: string;
  status: string;
  address: string;
  payAmount: number;
  receivedAmount: number;
  reversedAmount: number;
  txHash: string | null;
  expiresAt: string;
  deposits?: Array<Record<string, unknown>>;
}

async function createInvoice(body: Record<string, unknown> = {}, key: string = h.testKey): Promise<InvoiceBody> {
  const res = await h.post(
    "/api/v1/merchants/whitelabel/create",
    { amount: 100, amountCurrency: "USD", payCurrency: "USDT", network: "TRX", lifeTime: LIFETIME, ...body },
    key,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.status).toBe("PENDING");
  return res.body as InvoiceBody;
}

async function deposit(address: string, amount: number, confirmations = 0): Promise<string> {
  const res = await h.post("/api/v1/sandbox/deposit/create", { address, amount, confirmations });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.txHash as string;
}

async function confirm(txHash: string, confirmations = MIN_CONFIRM): Promise<void> {
  const res = await h.post("/api/v1/sandbox/deposit/confirm", { txHash, confirmations });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function drop(txHash: string): Promise<void> {
  const res = await h.post("/api/v1/sandbox/deposit/drop", { txHash });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function fetchInvoice(id: string): Promise<InvoiceBody> {
  const res = await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: id });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as InvoiceBody;
}

async function statusOf(id: string): Promise<string> {
  return (await fetchInvoice(id)).status;
}

async function eventTypes(id: string): Promise<string[]> {
  return (await h.router.storage.listEvents(scope, { invoiceId: id })).map((event) => event.type);
}

async function balance(): Promise<bigint> {
  return h.router.storage.getBalance(scope, "USDT");
}

async function depositEntries(): Promise<string[]> {
  return (await h.router.storage.listLedgerEntries(scope, "USDT")).filter((entry) => entry.kind === "deposit").map((entry) => entry.causeKey);
}

/** Moves the clock past the invoice's lifetime (plus `extra` minutes) and runs the background round. */
async function passExpiry(extra = 1): Promise<void> {
  h.clock.advanceMinutes(LIFETIME + extra);
  await h.router.tick();
}

describe("invoice lifecycle through the sandbox", () => {
  describe("paying in full", () => {
    it("walks PENDING -> CONFIRMING -> PAID and credits the amount less a 0.5% fee rounded down", async () => {
      // Priced in USDT so the amount has all six decimals: the fee 61_728.395 units rounds down.
      const invoice = await createInvoice({ amount: 12.345679, amountCurrency: "USDT" });
      expect(invoice.payAmount).toBe(12.345679);
      expect(await eventTypes(invoice.id)).toEqual(["payment.created"]);

      const txHash = await deposit(invoice.address, 12.345679, 0);
      expect(await statusOf(invoice.id)).toBe("CONFIRMING");
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.confirming"]);
      expect(await balance()).toBe(0n);

      await confirm(txHash, 10);
      expect(await statusOf(invoice.id)).toBe("CONFIRMING");
      expect(await balance()).toBe(0n);

      await confirm(txHash, MIN_CONFIRM);
      const paid = await fetchInvoice(invoice.id);
      expect(paid.status).toBe("PAID");
      expect(paid.receivedAmount).toBe(12.345679);
      expect(paid.txHash).toBe(txHash);
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.confirming", "payment.confirmed", "payment.completed"]);
      expect(await balance()).toBe(12_345_679n - 61_728n);
    });

    it("stays CONFIRMING at one confirmation short of minConfirm", async () => {
      const invoice = await createInvoice();
      const txHash = await deposit(invoice.address, 100, MIN_CONFIRM - 1);
      expect(await statusOf(invoice.id)).toBe("CONFIRMING");
      await confirm(txHash, MIN_CONFIRM - 1);
      expect(await statusOf(invoice.id)).toBe("CONFIRMING");
      expect(await balance()).toBe(0n);
    });

    it("walks through every event at once for a deposit that arrives with minConfirm confirmations", async () => {
      const invoice = await createInvoice();
      await deposit(invoice.address, 100, MIN_CONFIRM);
      expect(await statusOf(invoice.id)).toBe("PAID");
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.confirming", "payment.confirmed", "payment.completed"]);
      expect(await balance()).toBe(99_500_000n);
    });

    it("records each event with the invoice as it stood at that step", async () => {
      const invoice = await createInvoice();
      await deposit(invoice.address, 100, MIN_CONFIRM);
      const events = await h.router.storage.listEvents(scope, { invoiceId: invoice.id });
      expect(events.map((event) => event.data.status)).toEqual(["PENDING", "CONFIRMING", "PAID", "PAID"]);
    });

    it("marks an overpaid invoice PAID, shows the excess and credits the whole amount less the fee", async () => {
      const invoice = await createInvoice();
      await deposit(invoice.address, 130, MIN_CONFIRM);
      const paid = await fetchInvoice(invoice.id);
      expect(paid.status).toBe("PAID");
      expect(paid.payAmount).toBe(100);
      expect(paid.receivedAmount).toBe(130);
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.confirming", "payment.confirmed", "payment.completed"]);
      expect(await balance()).toBe(130n * UNITS - 650_000n);
    });

    it("nets the merchant at least the requested amount when the payer pays the fee", async () => {
      const invoice = await createInvoice({ feePaidByPayer: true });
      // 100 / 0.995 = 100.50251256..., rounded up to the unit.
      expect(invoice.payAmount).toBe(100.502513);
      await deposit(invoice.address, invoice.payAmount, MIN_CONFIRM);
      expect(await statusOf(invoice.id)).toBe("PAID");
      expect(await balance()).toBe(100_000_001n);
    });

    it("credits a second payment to a PAID invoice without moving it or completing it again", async () => {
      const invoice = await createInvoice();
      await deposit(invoice.address, 100, MIN_CONFIRM);
      await deposit(invoice.address, 10, MIN_CONFIRM);
      const after = await fetchInvoice(invoice.id);
      expect(after.status).toBe("PAID");
      expect(after.receivedAmount).toBe(110);
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.confirming", "payment.confirmed", "payment.completed"]);
      expect(await balance()).toBe(99_500_000n + 9_950_000n);
    });
  });

  describe("underpayment", () => {
    it("accepts a payment short by less than underPaidCover as PAID", async () => {
      const invoice = await createInvoice({ underPaidCover: 1 });
      const txHash = await deposit(invoice.address, 99.5);
      expect(await statusOf(invoice.id)).toBe("CONFIRMING");
      await confirm(txHash);
      const paid = await fetchInvoice(invoice.id);
      expect(paid.status).toBe("PAID");
      expect(paid.receivedAmount).toBe(99.5);
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.confirming", "payment.confirmed", "payment.completed"]);
      expect(await balance()).toBe(99_500_000n - 497_500n);
    });

    it("accepts exactly payAmount less underPaidCover, and not one unit less", async () => {
      const exact = await createInvoice({ underPaidCover: 1 });
      await deposit(exact.address, 99, MIN_CONFIRM);
      expect(await statusOf(exact.id)).toBe("PAID");

      const short = await createInvoice({ underPaidCover: 1 });
      await deposit(short.address, 98.999999, MIN_CONFIRM);
      expect(await statusOf(short.id)).toBe("UNDER_PAID");
    });

    it("moves a payment short beyond the cover to UNDER_PAID, then FAILED at expiry, and keeps the funds credited", async () => {
      const invoice = await createInvoice({ underPaidCover: 1 });
      const txHash = await deposit(invoice.address, 80);
      expect(await statusOf(invoice.id)).toBe("CONFIRMING");
      await confirm(txHash);
      const under = await fetchInvoice(invoice.id);
      expect(under.status).toBe("UNDER_PAID");
      expect(under.receivedAmount).toBe(80);
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.confirming", "payment.confirmed"]);
      expect(await balance()).toBe(80n * UNITS - 400_000n);

      // Still inside the window: a tick changes nothing.
      h.clock.advanceMinutes(LIFETIME - 1);
      await h.router.tick();
      expect(await statusOf(invoice.id)).toBe("UNDER_PAID");

      h.clock.advanceMinutes(2);
      await h.router.tick();
      expect(await statusOf(invoice.id)).toBe("FAILED");
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.confirming", "payment.confirmed", "payment.failed"]);
      const stored = await h.router.storage.getInvoice(scope, invoice.id);
      expect(stored?.failureReason).toBe("underpaid");
      expect(stored?.receivedAmount).toBe(80n * UNITS);
      expect(await balance()).toBe(80n * UNITS - 400_000n);
    });

    it("completes an UNDER_PAID invoice when a second deposit covers the rest", async () => {
      const invoice = await createInvoice();
      await deposit(invoice.address, 60, MIN_CONFIRM);
      expect(await statusOf(invoice.id)).toBe("UNDER_PAID");

      const rest = await deposit(invoice.address, 40, 0);
      expect(await statusOf(invoice.id)).toBe("CONFIRMING");
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.confirming", "payment.confirmed", "payment.confirming"]);
      expect(await balance()).toBe(60n * UNITS - 300_000n);

      await confirm(rest);
      const paid = await fetchInvoice(invoice.id);
      expect(paid.status).toBe("PAID");
      expect(paid.receivedAmount).toBe(100);
      expect(paid.txHash).toBe(rest);
      expect((await eventTypes(invoice.id)).slice(4)).toEqual(["payment.confirmed", "payment.completed"]);
      expect(await balance()).toBe(100n * UNITS - 500_000n);
    });

    it("fails a payment seen before expiry that confirms short after it, without passing through UNDER_PAID", async () => {
      const invoice = await createInvoice();
      const txHash = await deposit(invoice.address, 50);
      await passExpiry();
      expect(await statusOf(invoice.id)).toBe("CONFIRMING");
      await confirm(txHash);
      expect(await statusOf(invoice.id)).toBe("FAILED");
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.confirming", "payment.confirmed", "payment.failed"]);
      expect(await balance()).toBe(50n * UNITS - 250_000n);
    });
  });

  describe("expiry", () => {
    it("expires an unpaid invoice once the clock passes its lifetime and a tick runs", async () => {
      const invoice = await createInvoice();
      h.clock.advanceMinutes(LIFETIME - 1);
      await h.router.tick();
      expect(await statusOf(invoice.id)).toBe("PENDING");

      h.clock.advanceMinutes(1);
      await h.router.tick();
      expect(await statusOf(invoice.id)).toBe("EXPIRED");
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.expired"]);

      await h.router.tick();
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.expired"]);
      expect(await balance()).toBe(0n);
    });

    it("expires an open invoice at once through sandbox/invoice/expire", async () => {
      const invoice = await createInvoice();
      const res = await h.post("/api/v1/sandbox/invoice/expire", { invoiceId: invoice.id });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("EXPIRED");
      expect(res.body.id).toBe(invoice.id);
      expect(await statusOf(invoice.id)).toBe("EXPIRED");
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.expired"]);
    });

    it("answers 409 when asked to expire an invoice that is PAID", async () => {
      const invoice = await createInvoice();
      await deposit(invoice.address, 100, MIN_CONFIRM);
      const res = await h.post("/api/v1/sandbox/invoice/expire", { invoiceId: invoice.id });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: 40902, message: expect.any(String) });
      expect(await statusOf(invoice.id)).toBe("PAID");
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.confirming", "payment.confirmed", "payment.completed"]);
    });

    it("answers 409 when asked to expire an invoice that has expired already", async () => {
      const invoice = await createInvoice();
      await passExpiry();
      const res = await h.post("/api/v1/sandbox/invoice/expire", { invoiceId: invoice.id });
      expect(res.status).toBe(409);
      expect(res.body.error).toBe(40902);
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.expired"]);
    });

    it("fails an UNDER_PAID invoice at once through sandbox/invoice/expire", async () => {
      const invoice = await createInvoice();
      await deposit(invoice.address, 70, MIN_CONFIRM);
      const res = await h.post("/api/v1/sandbox/invoice/expire", { invoiceId: invoice.id });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("FAILED");
      expect((await h.router.storage.getInvoice(scope, invoice.id))?.failureReason).toBe("underpaid");
    });

    it("waits for a deposit seen before expiry: CONFIRMING past expiresAt stays CONFIRMING, then PAID", async () => {
      const invoice = await createInvoice();
      h.clock.advanceMinutes(10);
      const txHash = await deposit(invoice.address, 100, 3);
      h.clock.advanceMinutes(LIFETIME + 120);
      await h.router.tick();
      expect(await statusOf(invoice.id)).toBe("CONFIRMING");
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.confirming"]);

      await confirm(txHash);
      expect(await statusOf(invoice.id)).toBe("PAID");
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.confirming", "payment.confirmed", "payment.completed"]);
      expect(await balance()).toBe(99_500_000n);
    });

    it("expires a PENDING invoice even when more than a page of past-due invoices are waiting on deposits", async () => {
      // The expiry loop reads due invoices oldest first, 100 at a time. CONFIRMING invoices
      // past expiresAt stay due while their deposits are unconfirmed, and must not hide a
      // PENDING invoice behind them forever.
      const waiting: InvoiceBody[] = [];
      for (let i = 0; i < 101; i++) waiting.push(await createInvoice());
      for (const invoice of waiting) await deposit(invoice.address, 100);
      const unpaid = await createInvoice({ lifeTime: LIFETIME + 1 });
      h.clock.advanceMinutes(LIFETIME + 5);
      await h.router.tick();
      await h.router.tick();
      expect(await statusOf(waiting[0]!.id)).toBe("CONFIRMING");
      expect(await statusOf(unpaid.id)).toBe("EXPIRED");
    });

    it("keeps waiting for a seen deposit when the sandbox forces expiry", async () => {
      const invoice = await createInvoice();
      const txHash = await deposit(invoice.address, 100);
      const res = await h.post("/api/v1/sandbox/invoice/expire", { invoiceId: invoice.id });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("CONFIRMING");
      await confirm(txHash);
      expect(await statusOf(invoice.id)).toBe("PAID");
    });
  });

  describe("late deposits", () => {
    it("reopens an EXPIRED invoice for a deposit inside the late window, then completes it without a second expiry", async () => {
      const invoice = await createInvoice();
      await passExpiry(0);
      expect(await statusOf(invoice.id)).toBe("EXPIRED");

      h.clock.advanceMinutes(LATE_WINDOW - 1);
      const txHash = await deposit(invoice.address, 100);
      expect(await statusOf(invoice.id)).toBe("CONFIRMING");
      expect((await h.router.storage.getInvoice(scope, invoice.id))?.late).toBe(true);
      await h.router.tick();
      expect(await statusOf(invoice.id)).toBe("CONFIRMING");

      await confirm(txHash);
      const paid = await fetchInvoice(invoice.id);
      expect(paid.status).toBe("PAID");
      expect(paid.receivedAmount).toBe(100);
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.expired", "payment.confirming", "payment.confirmed", "payment.completed"]);
      expect(await balance()).toBe(99_500_000n);
    });

    it("serves a late deposit that arrives before any tick noticed the expiry", async () => {
      const invoice = await createInvoice();
      h.clock.advanceMinutes(LIFETIME + 10);
      await deposit(invoice.address, 100, MIN_CONFIRM);
      expect(await statusOf(invoice.id)).toBe("PAID");
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.expired", "payment.confirming", "payment.confirmed", "payment.completed"]);
    });

    it("returns a late-reopened invoice to EXPIRED without a second payment.expired when its deposit is dropped", async () => {
      const invoice = await createInvoice();
      await passExpiry();
      const txHash = await deposit(invoice.address, 100);
      expect(await statusOf(invoice.id)).toBe("CONFIRMING");
      await drop(txHash);
      expect(await statusOf(invoice.id)).toBe("EXPIRED");
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.expired", "payment.confirming", "payment.deposit_dropped"]);
      expect(await balance()).toBe(0n);
    });

    it("fails a late-reopened invoice that is paid short instead of leaving it UNDER_PAID", async () => {
      const invoice = await createInvoice();
      await passExpiry();
      await deposit(invoice.address, 50, MIN_CONFIRM);
      expect(await statusOf(invoice.id)).toBe("FAILED");
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.expired", "payment.confirming", "payment.confirmed", "payment.failed"]);
      expect(await balance()).toBe(50n * UNITS - 250_000n);
    });

    it("leaves an invoice EXPIRED for a deposit after the late window, but credits it and shows it as received", async () => {
      const invoice = await createInvoice();
      await passExpiry(0);
      h.clock.advanceMinutes(LATE_WINDOW + 1);
      const txHash = await deposit(invoice.address, 100);
      let after = await fetchInvoice(invoice.id);
      expect(after.status).toBe("EXPIRED");
      expect(after.receivedAmount).toBe(100);
      expect(after.txHash).toBe(txHash);
      expect(await balance()).toBe(0n);

      await confirm(txHash);
      after = await fetchInvoice(invoice.id);
      expect(after.status).toBe("EXPIRED");
      expect(after.receivedAmount).toBe(100);
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.expired"]);
      expect(await balance()).toBe(99_500_000n);
    });

    it("closes the late window exactly LATE_WINDOW minutes after expiry", async () => {
      const inside = await createInvoice();
      const outside = await createInvoice();
      await passExpiry(0); // both expire now
      h.clock.ms += LATE_WINDOW * 60_000 - 1;
      await deposit(inside.address, 100, MIN_CONFIRM);
      h.clock.ms += 1;
      await deposit(outside.address, 100, MIN_CONFIRM);
      expect(await statusOf(inside.id)).toBe("PAID");
      expect(await statusOf(outside.id)).toBe("EXPIRED");
      expect(await balance()).toBe(2n * 99_500_000n);
    });
  });

  describe("dropped deposits", () => {
    it("returns a CONFIRMING invoice to PENDING with payment.deposit_dropped when its only deposit is dropped, and never credits it", async () => {
      const invoice = await createInvoice();
      const txHash = await deposit(invoice.address, 100, 5);
      expect(await statusOf(invoice.id)).toBe("CONFIRMING");
      await drop(txHash);
      const after = await fetchInvoice(invoice.id);
      expect(after.status).toBe("PENDING");
      expect(after.receivedAmount).toBe(0);
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.confirming", "payment.deposit_dropped"]);
      expect(after.deposits).toMatchObject([{ txHash, status: "DROPPED", countsTowardPayment: true, amount: "100", fee: "0", creditedAt: null }]);

      await h.router.tick();
      expect(await balance()).toBe(0n);
      expect(await depositEntries()).toEqual([]);
    });

    it("can be paid again after a drop", async () => {
      const invoice = await createInvoice();
      await drop(await deposit(invoice.address, 100));
      await deposit(invoice.address, 100, MIN_CONFIRM);
      expect(await statusOf(invoice.id)).toBe("PAID");
      expect(await eventTypes(invoice.id)).toEqual([
        "payment.created",
        "payment.confirming",
        "payment.deposit_dropped",
        "payment.confirming",
        "payment.confirmed",
        "payment.completed",
      ]);
      expect(await balance()).toBe(99_500_000n);
      expect(await depositEntries()).toHaveLength(1);
    });

    it("expires an invoice whose only deposit is dropped after the window closed", async () => {
      const invoice = await createInvoice();
      const txHash = await deposit(invoice.address, 100);
      await passExpiry();
      expect(await statusOf(invoice.id)).toBe("CONFIRMING");
      await drop(txHash);
      expect(await statusOf(invoice.id)).toBe("EXPIRED");
      expect(await eventTypes(invoice.id)).toEqual(["payment.created", "payment.confirming", "payment.expired", "payment.deposit_dropped"]);
      expect(await balance()).toBe(0n);
    });

    it("reverses a confirmed deposit that is dropped (a reorg deeper than its confirmations): the credit is taken back once, the invoice stays PAID and records it", async () => {
      const invoice = await createInvoice();
      const txHash = await deposit(invoice.address, 100, MIN_CONFIRM);
      expect(await balance()).toBe(99_500_000n);
      await drop(txHash);
      await drop(txHash);
      await h.router.tick();
      const after = await fetchInvoice(invoice.id);
      expect(after.status).toBe("PAID");
      expect(after.receivedAmount).toBe(0);
      expect(after.reversedAmount).toBe(100);
      expect(after.deposits).toMatchObject([{ txHash, status: "REVERSED", reversals: 1, creditedAt: null }]);
      expect(await balance()).toBe(0n);
      const entries = await h.router.storage.listLedgerEntries(scope, "USDT");
      expect(entries.map((entry) => [entry.kind, entry.amount])).toEqual([
        ["deposit", 99_500_000n],
        ["deposit_reversal", -99_500_000n],
      ]);
      expect((await eventTypes(invoice.id)).slice(-1)).toEqual(["payment.reversed"]);
    });

    it("refuses to confirm a dropped deposit with 409", async () => {
      const invoice = await createInvoice();
      const txHash = await deposit(invoice.address, 100);
      await drop(txHash);
      const res = await h.post("/api/v1/sandbox/deposit/confirm", { txHash, confirmations: MIN_CONFIRM });
      expect(res.status).toBe(409);
      expect(res.body.error).toBe(40902);
      expect(await statusOf(invoice.id)).toBe("PENDING");
      expect(await balance()).toBe(0n);
    });

    it("moves UNDER_PAID -> CONFIRMING -> UNDER_PAID when the covering deposit is dropped, keeping the first credit", async () => {
      const invoice = await createInvoice();
      await deposit(invoice.address, 60, MIN_CONFIRM);
      const rest = await deposit(invoice.address, 40);
      expect(await statusOf(invoice.id)).toBe("CONFIRMING");
      await drop(rest);
      const after = await fetchInvoice(invoice.id);
      expect(after.status).toBe("UNDER_PAID");
      expect(after.receivedAmount).toBe(60);
      expect(await eventTypes(invoice.id)).toEqual([
        "payment.created",
        "payment.confirming",
        "payment.confirmed",
        "payment.confirming",
        "payment.confirmed",
        "payment.deposit_dropped",
      ]);
      expect(await balance()).toBe(60n * UNITS - 300_000n);
    });
  });

  describe("exactly-once crediting", () => {
    it("never credits twice for repeated confirms with the same count, higher counts or many ticks", async () => {
      const invoice = await createInvoice();
      const txHash = await deposit(invoice.address, 100);
      await confirm(txHash);
      expect(await balance()).toBe(99_500_000n);
      const events = await eventTypes(invoice.id);

      await confirm(txHash);
      await confirm(txHash);
      await confirm(txHash, 25);
      await confirm(txHash, MIN_CONFIRM);
      for (let i = 0; i < 5; i++) await h.router.tick();

      expect(await balance()).toBe(99_500_000n);
      expect(await depositEntries()).toHaveLength(1);
      expect(await eventTypes(invoice.id)).toEqual(events);
      expect(await statusOf(invoice.id)).toBe("PAID");
    });

    it("keeps a confirmed deposit credited when the chain later reports fewer confirmations", async () => {
      const invoice = await createInvoice();
      const txHash = await deposit(invoice.address, 100, MIN_CONFIRM);
      await confirm(txHash, 2);
      expect(await statusOf(invoice.id)).toBe("PAID");
      expect(await balance()).toBe(99_500_000n);
      await confirm(txHash, MIN_CONFIRM);
      expect(await balance()).toBe(99_500_000n);
      expect(await depositEntries()).toHaveLength(1);
    });

    it("credits once under parallel confirms and ticks", async () => {
      const invoice = await createInvoice();
      const txHash = await deposit(invoice.address, 100);
      await Promise.all([
        ...Array.from({ length: 8 }, () => h.post("/api/v1/sandbox/deposit/confirm", { txHash, confirmations: MIN_CONFIRM })),
        ...Array.from({ length: 8 }, () => h.router.tick()),
      ]);
      expect(await balance()).toBe(99_500_000n);
      expect(await depositEntries()).toHaveLength(1);
      expect((await eventTypes(invoice.id)).filter((type) => type === "payment.completed")).toHaveLength(1);
    });

    it("settles a race between confirming and dropping one deposit one way or the other, never both", async () => {
      for (let round = 0; round < 5; round++) {
        const invoice = await createInvoice();
        const txHash = await deposit(invoice.address, 100);
        const [confirmed, dropped] = await Promise.all([
          h.post("/api/v1/sandbox/deposit/confirm", { txHash, confirmations: MIN_CONFIRM }),
          h.post("/api/v1/sandbox/deposit/drop", { txHash }),
        ]);
        expect([200, 409]).toContain(confirmed.status);
        expect([200, 409]).toContain(dropped.status);
        const [stored] = await h.router.storage.listDepositsForInvoice(invoice.id);
        const status = await statusOf(invoice.id);
        if (stored!.status === "CONFIRMED") {
          expect(status).toBe("PAID");
          expect(stored!.creditedAt).not.toBeNull();
        } else if (stored!.status === "REVERSED") {
          // Confirmed first, then dropped: a deep reorg, the credit taken back.
          expect(status).toBe("PAID");
          expect(stored!.creditedAt).toBeNull();
        } else {
          expect(stored!.status).toBe("DROPPED");
          expect(status).toBe("PENDING");
          expect(stored!.creditedAt).toBeNull();
        }
      }
      const confirmedCount = (await depositEntries()).length;
      const reversedCount = (await h.router.storage.listLedgerEntries(scope, "USDT")).filter((entry) => entry.kind === "deposit_reversal").length;
      expect(await balance()).toBe(BigInt(confirmedCount - reversedCount) * 99_500_000n);
    });

    it("credits a deposit once whichever way the deposit feed is replayed", async () => {
      const invoice = await createInvoice();
      const txHash = await deposit(invoice.address, 100);
      await confirm(txHash);
      // A replay of the whole chain feed (a lost cursor): every report is applied again.
      await h.router.storage.transaction((tx) => tx.setCursor("deposits:test:sandbox", "0"));
      await h.router.tick();
      expect(await balance()).toBe(99_500_000n);
      expect(await depositEntries()).toHaveLength(1);
      expect(await statusOf(invoice.id)).toBe("PAID");
    });
  });

  describe("sandbox endpoints refuse what this merchant does not own", () => {
    it("answers 404 for a deposit to an address that was never issued", async () => {
      const res = await h.post("/api/v1/sandbox/deposit/create", { address: "sbx_trx_nothingissuedhere0000", amount: 1 });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe(40401);
    });

    it("answers 404 for an unknown txHash on confirm and drop", async () => {
      const txHash = `0x${"ab".repeat(32)}`;
      const confirmed = await h.post("/api/v1/sandbox/deposit/confirm", { txHash, confirmations: 3 });
      expect(confirmed.status).toBe(404);
      expect(confirmed.body.error).toBe(40401);
      const dropped = await h.post("/api/v1/sandbox/deposit/drop", { txHash });
      expect(dropped.status).toBe(404);
      expect(dropped.body.error).toBe(40401);
    });

    it("answers 404 for an unknown invoiceId on expire", async () => {
      const res = await h.post("/api/v1/sandbox/invoice/expire", { invoiceId: "inv_doesnotexist" });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe(40401);
    });

    it("answers 404 for another merchant's address, deposit and invoice, and changes nothing of theirs", async () => {
      const theirs = await createInvoice({}, h.otherTestKey);
      const mine = await h.post("/api/v1/sandbox/deposit/create", { address: theirs.address, amount: 100, confirmations: MIN_CONFIRM });
      expect(mine.status).toBe(404);
      expect(mine.body.error).toBe(40401);

      const theirTx = (await h.post("/api/v1/sandbox/deposit/create", { address: theirs.address, amount: 100 }, h.otherTestKey)).body.txHash as string;
      const confirmed = await h.post("/api/v1/sandbox/deposit/confirm", { txHash: theirTx, confirmations: MIN_CONFIRM });
      expect(confirmed.status).toBe(404);
      const dropped = await h.post("/api/v1/sandbox/deposit/drop", { txHash: theirTx });
      expect(dropped.status).toBe(404);
      const expired = await h.post("/api/v1/sandbox/invoice/expire", { invoiceId: theirs.id });
      expect(expired.status).toBe(404);
      expect(expired.body.error).toBe(40401);

      const otherScope: Scope = { merchantId: h.other.id, mode: "test" };
      expect((await h.router.storage.getInvoice(otherScope, theirs.id))?.status).toBe("CONFIRMING");
      expect(h.router.sandbox.getDeposit(theirTx)?.confirmations).toBe(0);
      expect(await h.router.storage.getBalance(otherScope, "USDT")).toBe(0n);
      expect(await balance()).toBe(0n);
    });

    it("answers 404 to a live key on every sandbox endpoint", async () => {
      const invoice = await createInvoice();
      const calls = [
        h.post("/api/v1/sandbox/deposit/create", { address: invoice.address, amount: 100 }, h.liveKey),
        h.post("/api/v1/sandbox/deposit/confirm", { txHash: `0x${"cd".repeat(32)}`, confirmations: 1 }, h.liveKey),
        h.post("/api/v1/sandbox/deposit/drop", { txHash: `0x${"cd".repeat(32)}` }, h.liveKey),
        h.post("/api/v1/sandbox/invoice/expire", { invoiceId: invoice.id }, h.liveKey),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res.status).toBe(404);
        expect(res.body.error).toBe(40402);
      }
      expect(await statusOf(invoice.id)).toBe("PENDING");
    });
  });
});
