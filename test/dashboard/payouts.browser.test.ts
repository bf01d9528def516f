import { afterAll, beforeAll, expect, it } from "vitest";
import { haveChromium } from "../support/chromium";
import { describeIf, NO_CHROMIUM } from "../support/skips";
import type { Harness } from "../helpers";
import { ADDRESS, balances, get, paidPayment } from "../http/v1/support";
import { startDashboardBrowser, type DashboardBrowser } from "./browser";
import { dashboardHost } from "./host";

/**
 * The payouts, refunds, conversions and payment links pages in headless Chromium behind the
 * host's fake login (a cookie), the pages carrying no script: axe-core at a phone's and a
 * desktop's width on each, and the payout form, approve and reject used by clicking.
 * Screenshots go to SHOTS_DIR (default test-artifacts/dashboard/, gitignored).
 */

describeIf(haveChromium, NO_CHROMIUM)("payouts pages in Chromium", () => {
  let h: Harness;
  let browser: DashboardBrowser;
  let heldId: string;
  let refundId: string;
  let linkId: string;

  const withdraw = async (amount: string) => (await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount, address: ADDRESS })).body;

  beforeAll(async () => {
    h = await dashboardHost();
    await h.router.admin.setPayoutApproval(h.merchant.id, { above: "50", currency: "USDT" });
    browser = await startDashboardBrowser(h.app);
    const paid = await paidPayment(h, "400");
    await withdraw("20");
    heldId = (await withdraw("60")).id;
    refundId = (await h.post("/v1/refunds", { paymentId: paid.id, amount: "70", address: ADDRESS })).body.id;
    await h.post("/v1/conversions", { fromCurrency: "USDT", toCurrency: "TRX", amount: "10" });
    linkId = (await h.post("/v1/payment-links", { amount: "25", acceptedCoins: ["USDT", "BTC"] })).body.id;
    await h.post("/v1/payment-links", { amount: "9" }, h.liveKey);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.router.close();
  });

  it("passes axe at 390 and 1280 px on every page, nothing wider than the screen, with no script error", async () => {
    const pages = [
      ["overview-held", "admin", `/m/${h.merchant.id}`],
      ["payouts", "admin", `/m/${h.merchant.id}/payouts`],
      ["payouts-viewer", "viewer", `/m/${h.merchant.id}/payouts?status=AWAITING_APPROVAL`],
      ["payout-held", "admin", `/m/${h.merchant.id}/payouts/${heldId}`],
      ["payout-held-viewer", "viewer", `/m/${h.merchant.id}/payouts/${heldId}`],
      ["refund-held", "admin", `/m/${h.merchant.id}/payouts/${refundId}`],
      ["refunds", "admin", `/m/${h.merchant.id}/refunds`],
      ["conversions", "admin", `/m/${h.merchant.id}/conversions`],
      ["links", "admin", `/m/${h.merchant.id}/links`],
      ["links-viewer", "viewer", `/m/${h.merchant.id}/links`],
      ["approvals", "viewer", "/approvals"],
    ] as const;
    await browser.checkPages(pages, async (page, name) => expect(await page.locator("h1").count(), name).toBe(1));
  }, 120_000);

  it("asks for a payout with the form, is refused approving it, and rejects it: the balance gets amount and fee back", async () => {
    const before = (await balances(h)).USDT!.available;
    const { page } = await browser.open("admin", `/m/${h.merchant.id}/payouts`);
    await page.getByLabel("Mode").first().selectOption("test");
    await page.getByLabel("Coin and network").selectOption("USDT/TRX");
    await page.getByLabel("Amount").fill("51.5");
    await page.getByLabel("To address").fill(ADDRESS);
    await page.getByRole("button", { name: "Request payout" }).click();
    await page.locator(".notice.ok", { hasText: "Payout requested: it waits for approval." }).waitFor();
    const id = /\/payouts\/(po_[A-Za-z0-9]+)/.exec(page.url())![1]!;
    expect((await get(h, `/v1/withdrawals/${id}`)).body).toMatchObject({ status: "AWAITING_APPROVAL", amount: "51.5", fee: "2" });

    await page.getByRole("button", { name: "Approve" }).click();
    await expect(page.locator(".notice.error").innerText()).resolves.toContain("someone else must approve or reject it");
    expect((await get(h, `/v1/withdrawals/${id}`)).body.status).toBe("AWAITING_APPROVAL");

    await page.getByLabel("Reason").fill("Wrong address");
    await page.getByRole("button", { name: "Reject" }).click();
    await expect(page.locator(".notice.ok").innerText()).resolves.toBe("Rejected: 53.5 USDT went back to the balance.");
    await expect(page.locator("[data-status]").innerText()).resolves.toBe("REJECTED");
    expect((await get(h, `/v1/withdrawals/${id}`)).body).toMatchObject({ status: "REJECTED", failureReason: "Wrong address" });
    expect((await balances(h)).USDT!.available).toBe(before);
    await page.close();
  });

  it("approves a held payout from the queue by clicking, and the API follows", async () => {
    const { page } = await browser.open("admin", `/m/${h.merchant.id}`);
    await page.getByRole("link", { name: /awaiting approval/ }).click();
    await page.locator(`[data-held="${heldId}"] a`).click();
    await page.waitForURL(`${browser.base}/admin/m/${h.merchant.id}/payouts/${heldId}`);
    await page.getByRole("button", { name: "Approve" }).click();
    await expect(page.locator(".notice.ok").innerText()).resolves.toBe("Approved: the payout is sent in the next round.");
    expect((await get(h, `/v1/withdrawals/${heldId}`)).body.status).toBe("PROCESSING");
    await page.close();
  });

  it("deactivates a payment link with its button", async () => {
    const { page } = await browser.open("admin", `/m/${h.merchant.id}/links`);
    await page.getByRole("button", { name: `Deactivate ${linkId}` }).click();
    await page.locator(".notice.ok").waitFor();
    await expect(page.locator(`[data-link="${linkId}"] [data-link-state]`).innerText()).resolves.toBe("Deactivated");
    expect((await get(h, `/v1/payment-links/${linkId}`)).body.active).toBe(false);
    await page.close();
  });
});
