import { mkdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { haveChromium, launchChromium, listen, type LaunchedChromium, type Listening } from "../support/chromium";
import { describeIf, NO_CHROMIUM } from "../support/skips";
import type { Harness } from "../helpers";
import { ADDRESS, balances, get, paidPayment } from "../http/v1/support";
import { dashboardHost } from "./host";

/**
 * The payouts, refunds, conversions and payment links pages in headless Chromium behind the
 * host's fake login (a cookie), JavaScript off as the default: axe-core at a phone's and a
 * desktop's width on each, and the payout form, approve and reject used by clicking.
 * Screenshots go to SHOTS_DIR (default test-artifacts/dashboard/, gitignored).
 */

const SHOTS = process.env.SHOTS_DIR ?? "test-artifacts/dashboard";
const WIDTHS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 900 },
] as const;

describeIf(haveChromium, NO_CHROMIUM)("payouts pages in Chromium", () => {
  let h: Harness;
  let server: Listening;
  let launched: LaunchedChromium;
  let browser: BrowserContext;
  let axeSource: string;
  let heldId: string;
  let refundId: string;
  let linkId: string;

  const withdraw = async (amount: string) => (await h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount, address: ADDRESS })).body;

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    axeSource = await readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
    h = await dashboardHost();
    await h.router.admin.setPayoutApproval(h.merchant.id, { above: "50", currency: "USDT" });
    server = await listen(h.app);
    launched = await launchChromium({ viewport: WIDTHS[0] });
    browser = launched.context;
    const paid = await paidPayment(h, "400");
    await withdraw("20");
    heldId = (await withdraw("60")).id;
    refundId = (await h.post("/v1/refunds", { paymentId: paid.id, amount: "70", address: ADDRESS })).body.id;
    await h.post("/v1/conversions", { fromCurrency: "USDT", toCurrency: "TRX", amount: "10" });
    linkId = (await h.post("/v1/payment-links", { amount: "25", acceptedCoins: ["USDT", "BTC"] })).body.id;
    await h.post("/v1/payment-links", { amount: "9" }, h.liveKey);
  }, 60_000);

  afterAll(async () => {
    await launched?.close();
    await server?.close();
    await h?.router.close();
  });

  /** Opens a page as this user (the login cookie), recording script errors. */
  async function open(login: string, path: string): Promise<{ page: Page; problems: string[] }> {
    await browser.clearCookies();
    await browser.addCookies([{ name: "login", value: login, url: server.base }]);
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      // A refused action answers a document with its status, which Chromium also logs.
      if (message.type() === "error" && !/^Failed to load resource: .* status of 4\d\d /.test(message.text())) problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(`${server.base}/admin${path}`);
    return { page, problems };
  }

  /** axe-core's serious and critical violations of the page as shown. */
  async function violations(page: Page): Promise<string[]> {
    await page.evaluate(axeSource);
    const result = await page.evaluate<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }>(
      "axe.run(document, { resultTypes: ['violations'] })",
    );
    return result.violations
      .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
      .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
  }

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
    for (const [name, login, path] of pages) {
      const { page, problems } = await open(login, path);
      expect(await page.locator("h1").count(), name).toBe(1);
      for (const size of WIDTHS) {
        await page.setViewportSize(size);
        expect(await violations(page), `${name} at ${size.width}`).toEqual([]);
        expect(await page.evaluate<number>("document.documentElement.scrollWidth"), `${name} at ${size.width}`).toBeLessThanOrEqual(size.width);
        await page.screenshot({ path: `${SHOTS}/${name}-${size.width}.png`, fullPage: true });
      }
      expect(problems, name).toEqual([]);
      await page.close();
    }
  }, 120_000);

  it("asks for a payout with the form, is refused approving it, and rejects it: the balance gets amount and fee back", async () => {
    const before = (await balances(h)).USDT!.available;
    const { page } = await open("admin", `/m/${h.merchant.id}/payouts`);
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
    const { page } = await open("admin", `/m/${h.merchant.id}`);
    await page.getByRole("link", { name: /awaiting approval/ }).click();
    await page.locator(`[data-held="${heldId}"] a`).click();
    await page.waitForURL(`${server.base}/admin/m/${h.merchant.id}/payouts/${heldId}`);
    await page.getByRole("button", { name: "Approve" }).click();
    await expect(page.locator(".notice.ok").innerText()).resolves.toBe("Approved: the payout is sent in the next round.");
    expect((await get(h, `/v1/withdrawals/${heldId}`)).body.status).toBe("PROCESSING");
    await page.close();
  });

  it("deactivates a payment link with its button", async () => {
    const { page } = await open("admin", `/m/${h.merchant.id}/links`);
    await page.getByRole("button", { name: `Deactivate ${linkId}` }).click();
    await page.locator(".notice.ok").waitFor();
    await expect(page.locator(`[data-link="${linkId}"] [data-link-state]`).innerText()).resolves.toBe("Deactivated");
    expect((await get(h, `/v1/payment-links/${linkId}`)).body.active).toBe(false);
    await page.close();
  });
});
