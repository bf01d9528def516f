import { afterAll, beforeAll, expect, it } from "vitest";
import type { Harness } from "../helpers";
import { createPayment, deposit, get, paidPayment } from "../http/v1/support";
import { haveChromium } from "../support/chromium";
import { describeIf, NO_CHROMIUM } from "../support/skips";
import { startDashboardBrowser, type DashboardBrowser } from "./browser";
import { dashboardHost } from "./host";

/**
 * The dashboard in a real headless Chromium behind the host's fake login (a cookie): every page
 * at a phone's and a desktop's width checked by axe-core, the forms used as a person would
 * (and tampered with as an attacker would), with no script on the pages to lean on. Screenshots go to
 * SHOTS_DIR (default test-artifacts/dashboard/, gitignored).
 */

const REFUND_TO = "TQjw9LfWkygUMPoV5tvokXQX2YLdStctTe";

describeIf(haveChromium, NO_CHROMIUM)("merchant dashboard in Chromium", () => {
  let h: Harness;
  let browser: DashboardBrowser;
  let paidId: string;

  beforeAll(async () => {
    h = await dashboardHost();
    browser = await startDashboardBrowser(h.app);
    paidId = (await paidPayment(h, "100", "USDT", "TRX", { metadata: { orderId: "A-1001" } })).id;
    await paidPayment(h, "400");
    // An endpoint nothing listens on: its deliveries fail, as the webhooks page then shows.
    await h.post("/v1/webhook-endpoints", { url: "http://127.0.0.1:9/hook" });
    const pending = await createPayment(h, { amount: "12.5", currency: "USDT", chain: "TRX" });
    await deposit(h, pending.address!, "5", 2);
    await h.router.tick();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.router.close();
  });

  it("passes axe at 390 and 1280 px on every page, with no script error, and takes screenshots", async () => {
    const pages = [
      ["overview", "admin", `/m/${h.merchant.id}`],
      ["payments", "admin", `/m/${h.merchant.id}/payments`],
      ["payment", "admin", `/m/${h.merchant.id}/payments/${paidId}`],
      ["payment-viewer", "viewer", `/m/${h.merchant.id}/payments/${paidId}`],
      ["keys", "admin", `/m/${h.merchant.id}/keys`],
      ["webhooks", "admin", `/m/${h.merchant.id}/webhooks`],
      ["limited-overview", "limited", `/m/${h.merchant.id}`],
      ["choose", "admin", "/"],
      ["not-found", "limited", `/m/${h.other.id}`],
      ["forbidden", "nobody", `/m/${h.merchant.id}`],
    ] as const;
    await browser.checkPages(pages);
  }, 120_000);

  it("is usable by keyboard: the skip link comes first, then the navigation", async () => {
    const { page } = await browser.open("admin", `/m/${h.merchant.id}`);
    await page.keyboard.press("Tab");
    await expect(page.evaluate<string>("document.activeElement.textContent")).resolves.toBe("Skip to content");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await expect(page.evaluate<string>("document.activeElement.textContent")).resolves.toBe("Overview");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.waitForURL(`${browser.base}/admin/m/${h.merchant.id}/payments`);
    await expect(page.locator("h1").innerText()).resolves.toBe("Payments");
    await page.close();
  });

  it("filters and finds payments with its forms", async () => {
    const { page } = await browser.open("viewer", `/m/${h.merchant.id}/payments`);
    await page.locator('select[name="status"]').selectOption("PAID");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/status=PAID/);
    await expect(page.locator("[data-payment]").count()).resolves.toBe(2);
    await page.locator('input[name="q"]').fill(paidId);
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(`${browser.base}/admin/m/${h.merchant.id}/payments/${paidId}`);
    await expect(page.locator("[data-status]").innerText()).resolves.toBe("PAID");
    await page.close();
  });

  it("issues and revokes a key with its buttons, and the API follows", async () => {
    const { page } = await browser.open("admin", `/m/${h.merchant.id}/keys`);
    await page.locator('select[name="mode"]').selectOption("test");
    await page.getByRole("button", { name: "Issue a key" }).click();
    const key = await page.locator("[data-issued-key]").innerText();
    expect((await get(h, "/v1/balances", key)).status).toBe(200);
    const prefix = key.slice(0, 12);
    await page
      .getByRole("button", { name: `Revoke ${(await h.router.admin.listApiKeys(h.merchant.id)).find((entry) => key.startsWith(entry.prefix))!.prefix}` })
      .click();
    await page.locator(".notice.ok", { hasText: "revoked" }).waitFor();
    expect(prefix).toMatch(/^sk_test_/);
    expect((await get(h, "/v1/balances", key)).status).toBe(401);
    await page.close();
  });

  it("refunds from the payment page, and the API lists the refund", async () => {
    const { page } = await browser.open("admin", `/m/${h.merchant.id}/payments/${paidId}`);
    await page.getByLabel("Amount (USDT)").fill("25");
    await page.getByLabel("To address").fill(REFUND_TO);
    await page.getByRole("button", { name: "Refund" }).click();
    const text = await page.locator(".notice.ok").innerText();
    const refundId = /Refund (po_[A-Za-z0-9]+) of 25 USDT started\./.exec(text)![1]!;
    expect((await get(h, `/v1/refunds/${refundId}`)).body).toMatchObject({ paymentId: paidId, amount: "25" });
    await page.close();
  });

  it("refuses a form stripped of its CSRF token, and a limited user's edited form or URL, changing nothing", async () => {
    const before = await h.router.admin.listApiKeys(h.merchant.id);
    const { page } = await browser.open("admin", `/m/${h.merchant.id}/keys`);
    await page.evaluate("document.querySelectorAll('input[name=_csrf]').forEach((input) => input.remove())");
    await page.getByRole("button", { name: "Issue a key" }).click();
    await expect(page.locator("h1").innerText()).resolves.toBe("Not allowed");
    expect(await h.router.admin.listApiKeys(h.merchant.id)).toEqual(before);
    await page.close();

    const otherKeys = await h.router.admin.listApiKeys(h.other.id);
    const limited = await browser.open("limited", `/m/${h.merchant.id}/keys`);
    // Point the first revoke form at the other merchant's key, as an edited form would.
    await limited.page.evaluate(
      `document.querySelector('form[action$="/revoke"]').action = ${JSON.stringify(`/admin/m/${h.merchant.id}/keys/${otherKeys[0]!.id}/revoke`)}`,
    );
    await limited.page.locator('form[action$="/revoke"] button').first().click();
    await expect(limited.page.locator("h1").innerText()).resolves.toBe("Not found");
    expect(await h.router.admin.listApiKeys(h.other.id)).toEqual(otherKeys);
    await limited.page.goto(`${browser.base}/admin/m/${h.other.id}/payments`);
    await expect(limited.page.locator("h1").innerText()).resolves.toBe("Not found");
    await expect(limited.page.content()).resolves.not.toContain("Other shop");
    await limited.page.close();
  });
});
