import { parse } from "csv-parse/sync";
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { formatDecimal, parseDecimal } from "../../src/money";
import { storageFixtures } from "../../src/testing/index";
import type { Harness } from "../helpers";
import { ADDRESS, balances, paidPayment } from "../http/v1/support";
import { dashboardHost } from "./host";

/**
 * The balances and ledger, audit log and exports pages over HTTP: what each shows, that each
 * keeps to the merchant of its URL whatever the query names, that viewers read and download,
 * and that every CSV reads back with exact decimals.
 */

const REFUND_TO = "TQjw9LfWkygUMPoV5tvokXQX2YLdStctTe";
let h: Harness;
afterEach(async () => h?.router.close());

const page = (path: string, login = "admin") => request(h.app).get(`/admin${path}`).set("x-login", login);
/** A download read back: its response and rows as objects keyed by the header. */
const download = async (path: string, login = "admin") => {
  const res = await page(path, login).buffer(true);
  expect(res.status, res.text).toBe(200);
  const [header, ...rows] = parse(res.text) as string[][];
  return { res, header: header!, rows: rows.map((row) => Object.fromEntries(header!.map((name, i) => [name, row[i]]))) };
};
const ids = (html: string, attribute: string) => [...html.matchAll(new RegExp(`${attribute}="([^"]+)"`, "g"))].map((match) => match[1]);
const today = () => new Date(h.clock.now()).toISOString().slice(0, 10);

