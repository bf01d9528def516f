/**
 * payments.admin.export: each kind's columns and exact amounts, the range's edges in UTC, the
 * merchant and mode filters, the formula guard and request checks, every file read back with a
 * real CSV parser.
 */
import { text } from "node:stream/consumers";
import { parse } from "csv-parse/sync";
import { afterEach, describe, expect, it } from "vitest";
import { memoryStorage } from "../../../src/adapters/storage/memory/index";
import { createPaymentRouter, type PaymentRouter } from "../../../src/index";
import { EXPORT_COLUMNS, type ExportRequest } from "../../../src/operator";
import { storageFixtures } from "../../../src/testing/index";

const { auditEntryOf, deposit, entry, exchange, invoice, payout } = storageFixtures;

const DAY_START = Date.parse("2026-03-01T00:00:00.000Z");
const DAY_END = Date.parse("2026-03-01T23:59:59.999Z");
const routers: PaymentRouter[] = [];

function router(): PaymentRouter {
  const payments = createPaymentRouter({ storage: memoryStorage(), backgroundIntervalMs: false });
  routers.push(payments);
  return payments;
}

afterEach(async () => {
  for (const payments of routers.splice(0)) await payments.close();
});

/** The export read back: its header and rows as objects keyed by column. */
async function exported(payments: PaymentRouter, request: ExportRequest) {
  const csv = payments.admin.export(request);
  const body = await text(csv.stream);
  const lines = parse(body, { relax_column_count: false }) as string[][];
  const [header, ...rows] = lines;
  expect(header).toEqual([...csv.columns]);
  return { csv, body, rows: rows.map((row) => Object.fromEntries(header!.map((name, i) => [name, row[i]]))) };
}

const MARCH_1 = { from: "2026-03-01", to: "2026-03-01" };

