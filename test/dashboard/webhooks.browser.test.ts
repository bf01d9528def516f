import { afterAll, beforeAll, expect, it } from "vitest";
import { haveChromium } from "../support/chromium";
import { describeIf, NO_CHROMIUM } from "../support/skips";
import type { Harness } from "../helpers";
import { get } from "../http/v1/support";
import { startDashboardBrowser, type DashboardBrowser } from "./browser";
import { dashboardHost } from "./host";
import { startVerifyingReceiver, type VerifyingReceiver } from "./webhook-receiver";

/**
 * Webhook endpoint management in a real headless Chromium (the pages' CSP lets no script run):
 * an endpoint added, tested, rotated, disabled, enabled and deleted by clicking, with a
 * real receiver verifying what arrives; every new page checked by axe-core at a phone's and a
 * desktop's width. Screenshots go to SHOTS_DIR (default test-artifacts/dashboard/, gitignored).
 */

describeIf(haveChromium, NO_CHROMIUM)("webhook endpoints in the dashboard, in Chromium", () => {
  let h: Harness;
  let browser: DashboardBrowser;
  let receiver: VerifyingReceiver;

  beforeAll(async () => {
    h = await dashboardHost();
    browser = await startDashboardBrowser(h.app);
    receiver = await startVerifyingReceiver(h);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await h?.router.close();
  });

  it("adds, tests, rotates, disables, enables and deletes an endpoint by clicking; a real receiver verifies each test event", async () => {
    const { page, problems } = await browser.open("admin", `/m/${h.merchant.id}/webhooks`);
    await browser.check(page, "webhooks-admin");
    await page.getByLabel("URL").fill(receiver.url);
    await page.getByLabel("Mode").selectOption("test");
    await page.getByRole("checkbox", { name: "payment.created" }).check();
    await page.getByRole("checkbox", { name: "payment.completed" }).check();
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const secret = await page.locator("[data-secret]").innerText();
    expect(secret).toMatch(/^whsec_/);
    await browser.check(page, "webhook-endpoint-added");
    const [endpoint] = (await get(h, "/v1/webhook-endpoints")).body.data;
    expect(endpoint).toMatchObject({ url: receiver.url, events: ["payment.created", "payment.completed"], status: "enabled" });
    receiver.trust(secret);

    await page.getByRole("button", { name: "Send a test event" }).click();
    await page.locator(".notice.ok", { hasText: "Test event queued" }).waitFor();
    await h.router.tick();
    expect(receiver.events.map((event) => event.type)).toEqual(["payment.created"]);

    // Its delivery, opened from the endpoint's table, with the attempt the receiver answered.
    await page.locator("[data-delivery] a").first().click();
    await expect(page.locator("[data-delivery-status]").innerText()).resolves.toBe("succeeded");
    await expect(page.locator("[data-attempt-status]").allInnerTexts()).resolves.toEqual(["200"]);
    await browser.check(page, "webhook-delivery");
    await page.getByRole("link", { name: receiver.url }).click();

    await page.getByRole("button", { name: "Rotate the signing secret" }).click();
    const rotated = await page.locator("[data-secret]").innerText();
    expect(rotated).not.toBe(secret);
    receiver.trust(rotated);
    // Past the overlap only the new secret signs; the receiver, on it alone, verifies the next test event.
    h.clock.advanceMinutes(24 * 60 + 1);
    await page.goto(`${browser.base}/admin/m/${h.merchant.id}/webhooks/endpoints/${endpoint.id}`);
    await expect(page.content()).resolves.not.toContain("whsec_");
    await page.getByRole("button", { name: "Send a test event" }).click();
    await page.locator(".notice.ok", { hasText: "Test event queued" }).waitFor();
    await h.router.tick();
    expect(receiver.events).toHaveLength(2);

    await page.getByRole("button", { name: "Disable endpoint" }).click();
    await expect(page.locator("[data-endpoint-status]").innerText()).resolves.toMatch(/^disabled/);
    expect((await get(h, `/v1/webhook-endpoints/${endpoint.id}`)).body.status).toBe("disabled");
    await browser.check(page, "webhook-endpoint-disabled");
    await page.getByRole("button", { name: "Enable endpoint" }).click();
    await expect(page.locator("[data-endpoint-status]").innerText()).resolves.toBe("enabled");
    expect((await get(h, `/v1/webhook-endpoints/${endpoint.id}`)).body.status).toBe("enabled");
    await browser.check(page, "webhook-endpoint");

    await page.getByRole("link", { name: "Delete endpoint…" }).click();
    await browser.check(page, "webhook-endpoint-delete");
    await page.getByRole("button", { name: "Delete this endpoint" }).click();
    await page.locator(".notice.ok", { hasText: "deleted" }).waitFor();
    expect((await get(h, `/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(404);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it("shows a viewer the endpoint's and the delivery's pages without forms, accessible at both widths", async () => {
    const created = await h.post("/v1/webhook-endpoints", { url: "http://127.0.0.1:9/viewer-hook" });
    const delivery = (await h.post(`/v1/webhook-endpoints/${created.body.id}/test`)).body.id as string;
    await h.router.tick(); // nothing listens on port 9: an attempt without an answer
    for (const [name, path] of [
      ["webhooks-viewer", `/m/${h.merchant.id}/webhooks`],
      ["webhook-endpoint-viewer", `/m/${h.merchant.id}/webhooks/endpoints/${created.body.id}`],
      ["webhook-delivery-viewer", `/m/${h.merchant.id}/webhooks/deliveries/${delivery}`],
    ] as const) {
      const { page, problems } = await browser.open("viewer", path);
      await expect(page.locator("form[method=post]").count()).resolves.toBe(0);
      await browser.check(page, name);
      expect(problems, name).toEqual([]);
      await page.close();
    }
  }, 60_000);
});
