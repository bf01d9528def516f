import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { setup, type Harness } from "../../helpers";
import { haveChromium, launchChromium, listen, type LaunchedChromium, type Listening } from "../../support/chromium";
import { describeIf, NO_CHROMIUM } from "../../support/skips";

/**
 * The API reference page (GET /api) in a real headless Chromium against a real server on
 * 127.0.0.1: it must render the operations of the OpenAPI document from local assets only.
 * Every request the page makes is recorded, and any that leaves 127.0.0.1 fails the test.
 * Screenshots go to test-artifacts/api-reference/ (gitignored).
 */

const ARTIFACTS = join(process.cwd(), "test-artifacts", "api-reference");
const RENDER_TIMEOUT = 15_000;

describeIf(haveChromium, NO_CHROMIUM)("API reference page in Chromium", () => {
  let h: Harness;
  let server: Listening;
  let base: string;
  let browser: LaunchedChromium;
  let page: Page;
  let documented: { operations: number; webhooks: number };
  const requests: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    h = await setup({ mountPath: "/payments" });
    server = await listen(h.app);
    base = server.base;
    const document = (await (await fetch(`${base}/payments/api/openapi`)).json()) as { paths: Record<string, object>; webhooks: Record<string, object> };
    documented = {
      operations: Object.values(document.paths).reduce((sum, item) => sum + Object.keys(item).length, 0),
      webhooks: Object.keys(document.webhooks).length,
    };
    browser = await launchChromium({ viewport: { width: 1280, height: 900 } });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on("request", (req) => requests.push(req.url()));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("requestfailed", (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`));
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await h?.router.close();
  });

  it("renders every operation and event of the document from local assets only", async () => {
    const response = await page.goto(`${base}/payments/api`);
    expect(response?.status()).toBe(200);
    await page.locator(".opblock").first().waitFor({ timeout: RENDER_TIMEOUT });
    // Operations and webhooks are both drawn as .opblock entries.
    await expect.poll(() => page.locator(".opblock").count(), { timeout: RENDER_TIMEOUT }).toBe(documented.operations + documented.webhooks);

    const paths = await page.locator(".opblock-summary-path").allInnerTexts();
    const shown = paths.map((text) => text.replace(/\u200b/g, "").trim());
    for (const path of [
      "/api/v1/merchants/invoice/create",
      "/api/v1/currencies",
      "/api/v1/sandbox/deposit/create",
      "/v1/webhook-endpoints",
      "/v1/webhook-deliveries/{id}",
    ]) {
      expect(shown).toContain(path);
    }
    const text = await page.locator("body").innerText();
    expect(text).toContain("express-crypto-pay");
    expect(text).toContain("1.0.0");
    expect(text).toContain("Create an invoice");
    expect(text).toContain("payment.completed");
    await page.screenshot({ path: join(ARTIFACTS, "reference.png"), fullPage: false });

    const outside = requests.filter((url) => !url.startsWith(`${base}/`) && !url.startsWith("data:"));
    expect(outside, "requests that left the host").toEqual([]);
    expect(requests).toContain(`${base}/payments/api/openapi`);
    expect(requests.some((url) => url.endsWith("/payments/api/assets/swagger-ui-bundle.js"))).toBe(true);
    expect(problems).toEqual([]);
  }, 30_000);

  it("expands an operation to show its request body schema and error answers", async () => {
    const operation = page.locator(".opblock").filter({ has: page.locator(".opblock-summary-path", { hasText: /^\/api\/v1\/merchants\/invoice\/create$/ }) });
    await operation.locator(".opblock-summary").first().click();
    const body = operation.locator(".opblock-body");
    await body.waitFor({ timeout: RENDER_TIMEOUT });
    await expect.poll(() => body.innerText(), { timeout: RENDER_TIMEOUT }).toContain("underPaidCover");
    const text = await body.innerText();
    for (const status of ["200", "400", "401"]) expect(text).toContain(status);
    await operation.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, "invoice-create.png"), fullPage: false });
    expect(requests.filter((url) => !url.startsWith(`${base}/`) && !url.startsWith("data:"))).toEqual([]);
    expect(problems).toEqual([]);
  }, 30_000);

  it("stays readable at 390 px: each tag's description on its own full-width line, nothing wider than the screen", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/payments/api`);
    await page.locator(".opblock-tag").first().waitFor({ timeout: RENDER_TIMEOUT });
    const widths = await page.evaluate<Array<{ tag: string; width: number }>>(
      `[...document.querySelectorAll(".opblock-tag")].map((tag) => ({ tag: tag.getAttribute("data-tag"), width: Math.round(tag.querySelector("small").getBoundingClientRect().width) }))`,
    );
    expect(widths.length).toBeGreaterThan(5);
    // Before, a long tag name left its description a column a few characters wide (59 px).
    for (const { tag, width } of widths) expect(width, tag).toBeGreaterThanOrEqual(300);
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await page.locator(".opblock-tag", { hasText: "Webhook endpoints" }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, "reference-390.png"), fullPage: false });
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(problems).toEqual([]);
  }, 30_000);
});