describe("payments.admin.export", () => {
  it("writes payments with exact amounts, UTC times, the order id and the metadata as JSON", async () => {
    const payments = router();
    await payments.storage.transaction(async (tx) => {
      await tx.insertInvoice(
        invoice({
          id: "inv_a",
          createdAt: DAY_START,
          updatedAt: DAY_START + 1,
          amount: 123_456_789_012_345_678_901n,
          amountCurrency: "USD",
          coin: "ETH",
          network: "ETH",
          rate: 2_500_123_456_789_012_345_678n,
          rateAt: DAY_START - 1000,
          payAmount: 1_000_000_000_000_000_001n,
          receivedAmount: 1_000_000_000_000_000_003n,
          status: "PAID",
          metadata: { orderId: "A-17", note: 'line one\nline two, with "quotes"' },
        }),
      );
    });
    const { csv, rows } = await exported(payments, { kind: "payments", ...MARCH_1 });
    expect(csv.columns).toEqual(EXPORT_COLUMNS.payments);
    expect(csv.filename).toBe("payments_2026-03-01_2026-03-01.csv");
    expect(csv.contentType).toBe("text/csv; charset=utf-8");
    expect(rows).toEqual([
      expect.objectContaining({
        id: "inv_a",
        merchant_id: "m_1",
        mode: "test",
        status: "PAID",
        created_at: "2026-03-01T00:00:00.000Z",
        updated_at: "2026-03-01T00:00:00.001Z",
        amount: "1234567890123456789.01",
        amount_currency: "USD",
        currency: "ETH",
        chain: "ETH",
        rate: "2500.123456789012345678",
        rate_at: "2026-02-28T23:59:59.000Z",
        pay_amount: "1.000000000000000001",
        received_amount: "1.000000000000000003",
        overpaid_amount: "0.000000000000000002",
        reversed_amount: "0",
        fee_paid_by_payer: "false",
        white_label: "true",
        tx_hash: "",
        order_id: "A-17",
        metadata: '{"orderId":"A-17","note":"line one\\nline two, with \\"quotes\\""}',
      }),
    ]);
    expect(csv.rows).toBe(1);
  });

  it("writes deposits, payouts, refunds, conversions and ledger entries with their columns and exact amounts", async () => {
    const payments = router();
    await payments.storage.transaction(async (tx) => {
      await tx.insertDeposit(
        deposit({
          id: "dep_a",
          coin: "USDT",
          network: "TRX",
          amount: 1_234_567n,
          fee: 6_172n,
          status: "CONFIRMED",
          confirmations: 19,
          seenAt: DAY_START + 5,
          creditedAt: DAY_START + 60_000,
          creditedAsset: "BTC",
          creditedAmount: 1_900n,
          updatedAt: DAY_START + 60_000,
          txHash: "0xdep",
          outputIndex: 3,
        }),
      );
      await tx.insertPayout(payout({ id: "po_a", coin: "BTC", network: "BTC", amount: 2_100_000_000_000_000n, fee: 10_000n, createdAt: DAY_START + 7 }));
      await tx.insertPayout(
        payout({
          id: "po_r",
          coin: "ETH",
          network: "ETH",
          amount: 1n,
          fee: 0n,
          refundOf: "inv_1",
          refundDepositId: "dep_a",
          createdAt: DAY_START + 8,
          status: "FAILED",
          failureReason: "reverted",
        }),
      );
      await tx.insertExchange(
        exchange({
          id: "ex_a",
          fromCoin: "BTC",
          toCoin: "USDT",
          amount: 150_000_000n,
          rate: 65_000_500_000_000_000_000_000n,
          toAmount: 97_500_750_000n,
          createdAt: DAY_START + 9,
        }),
      );
      await tx.postLedgerEntries([entry({ id: "le_c", causeKey: "deposit:dep_a", asset: "USDT", amount: 1_228_395n, createdAt: DAY_START + 10 })]);
      await tx.postLedgerEntries([
        entry({ id: "le_d", causeKey: "payout:po_a", asset: "USDT", amount: -1_000_001n, kind: "payout", createdAt: DAY_START + 11 }),
      ]);
    });

    const deposits = await exported(payments, { kind: "deposits", ...MARCH_1 });
    expect(deposits.rows).toEqual([
      {
        id: "dep_a",
        merchant_id: "m_1",
        mode: "test",
        payment_id: "inv_1",
        status: "CONFIRMED",
        created_at: "2026-03-01T00:00:00.005Z",
        credited_at: "2026-03-01T00:01:00.000Z",
        updated_at: "2026-03-01T00:01:00.000Z",
        currency: "USDT",
        chain: "TRX",
        amount: "1.234567",
        fee: "0.006172",
        credited_currency: "BTC",
        credited_amount: "0.000019",
        counts_toward_payment: "true",
        confirmations: "19",
        reversals: "0",
        address: "bc1qexample",
        tx_hash: "0xdep",
        output_index: "3",
      },
    ]);
    expect((await exported(payments, { kind: "payouts", ...MARCH_1 })).rows).toEqual([
      {
        id: "po_a",
        merchant_id: "m_1",
        mode: "test",
        status: "PROCESSING",
        created_at: "2026-03-01T00:00:00.007Z",
        updated_at: "2023-11-14T22:13:20.000Z",
        currency: "BTC",
        chain: "BTC",
        amount: "21000000",
        fee: "0.0001",
        address: "bc1qdest",
        tx_hash: "",
        failure_reason: "",
      },
    ]);
    expect((await exported(payments, { kind: "refunds", ...MARCH_1 })).rows).toEqual([
      expect.objectContaining({
        id: "po_r",
        payment_id: "inv_1",
        deposit_id: "dep_a",
        status: "FAILED",
        amount: "0.000000000000000001",
        fee: "0",
        failure_reason: "reverted",
      }),
    ]);
    expect((await exported(payments, { kind: "conversions", ...MARCH_1 })).rows).toEqual([
      {
        id: "ex_a",
        merchant_id: "m_1",
        mode: "test",
        status: "SUCCESS",
        created_at: "2026-03-01T00:00:00.009Z",
        from_currency: "BTC",
        amount: "1.5",
        to_currency: "USDT",
        to_amount: "97500.75",
        rate: "65000.5",
        payment_id: "",
      },
    ]);
    expect((await exported(payments, { kind: "ledger", ...MARCH_1 })).rows).toEqual([
      {
        id: "le_c",
        merchant_id: "m_1",
        mode: "test",
        created_at: "2026-03-01T00:00:00.010Z",
        asset: "USDT",
        direction: "credit",
        amount: "1.228395",
        kind: "deposit",
        cause: "deposit:dep_a",
      },
      {
        id: "le_d",
        merchant_id: "m_1",
        mode: "test",
        created_at: "2026-03-01T00:00:00.011Z",
        asset: "USDT",
        direction: "debit",
        amount: "1.000001",
        kind: "payout",
        cause: "payout:po_a",
      },
    ]);
  });

  it("covers whole UTC days: 00:00:00.000 of from to 23:59:59.999 of to, nothing a millisecond outside", async () => {
    const payments = router();
    await payments.storage.transaction(async (tx) => {
      await tx.insertPayout(payout({ id: "po_before", createdAt: DAY_START - 1 }));
      await tx.insertPayout(payout({ id: "po_start", createdAt: DAY_START }));
      await tx.insertPayout(payout({ id: "po_end", createdAt: DAY_END + 86_400_000 }));
      await tx.insertPayout(payout({ id: "po_after", createdAt: DAY_END + 86_400_001 }));
    });
    const two = await exported(payments, { kind: "payouts", from: "2026-03-01", to: "2026-03-02" });
    expect(two.rows.map((row) => row.id)).toEqual(["po_start", "po_end"]);
    const one = await exported(payments, { kind: "payouts", from: "2026-03-02", to: "2026-03-02" });
    expect(one.rows.map((row) => [row.id, row.created_at])).toEqual([["po_end", "2026-03-02T23:59:59.999Z"]]);
    // A range with nothing in it is the header alone.
    const none = await exported(payments, { kind: "payouts", from: "2026-03-05", to: "2026-03-09" });
    expect(none.body).toBe(`${EXPORT_COLUMNS.payouts.join(",")}\r\n`);
  });

  it("keeps to one merchant and one mode when asked, and names the file after them", async () => {
    const payments = router();
    await payments.storage.transaction(async (tx) => {
      await tx.insertExchange(exchange({ id: "ex_1t", createdAt: DAY_START + 1 }));
      await tx.insertExchange(exchange({ id: "ex_1l", mode: "live", createdAt: DAY_START + 2 }));
      await tx.insertExchange(exchange({ id: "ex_2t", merchantId: "m_2", createdAt: DAY_START + 3 }));
      await tx.insertExchange(exchange({ id: "ex_2l", merchantId: "m_2", mode: "live", createdAt: DAY_START + 4 }));
    });
    const ids = async (request: Partial<ExportRequest>) =>
      (await exported(payments, { kind: "conversions", ...MARCH_1, ...request })).rows.map((row) => row.id);
    expect(await ids({})).toEqual(["ex_1t", "ex_1l", "ex_2t", "ex_2l"]);
    expect(await ids({ merchantId: "m_2" })).toEqual(["ex_2t", "ex_2l"]);
    expect(await ids({ mode: "live" })).toEqual(["ex_1l", "ex_2l"]);
    expect(await ids({ merchantId: "m_1", mode: "test" })).toEqual(["ex_1t"]);
    expect(payments.admin.export({ kind: "conversions", ...MARCH_1, merchantId: "m_2", mode: "live" }).filename).toBe(
      "conversions_2026-03-01_2026-03-01_m_2_live.csv",
    );
    // An id that could not sit in a header safely is left out of the name.
    expect(payments.admin.export({ kind: "conversions", ...MARCH_1, merchantId: 'm"; x=1' }).filename).toBe("conversions_2026-03-01_2026-03-01.csv");
  });

  it("pages through more records than one storage read holds, each once, in (time, id) order", async () => {
    const payments = router();
    const count = 1234;
    await payments.storage.transaction(async (tx) => {
      // Three records per millisecond, stored newest first: order comes from (time, id), not insertion.
      for (let i = count - 1; i >= 0; i--) await tx.insertPayout(payout({ id: `po_${String(i).padStart(5, "0")}`, createdAt: DAY_START + Math.floor(i / 3) }));
    });
    const { rows, csv } = await exported(payments, { kind: "payouts", ...MARCH_1 });
    expect(rows.map((row) => row.id)).toEqual(Array.from({ length: count }, (_, i) => `po_${String(i).padStart(5, "0")}`));
    expect(csv.rows).toBe(count);
  });

  it("neutralises values from outside that a spreadsheet would run as formulas, and quotes what CSV needs quoted", async () => {
    const payments = router();
    const hostile = ['=HYPERLINK("http://evil")', "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx", "＝1"];
    await payments.storage.transaction(async (tx) => {
      for (const [i, value] of hostile.entries()) {
        await tx.insertPayout(payout({ id: `po_${i}`, createdAt: DAY_START + i, address: value, failureReason: `${value}, again` }));
      }
      await tx.insertInvoice(invoice({ createdAt: DAY_START, metadata: { orderId: "=cmd|' /C calc'!A0" } }));
    });
    const { rows } = await exported(payments, { kind: "payouts", ...MARCH_1 });
    expect(rows.map((row) => row.address)).toEqual(hostile.map((value) => `'${value}`));
    expect(rows.map((row) => row.failure_reason)).toEqual(hostile.map((value) => `'${value}, again`));
    const invoices = await exported(payments, { kind: "payments", ...MARCH_1 });
    expect(invoices.rows[0]!.order_id).toBe("'=cmd|' /C calc'!A0");
    // Amounts are the service's own digits, never prefixed (the ledger writes a debit's sign in its own column).
    expect(rows.map((row) => row.amount)).toEqual(hostile.map(() => "0.0000005"));
  });

  it("writes the audit log: who did what to which record, the record's type from the action", async () => {
    const payments = createPaymentRouter({ storage: memoryStorage(), backgroundIntervalMs: false, now: () => DAY_START + 60_000 });
    routers.push(payments);
    const merchant = await payments.admin.createMerchant({ name: "Audited" });
    // A real entry, made by issuing a key, and stored ones at the range's edges and of another merchant.
    const issued = await payments.admin.issueApiKey(merchant.id, { mode: "live" });
    await payments.storage.transaction(async (tx) => {
      await tx.insertAuditEntry(
        auditEntryOf({ id: "aud_first", at: DAY_START, merchantId: merchant.id, actor: "dashboard:ann@example.com", recordId: "po_1" }),
      );
      await tx.insertAuditEntry(
        auditEntryOf({ id: "aud_last", at: DAY_END, merchantId: merchant.id, action: "payout.rejected", actor: "=HYPERLINK()", recordId: "po_2" }),
      );
      await tx.insertAuditEntry(auditEntryOf({ id: "aud_after", at: DAY_END + 1, merchantId: merchant.id }));
      await tx.insertAuditEntry(auditEntryOf({ id: "aud_other", at: DAY_START + 5, merchantId: "m_other" }));
    });
    const { csv, rows } = await exported(payments, { kind: "audit", ...MARCH_1, merchantId: merchant.id, mode: "test" });
    expect(csv.columns).toEqual(["id", "merchant_id", "mode", "at", "actor", "action", "record_type", "record_id"]);
    expect(csv.filename).toBe(`audit_2026-03-01_2026-03-01_${merchant.id}_test.csv`);
    expect(rows).toEqual([
      {
        id: "aud_first",
        merchant_id: merchant.id,
        mode: "test",
        at: "2026-03-01T00:00:00.000Z",
        actor: "dashboard:ann@example.com",
        action: "payout.approved",
        record_type: "payout",
        record_id: "po_1",
      },
      // The formula guard covers an actor name, which the host chose.
      {
        id: "aud_last",
        merchant_id: merchant.id,
        mode: "test",
        at: "2026-03-01T23:59:59.999Z",
        actor: "'=HYPERLINK()",
        action: "payout.rejected",
        record_type: "payout",
        record_id: "po_2",
      },
    ]);
    const live = await exported(payments, { kind: "audit", ...MARCH_1, mode: "live" });
    expect(live.rows).toEqual([
      {
        id: expect.stringMatching(/^aud_/),
        merchant_id: merchant.id,
        mode: "live",
        at: "2026-03-01T00:01:00.000Z",
        actor: "host",
        action: "api_key.issued",
        record_type: "api_key",
        record_id: issued.id,
      },
    ]);
  });

  it("refuses a bad request with a TypeError naming what is wrong, before reading anything", () => {
    const payments = router();
    const bad = (request: unknown, message: RegExp) => expect(() => payments.admin.export(request as ExportRequest)).toThrow(new RegExp(message.source));
    expect(() => payments.admin.export({ kind: "audits" as "payments", ...MARCH_1 })).toThrow(TypeError);
    bad({ kind: "audits", ...MARCH_1 }, /kind must be one of payments, deposits, payouts, refunds, conversions, ledger, audit, not "audits"/);
    bad({ kind: "payments", from: "2026-3-1", to: "2026-03-01" }, /from must be a calendar day as "YYYY-MM-DD" \(UTC\), not "2026-3-1"/);
    bad({ kind: "payments", from: "2026-02-29", to: "2026-03-01" }, /from must be a calendar day/);
    bad({ kind: "payments", from: "2026-03-01", to: "2026-03-01T00:00:00Z" }, /to must be a calendar day/);
    bad({ kind: "payments", from: "2026-03-01" }, /to must be a calendar day .* not undefined/);
    bad({ kind: "payments", from: "2026-03-02", to: "2026-03-01" }, /from \(2026-03-02\) is after to \(2026-03-01\)/);
    bad({ kind: "payments", from: "2024-01-01", to: "2025-01-01" }, /the range covers 367 days; one export covers at most 366/);
    bad({ kind: "payments", ...MARCH_1, mode: "prod" }, /mode must be "test" or "live"/);
    bad({ kind: "payments", ...MARCH_1, merchantId: "" }, /merchantId must be a merchant's id/);
    bad({ kind: "payments", ...MARCH_1, merchant: "m_1" }, /unknown field "merchant"/);
    bad(null, /expected \{ kind, from, to, merchantId\?, mode\? \}/);
    // A leap year is one export; 2024-02-29 is a day.
    expect(payments.admin.export({ kind: "payments", from: "2024-01-01", to: "2024-12-31" }).filename).toBe("payments_2024-01-01_2024-12-31.csv");
  });
});
