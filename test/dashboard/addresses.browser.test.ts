import { afterAll, beforeAll, expect, it } from "vitest";
import { haveChromium } from "../support/chromium";
import { describeIf, NO_CHROMIUM } from "../support/skips";
import type { Harness } from "../helpers";
import { ADDRESS } from "../http/v1/support";
import { startDashboardBrowser, type DashboardBrowser } from "./browser";
import { dashboardHost } from "./host";

/**
 * The payout addresses page in a real headless Chromium behind the host's fake login: axe-core
 * at a phone's and a desktop's width with addresses in every state, and the allowlist run from
 * its forms as two admins would (the pages carry no script, so nothing depends on it). Screenshots go to
 * SHOTS_DIR (default test-artifacts/dashboard/, gitignored).
 */

const EVM = "0x52908400098527886E0F7030069857D2E4169EE7";
const BTC = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
const PROPOSED = "TQjw9LfWkygUMPoV5tvokXQX2YLdStctTe";

describeIf(haveChromium, NO_CHROMIUM)("payout addresses page in Chromium", () => {
  let h: Harness;
  let browser: DashboardBrowser;

  beforeAll(async () => {
    h = await dashboardHost();
    browser = await startDashboardBrowser(h.app);
    // One address in each state: usable (live, labelled), cooling off (test), awaiting approval.
    const admin = h.router.admin;
    const usable = await admin.addAllowedAddress({
      merchantId: h.merchant.id,
      mode: "live",
      network: "ETH",
      address: EVM,
      label: "Treasury cold wallet",
      by: "user_alice",
    });
    await admin.approveAllowedAddress(usable.id, { by: "user_bob" });
    h.clock.advanceMinutes(25 * 60);
    const cooling = await admin.addAllowedAddress({ merchantId: h.merchant.id, mode: "test", network: "BTC", address: BTC, by: "user_alice" });
    await admin.approveAllowedAddress(cooling.id, { by: "user_bob" });
    h.clock.advanceMinutes(1);
    await admin.addAllowedAddress({ merchantId: h.merchant.id, mode: "test", network: "TRX", address: ADDRESS, label: "Supplier", by: "user_alice" });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.router.close();
  });

  it("passes axe at 390 and 1280 px for an admin and a viewer, with every state shown", async () => {
    for (const login of ["admin", "viewer"]) {
      const { page, problems } = await browser.open(login, `/m/${h.merchant.id}/addresses`);
      await expect(page.locator("[data-state]").allInnerTexts()).resolves.toEqual(["Usable", "Cooling off until 2026-03-03 13:00 UTC", "Awaiting approval"]);
      await browser.check(page, `addresses-${login}`);
      expect(problems, login).toEqual([]);
      await page.close();
    }
  }, 60_000);

  it("runs the allowlist from its forms: turn on, propose, refuse the proposer's approval, approve as another admin, remove", async () => {
    const { page, problems } = await browser.open("admin", `/m/${h.merchant.id}/addresses`);
    await page.getByRole("button", { name: "Turn the allowlist on" }).click();
    await page.locator(".notice.ok", { hasText: "The allowlist is on." }).waitFor();
    await expect(page.locator("[data-allowlist]").getAttribute("data-allowlist")).resolves.toBe("on");

    await page.getByRole("combobox", { name: "Mode" }).selectOption("test");
    await page.getByRole("combobox", { name: "Network" }).selectOption("TRX");
    await page.getByRole("textbox", { name: "Address" }).fill(PROPOSED);
    await page.getByRole("textbox", { name: "Label" }).fill("Refunds wallet");
    await page.getByRole("button", { name: "Propose" }).click();
    await page.locator(".notice.ok", { hasText: "was proposed" }).waitFor();

    await page.getByRole("button", { name: "Approve Refunds wallet (TRX, test)" }).click();
    await expect(page.locator(".notice.error").innerText()).resolves.toBe(`You proposed ${PROPOSED}: another admin must approve it.`);
    await browser.check(page, "addresses-refused");
    expect(problems).toEqual([]);
    await page.close();

    const other = await browser.open("limited", `/m/${h.merchant.id}/addresses`);
    await other.page.getByRole("button", { name: "Approve Refunds wallet (TRX, test)" }).click();
    await other.page.locator(".notice.ok", { hasText: "was approved; it becomes usable at" }).waitFor();
    const entry = (await h.router.admin.listAllowedAddresses(h.merchant.id)).find((row) => row.address === PROPOSED)!;
    expect(entry).toMatchObject({ state: "cooling_off", proposedBy: "dashboard:ada@shop.example", approvedBy: "dashboard:lee@shop.example" });
    await other.page.getByRole("button", { name: "Remove Refunds wallet (TRX, test)" }).click();
    await other.page.locator(".notice.ok", { hasText: "was removed." }).waitFor();
    expect((await h.router.admin.listAllowedAddresses(h.merchant.id)).some((row) => row.address === PROPOSED)).toBe(false);
    expect(other.problems).toEqual([]);
    await other.page.close();
  }, 60_000);
});
