import { readFile } from "node:fs/promises";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, expect, it } from "vitest";
import { storageFixtures } from "../../src/testing/index";
import type { Harness } from "../helpers";
import { ADDRESS, paidPayment } from "../http/v1/support";
import { haveChromium } from "../support/chromium";
import { describeIf, NO_CHROMIUM } from "../support/skips";
import { startDashboardBrowser, type DashboardBrowser } from "./browser";
import { dashboardHost } from "./host";

/**
 * The balances and ledger, audit log and exports pages in headless Chromium: axe-core at a
 * phone's and a desktop's width, nothing wider than the screen, and the ledger filter and the
 * export form used as a person would (the pages carry no script). Screenshots go to
 * SHOTS_DIR (default test-artifacts/dashboard/, gitignored).
 */

describeIf(haveChromium, NO_CHROMIUM)("balances, audit log and exports in Chromium", () => {
  let h: Harness;
  let browser: DashboardBrowser;
  let paidId: string;

  beforeAll(async () => {
    h = await dashboardHost();
    browser = await startDashboardBrowser(h.app);
    await h.router.admin.setPayoutApproval(h.merchant.id, { above: "50", currency: "USDT" });
    paidId = (await paidPayment(h, "100")).id;
    h.clock.advanceMinutes(1);
    const held = await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "60", address: ADDRESS });
    await h.router.admin.approvePayout(held.body.id, { by: "ann@shop.example" });
    h.clock.advanceMinutes(1);
    await h.post("/v1/conversions", { fromCurrency: "USDT", toCurrency: "TRX", amount: "5" });
    // A reversal that leaves the live TRX balance below zero, as the page must flag.
    await h.router.storage.transaction((tx) =>
      tx.postLedgerEntries(
        [
          storageFixtures.entry({
            id: "led_reversed",
            merchantId: h.merchant.id,
            mode: "live",
            asset: "TRX",
            amount: -1_250_000n,
            kind: "deposit_reversal",
            causeKey: "deposit:dep_gone:reversal:1",
            createdAt: h.clock.now(),
          }),
        ],
        { overdraw: true },
      ),
    );
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.router.close();
  });

  it("passes axe at 390 and 1280 px on each page, nothing wider than the screen, and takes screenshots", async () => {
    const base = `/m/${h.merchant.id}`;
    const pages = [
      ["balances", "admin", `${base}/balances`],
      ["balances-viewer-test", "viewer", `${base}/balances?mode=test&currency=USDT`],
      ["audit", "viewer", `${base}/audit`],
      ["exports", "viewer", `${base}/exports`],
      ["exports-bad-dates", "admin", `${base}/exports/csv?kind=ledger&from=2026-02-30&to=2026-03-01`],
      ["balances-not-found", "limited", `/m/${h.other.id}/balances`],
    ] as const;
    await browser.checkPages(pages);
  }, 120_000);

  it("flags the balance below zero, filters the ledger with its form and follows an entry to its payment", async () => {
    const { page } = await browser.open("viewer", `/m/${h.merchant.id}/balances`);
    await expect(page.locator("[data-negative-balances]").innerText()).resolves.toContain("TRX (live) -1.25");
    await page.locator('select[name="mode"]').selectOption("test");
    await page.locator('select[name="currency"]').selectOption("USDT");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/mode=test&currency=USDT/);
    // The conversion's debit, the payout's (60 and its fee of 2), the payment's credit.
    await expect(page.locator("[data-entry] [data-amount]").allInnerTexts()).resolves.toEqual(["-5", "-62", "+99.5"]);
    await page.getByRole("link", { name: paidId }).click();
    await page.waitForURL(`${browser.base}/admin/m/${h.merchant.id}/payments/${paidId}`);
    await page.close();
  });

  it("downloads a CSV with the export form, the file holding this merchant's records with exact amounts", async () => {
    const { page } = await browser.open("viewer", `/m/${h.merchant.id}/exports`);
    await page.getByLabel("Records").selectOption("ledger");
    await page.getByLabel("Mode").selectOption("test");
    const day = new Date(h.clock.now()).toISOString().slice(0, 10);
    await page.getByLabel("From").fill(day);
    await page.getByLabel("To").fill(day);
    const [file] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download CSV" }).click()]);
    expect(file.suggestedFilename()).toBe(`ledger_${day}_${day}_${h.merchant.id}_test.csv`);
    const rows = parse(await readFile((await file.path())!, "utf8"), { columns: true }) as Array<Record<string, string>>;
    // Oldest first; the conversion's two entries share a millisecond, so their order is by id.
    expect(rows.map((row) => [row.merchant_id, row.asset, row.direction, row.kind])).toEqual([
      [h.merchant.id, "USDT", "credit", "deposit"],
      [h.merchant.id, "USDT", "debit", "payout"],
      ...[
        [h.merchant.id, "USDT", "debit", "exchange_out"],
        [h.merchant.id, "TRX", "credit", "exchange_in"],
      ].sort((a, b) => (rows[2]!.kind === a[3] ? -1 : rows[2]!.kind === b[3] ? 1 : 0)),
    ]);
    expect(rows[0]!.amount).toBe("99.5");
    expect(rows.find((row) => row.kind === "exchange_out")!.amount).toBe("5");
    await page.close();
  });
});