describe("dashboard: balances and ledger", () => {
  it("shows balances per coin and mode and the ledger newest first, each entry linked to its record", async () => {
    h = await dashboardHost();
    const paid = await paidPayment(h, "100");
    h.clock.advanceMinutes(1);
    const withdrawal = await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "10.5", address: ADDRESS });
    expect(withdrawal.status, withdrawal.text).toBe(200);
    h.clock.advanceMinutes(1);
    const refund = await h.post("/v1/refunds", { paymentId: paid.id, amount: "20", address: REFUND_TO });
    expect(refund.status, refund.text).toBe(200);
    h.clock.advanceMinutes(1);
    const conversion = await h.post("/v1/conversions", { fromCurrency: "USDT", toCurrency: "TRX", amount: "5" });
    expect(conversion.status, conversion.text).toBe(200);
    // The other merchant's money never shows here.
    await paidPayment({ ...h, testKey: h.otherTestKey }, "50");

    const res = await page(`/m/${h.merchant.id}/balances`);
    expect(res.status).toBe(200);
    const api = await balances(h);
    expect(res.text).toMatch(
      new RegExp(`data-balance="test:USDT"><td>USDT</td><td><span class="tag test">test</span></td><td class="num">${api.USDT!.available}</td>`),
    );
    expect(res.text).toMatch(new RegExp(`data-balance="test:TRX"><td>TRX</td>.*?<td class="num">${api.TRX!.available.replace(".", "\\.")}</td>`));
    expect(res.text).toContain('data-balance="live:USDT"');
    expect(res.text).not.toContain("below zero");

    const entries = [...res.text.matchAll(/<tr data-entry="[^"]+">([\s\S]*?)<\/tr>/g)].map((match) => match[1]!);
    expect(entries).toHaveLength(5);
    const base = `/admin/m/${h.merchant.id}`;
    // Newest first: the conversion's two entries (one millisecond: by id), the refund, the withdrawal, the payment's credit.
    const converted = `Conversion <code>${conversion.body.id}</code>`;
    expect(entries.slice(0, 2)).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`<td class="num bad" data-amount>-5</td><td>USDT</td><td>Converted from</td><td class="nowrap">${converted}</td>`),
        expect.stringContaining(
          `<td class="num" data-amount>+${conversion.body.toAmount}</td><td>TRX</td><td>Converted into</td><td class="nowrap">${converted}</td>`,
        ),
      ]),
    );
    expect(entries[2]).toContain(`Refund <code>${refund.body.id}</code> of payment <a class="mono" href="${base}/payments/${paid.id}">`);
    expect(entries[3]).toContain(`Payout <a class="mono" href="${base}/payouts/${withdrawal.body.id}">${withdrawal.body.id}</a>`);
    // A withdrawal's and a refund's debit are their amount and fee, exactly.
    const debit = (body: { amount: string; fee: string }) => `-${formatDecimal(parseDecimal(body.amount, 6) + parseDecimal(body.fee, 6), 6)}`;
    expect(entries[2]).toContain(`<td class="num bad" data-amount>${debit(refund.body)}</td><td>USDT</td><td>Sent</td>`);
    expect(entries[3]).toContain(`<td class="num bad" data-amount>${debit(withdrawal.body)}</td><td>USDT</td><td>Sent</td>`);
    expect(entries[4]).toContain(
      `<td class="num" data-amount>+99.5</td><td>USDT</td><td>Deposit credited</td><td class="nowrap">Payment <a class="mono" href="${base}/payments/${paid.id}">`,
    );

    // Filters: one mode, one coin.
    const live = await page(`/m/${h.merchant.id}/balances?mode=live`);
    expect(ids(live.text, "data-entry")).toEqual([]);
    expect(live.text).toContain("No ledger entries.");
    const trx = await page(`/m/${h.merchant.id}/balances?currency=trx`);
    expect(ids(trx.text, "data-entry")).toHaveLength(1);
    expect(trx.text).toContain('<option value="TRX" selected>TRX</option>');
  });

  it("pages the ledger with a cursor, each entry once, and flags a balance below zero", async () => {
    h = await dashboardHost();
    const at = h.clock.now();
    // 30 entries of exact amounts, then a reversal that leaves the balance below zero.
    await h.router.storage.transaction(async (tx) => {
      for (let i = 0; i < 30; i++) {
        await tx.postLedgerEntries([
          storageFixtures.entry({
            id: `led_${String(i).padStart(2, "0")}`,
            merchantId: h.merchant.id,
            mode: "test",
            asset: "USDT",
            amount: 1_000_001n,
            causeKey: `deposit:dep_gone_${i}`,
            createdAt: at + i,
          }),
        ]);
      }
      await tx.postLedgerEntries(
        [
          storageFixtures.entry({
            id: "led_rev",
            merchantId: h.merchant.id,
            mode: "test",
            asset: "USDT",
            amount: -40_000_000n,
            kind: "deposit_reversal",
            causeKey: "deposit:dep_gone_0:reversal:1",
            createdAt: at + 31,
          }),
        ],
        { overdraw: true },
      );
    });
    const first = await page(`/m/${h.merchant.id}/balances?mode=test`);
    expect(first.text).toContain("data-negative-balances");
    expect(first.text).toMatch(/A balance is below zero: USDT \(test\) -9\.99997\./);
    expect(first.text).toMatch(/data-balance="test:USDT">.*<td class="num bad">-9\.99997 <span class="tag bad">below zero<\/span>/);
    const seen = ids(first.text, "data-entry");
    expect(seen[0]).toBe("led_rev");
    expect(seen).toHaveLength(25);
    // A cause whose record is not stored shows the cause itself; every amount is exact.
    expect(first.text).toContain(
      '<td class="num" data-amount>+1.000001</td><td>USDT</td><td>Deposit credited</td><td class="nowrap"><code>deposit:dep_gone_29</code>',
    );
    const next = /href="([^"]+)" rel="next">Older entries/.exec(first.text)![1]!.replaceAll("&amp;", "&");
    expect(next).toContain("mode=test");
    const second = await page(next.replace(/^\/admin/, ""));
    seen.push(...ids(second.text, "data-entry"));
    expect(second.text).toContain("End of the list.");
    expect(seen).toEqual(["led_rev", ...Array.from({ length: 30 }, (_, i) => `led_${String(29 - i).padStart(2, "0")}`)]);
  });
});

