import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { setup, type Harness } from "../../helpers";
import { axeViolations } from "../../support/axe";
import { haveChromium, launchChromium, listen, type LaunchedChromium, type Listening } from "../../support/chromium";
import { describeIf, NO_CHROMIUM } from "../../support/skips";
import { DAY, payPayment } from "../v1/subscription-support";

/**
 * The payer's subscription page in headless Chromium, in each state a payer meets (a payment
 * due, past due, paid up, cancelled) in English and German at a phone's and a desktop's width,
 * with the merchant's branding: axe-core finds no serious or critical violation and nothing is
 * wider than the screen. Its pay button leads to the payment's hosted page, and its cancel form
 * works with JavaScript off. Screenshots go to SHOTS_DIR (default test-artifacts/subscription-page/).
 */

const SHOTS = process.env.SHOTS_DIR ?? join(process.cwd(), "test-artifacts", "subscription-page");
const WIDTHS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 900 },
] as const;

describeIf(haveChromium, NO_CHROMIUM)("the payer's subscription page in Chromium, with axe", () => {
  let h: Harness;
  let server: Listening;
  let launched: LaunchedChromium;
  let browser: BrowserContext;
  const urls: Record<string, string> = {};
  let due: { id: string; payerUrl: string; openPaymentId: string };

  /** Calls the /v1 API over the real server, so the links it answers point at it. */
  async function api(path: string, body: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`${server.base}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${h.testKey}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    expect(res.status, JSON.stringify(json)).toBe(200);
    return json;
  }
  const subscribe = (body: Record<string, unknown> = {}) =>
    api("/v1/subscriptions", { customer: "cus_1", amount: "12.5", currency: "USDT", interval: "month", payerCanCancel: true, ...body }) as Promise<{
      id: string;
      payerUrl: string;
      openPaymentId: string;
    }>;

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    h = await setup({ payPage: { merchantName: "Café Olé", accentColor: "#f5a623" } });
    server = await listen(h.app);
    launched = await launchChromium({ viewport: WIDTHS[0] });
    browser = launched.context;

    const overdue = await subscribe({ interval: "week" });
    const paid = await subscribe({ interval: { days: 10 } });
    await payPayment(h, paid.openPaymentId);
    urls.paid = paid.payerUrl;
    const cancelled = await subscribe();
    await api(`/v1/subscriptions/${cancelled.id}/cancel`, {});
    urls.cancelled = cancelled.payerUrl;
    urls.pastDue = overdue.payerUrl;
    h.clock.advanceMinutes(3 * DAY);
    await h.router.tick({ mode: "test" });
    due = await subscribe();
    urls.due = due.payerUrl;
  }, 60_000);

  afterAll(async () => {
    await launched?.close();
    await server?.close();
    await h?.router.close();
  });

  /** Each state's status (its pill's data-status) and a line only it shows, in English and German. */
  const STATES = {
    due: { status: "active", en: "Pay 12.500000 USDT", de: "12.500000 USDT bezahlen" },
    pastDue: { status: "past_due", en: "Payment overdue", de: "Zahlung überfällig" },
    paid: { status: "active", en: "Nothing to pay right now.", de: "Derzeit ist nichts zu bezahlen." },
    cancelled: { status: "cancelled", en: "This subscription has ended", de: "Dieses Abonnement ist beendet" },
  } as const;

  it("passes axe at 390 and 1280 px in every state, in English and German, and fits the screen", async () => {
    for (const [state, { status, ...lines }] of Object.entries(STATES)) {
      for (const [language, line] of Object.entries(lines)) {
        const page = await browser.newPage();
        const problems: string[] = [];
        page.on("pageerror", (error) => problems.push(error.message));
        page.on("console", (message) => {
          if (message.type() === "error") problems.push(message.text());
        });
        await page.goto(`${urls[state]}?lang=${language}`);
        await expect(page.locator("html").getAttribute("lang")).resolves.toBe(language);
        await expect(page.locator("[data-status]").first().getAttribute("data-status"), `${state}`).resolves.toBe(status);
        expect((await page.locator(".card").innerText()).replace(/\u00a0/g, " "), `${state} ${language}`).toContain(line);
        for (const size of WIDTHS) {
          await page.setViewportSize(size);
          expect(await axeViolations(page), `${state} ${language} at ${size.width}`).toEqual([]);
          expect(await page.evaluate<number>("document.documentElement.scrollWidth"), `${state} ${language} at ${size.width}`).toBeLessThanOrEqual(size.width);
          await page.screenshot({ path: join(SHOTS, `${state}-${language}-${size.width}.png`), fullPage: true });
        }
        expect(problems, `${state} ${language}`).toEqual([]);
        await page.close();
      }
    }
  }, 180_000);

  it("leads to the payment's hosted page with its pay button", async () => {
    const page = await browser.newPage();
    await page.goto(urls.due!);
    await page.locator("[data-pay]").click();
    await page.waitForURL(new RegExp(`/pay/${due.openPaymentId}$`));
    await expect(page.locator(".card").innerText()).resolves.toContain("12.5");
    await page.close();
  });

  it("cancels at period end with its form, JavaScript off", async () => {
    const sub = await subscribe();
    const noScript = await launchChromium({ viewport: WIDTHS[0], javaScriptEnabled: false });
    try {
      const page = await noScript.context.newPage();
      await page.goto(`${sub.payerUrl}?lang=es`);
      await Promise.all([
        page.waitForResponse((response) => response.request().method() === "POST"),
        page.getByRole("button", { name: "Cancelar la suscripción" }).click(),
      ]);
      await page.waitForLoadState();
      await expect(page.locator(".card").innerText()).resolves.toContain("Termina el");
      await expect(page.getByRole("button", { name: "Cancelar la suscripción" }).count()).resolves.toBe(0);
      await page.screenshot({ path: join(SHOTS, "cancelled-at-period-end-es-nojs-390.png"), fullPage: true });
    } finally {
      await noScript.close();
    }
    const res = await fetch(`${server.base}/v1/subscriptions/${sub.id}`, { headers: { Authorization: `Bearer ${h.testKey}` } });
    expect(await res.json()).toMatchObject({ status: "active", cancelAtPeriodEnd: true, cancellationReason: "payer" });
  }, 60_000);
});