describe("dashboard: audit log", () => {
  it("shows who did what to which record, newest first, linked, to viewers too, and pages", async () => {
    h = await dashboardHost();
    // After the harness's keys were issued, so the entries' order is known.
    h.clock.advanceMinutes(1);
    await h.router.admin.setPayoutApproval(h.merchant.id, { above: "1", currency: "USDT" });
    await paidPayment(h, "100");
    const held = await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "5", address: ADDRESS });
    expect(held.body.status).toBe("AWAITING_APPROVAL");
    h.clock.advanceMinutes(1);
    await h.router.admin.approvePayout(held.body.id, { by: "ann@shop.example" });
    h.clock.advanceMinutes(1);
    await h.router.admin.issueApiKey(h.other.id, { by: "someone@other.example" });

    const res = await page(`/m/${h.merchant.id}/audit`, "viewer");
    expect(res.status).toBe(200);
    const rows = [...res.text.matchAll(/<tr data-audit="[^"]+">([\s\S]*?)<\/tr>/g)].map((match) => match[1]!);
    // The approval, then the threshold change and the two keys the harness issued; the other merchant's key is not here.
    expect(rows).toHaveLength(4);
    expect(rows[1]).toContain(
      '<td>Changed the payout approval threshold</td><td class="nowrap">Merchant settings</td><td class="mono nowrap">host</td><td><span class="muted">both</span></td>',
    );
    expect(rows[0]).toContain(
      `<td>Approved a payout</td><td class="nowrap">Payout <a class="mono" href="/admin/m/${h.merchant.id}/payouts/${held.body.id}">${held.body.id}</a></td><td class="mono nowrap">ann@shop.example</td><td><span class="tag test">test</span></td>`,
    );
    expect(rows[2]).toMatch(
      new RegExp(
        `<td>Issued an API key</td><td class="nowrap">Key <a class="mono" href="/admin/m/${h.merchant.id}/keys">key_[A-Za-z0-9]+</a></td><td class="mono nowrap">host</td>`,
      ),
    );
    expect(res.text).not.toContain("someone@other.example");
    expect(res.text).not.toContain('method="post"');

    await h.router.storage.transaction(async (tx) => {
      for (let i = 0; i < 30; i++) {
        await tx.insertAuditEntry(
          storageFixtures.auditEntryOf({
            id: `aud_${String(i).padStart(2, "0")}`,
            merchantId: h.merchant.id,
            recordId: `po_gone_${i}`,
            at: h.clock.now() + 1000 + i,
          }),
        );
      }
    });
    const first = await page(`/m/${h.merchant.id}/audit`, "viewer");
    const seen = ids(first.text, "data-audit");
    expect(seen).toHaveLength(25);
    // A payout no longer found in this merchant's scope is named, not linked.
    expect(first.text).toContain('<td class="nowrap"><code>po_gone_29</code></td>');
    const next = /href="([^"]+)" rel="next">Older entries/.exec(first.text)![1]!;
    const second = await page(next.replace(/^\/admin/, ""), "viewer");
    seen.push(...ids(second.text, "data-audit"));
    expect(seen.slice(0, 30)).toEqual(Array.from({ length: 30 }, (_, i) => `aud_${String(29 - i).padStart(2, "0")}`));
    expect(seen).toHaveLength(34);
  });
});

describe("dashboard: exports", () => {
  it("downloads this merchant's records as CSV with exact decimals, for viewers too", async () => {
    h = await dashboardHost();
    const paid = await paidPayment(h, "100.25");
    await paidPayment({ ...h, testKey: h.otherTestKey }, "77");

    const form = await page(`/m/${h.merchant.id}/exports`, "viewer");
    expect(form.status).toBe(200);
    expect(form.text).toContain(`action="/admin/m/${h.merchant.id}/exports/csv"`);
    expect(form.text).toContain(`name="to" value="${today()}"`);
    expect(form.text).toContain('<option value="audit">Audit log</option>');

    const day = today();
    const payments = await download(`/m/${h.merchant.id}/exports/csv?kind=payments&from=${day}&to=${day}&mode=`, "viewer");
    expect(payments.res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    // Express 4 quotes the file name, Express 5 does not need to.
    expect(payments.res.headers["content-disposition"]).toMatch(new RegExp(`^attachment; filename=("?)payments_${day}_${day}_${h.merchant.id}\\.csv\\1$`));
    expect(payments.rows).toEqual([
      expect.objectContaining({ id: paid.id, merchant_id: h.merchant.id, mode: "test", amount: "100.25", received_amount: "100.25" }),
    ]);

    const ledger = await download(`/m/${h.merchant.id}/exports/csv?kind=ledger&from=${day}&to=${day}&mode=test`, "viewer");
    expect(ledger.rows).toEqual([
      expect.objectContaining({
        merchant_id: h.merchant.id,
        asset: "USDT",
        direction: "credit",
        amount: "99.74875",
        cause: expect.stringMatching(/^deposit:/),
      }),
    ]);
    expect(ledger.res.headers["content-disposition"]).toContain(`ledger_${day}_${day}_${h.merchant.id}_test.csv`);

    const audit = await download(`/m/${h.merchant.id}/exports/csv?kind=audit&from=${day}&to=${day}`);
    expect(audit.header).toEqual(["id", "merchant_id", "mode", "at", "actor", "action", "record_type", "record_id"]);
    expect(audit.rows.map((row) => [row.merchant_id, row.action, row.record_type])).toEqual([
      [h.merchant.id, "api_key.issued", "api_key"],
      [h.merchant.id, "api_key.issued", "api_key"],
    ]);
    const live = await download(`/m/${h.merchant.id}/exports/csv?kind=ledger&from=${day}&to=${day}&mode=live`);
    expect(live.rows).toEqual([]);
  });

  it("answers a 400 page naming the problem for bad dates or kinds, and never another merchant's records", async () => {
    h = await dashboardHost();
    await paidPayment({ ...h, testKey: h.otherTestKey }, "77");
    const day = today();
    const base = `/m/${h.merchant.id}/exports/csv`;

    const impossible = await page(`${base}?kind=payments&from=2026-02-30&to=2026-03-01`);
    expect(impossible.status).toBe(400);
    expect(impossible.headers["content-type"]).toMatch(/^text\/html/);
    expect(impossible.text).toContain("No file: from must be a calendar day as &quot;YYYY-MM-DD&quot; (UTC), not &quot;2026-02-30&quot;.");
    // The form comes back with what was asked, to correct it.
    expect(impossible.text).toContain('name="from" value="2026-02-30"');
    const reversed = await page(`${base}?kind=payments&from=2026-03-02&to=2026-03-01`);
    expect(reversed.status).toBe(400);
    expect(reversed.text).toContain("from (2026-03-02) is after to (2026-03-01)");
    expect((await page(`${base}?kind=secrets&from=${day}&to=${day}`)).text).toContain(
      "kind must be one of payments, deposits, payouts, refunds, conversions, ledger, audit",
    );
    expect((await page(`${base}?kind=payments&from=${day}`)).status).toBe(400);
    expect((await page(`${base}?kind=payments&from=${day}&to=${day}&mode=prod`)).text).toContain("mode must be &quot;test&quot; or &quot;live&quot;");

    // A merchant named in the query is not read: the file is the URL's merchant's, here empty.
    const own = await download(`${base}?kind=payments&from=${day}&to=${day}&merchantId=${h.other.id}`, "limited");
    expect(own.rows).toEqual([]);
    expect(own.res.headers["content-disposition"]).toContain(`_${h.merchant.id}.csv`);
  });
});

describe("dashboard: ledger, audit and exports keep to the user's merchants", () => {
  it("answers 404 for another merchant's pages and downloads, and a viewer's post changes nothing", async () => {
    h = await dashboardHost();
    await paidPayment({ ...h, testKey: h.otherTestKey }, "77");
    const day = today();
    for (const path of ["balances", "audit", "exports", `exports/csv?kind=ledger&from=${day}&to=${day}`]) {
      const res = await page(`/m/${h.other.id}/${path}`, "limited");
      expect(res.status, path).toBe(404);
      expect(res.text).toContain("There is nothing here, or you may not see it.");
      expect(res.text).not.toContain("Other shop");
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
    }
    // The other merchant's ledger entry id as a cursor shows nothing of theirs.
    const theirs = await h.router.storage.listLedgerEntries({ merchantId: h.other.id, mode: "test" });
    const mine = await page(`/m/${h.merchant.id}/balances?cursor=test:${theirs[0]!.id}`, "limited");
    expect(mine.status).toBe(200);
    expect(ids(mine.text, "data-entry")).toEqual([]);
    expect(mine.text).not.toContain(theirs[0]!.id);
    // A user of both merchants sees each one's own ledger on its own page.
    expect(ids((await page(`/m/${h.other.id}/balances`, "both")).text, "data-entry")).toEqual([theirs[0]!.id]);
    expect(ids((await page(`/m/${h.merchant.id}/balances`, "both")).text, "data-entry")).toEqual([]);

    const post = await request(h.app).post(`/admin/m/${h.merchant.id}/exports`).set("x-login", "viewer").type("form").send({ kind: "ledger" });
    expect(post.status).toBe(403);
  });
});
