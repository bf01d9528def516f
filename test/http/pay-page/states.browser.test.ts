import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { setup, type Harness } from "../../helpers";
import { axeViolations } from "../../support/axe";
import { haveChromium, launchChromium, listen, type LaunchedChromium, type Listening } from "../../support/chromium";
import { describeIf, NO_CHROMIUM } from "../../support/skips";

/**
 * The hosted payment page in each state a payer meets (choosing, waiting, confirming `1 of N`,
 * underpaid, overpaid, paid, expired) in two languages, at a phone's and a desktop's width, in
 * headless Chromium with the merchant's branding (a pale accent colour, the hard case for
 * contrast): axe-core finds no serious or critical violation, nothing is wider than the screen,
 * and the copy buttons copy. Screenshots go to SHOTS_DIR (default test-artifacts/pay-page-states/).
 */

const SHOTS = process.env.SHOTS_DIR ?? join(process.cwd(), "test-artifacts", "pay-page-states");
const WIDTHS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 900 },
] as const;
const USDT_TRX_CONFIRMATIONS = 19;

describeIf(haveChromium, NO_CHROMIUM)("hosted payment page states in Chromium, with axe", () => {
  let h: Harness;
  let server: Listening;
  let launched: LaunchedChromium;
  let browser: BrowserContext;
  const urls: Record<string, string> = {};

  /** Calls the merchant or sandbox API over the real server, with the test key. */
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
  const whitelabel = (payCurrency: string, network: string, lifeTime = 120) =>
    api("/api/v1/merchants/whitelabel/create", { amount: 25, payCurrency, network, lifeTime }) as Promise<{
      paymentUrl: string;
      address: string;
      payAmount: number;
    }>;
  const deposit = (address: string, amount: number, confirmations: number) => api("/api/v1/sandbox/deposit/create", { address, amount, confirmations });

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    h = await setup({ payPage: { merchantName: "Café Olé", accentColor: "#f5a623" } });
    server = await listen(h.app);
    launched = await launchChromium({ viewport: WIDTHS[0] });
    browser = launched.context;
    await browser.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.base });

    // Expires first: created with 15 minutes, the clock then moves 16 (the others have 120).
    urls.expired = (await whitelabel("USDT", "TRX", 15)).paymentUrl;
    urls.choose = (await api("/api/v1/merchants/invoice/create", { amount: 25, lifeTime: 120, acceptedCoins: ["USDT", "BTC", "ETH"] })).paymentUrl as string;
    urls.waiting = (await whitelabel("USDT", "ETH")).paymentUrl;
    const btc = await whitelabel("BTC", "BTC");
    await deposit(btc.address, btc.payAmount, 1);
    urls.confirming = btc.paymentUrl;
    const under = await whitelabel("USDT", "TRX");
    await deposit(under.address, 10, USDT_TRX_CONFIRMATIONS);
    urls.underpaid = under.paymentUrl;
    const over = await whitelabel("USDT", "TRX");
    await deposit(over.address, 30, USDT_TRX_CONFIRMATIONS);
    urls.overpaid = over.paymentUrl;
    const paid = await whitelabel("ETH", "ETH");
    await deposit(paid.address, paid.payAmount, 12);
    urls.paid = paid.paymentUrl;
    h.clock.advanceMinutes(16);
  }, 60_000);

  afterAll(async () => {
    await launched?.close();
    await server?.close();
    await h?.router.close();
  });

  /** What each state shows, in English and German: its status badge, and a line that only it has. */
  const STATES = {
    choose: { en: ["Waiting for payment", "Choose how to pay"], de: ["Warten auf Zahlung", "Zahlungsart wählen"] },
    waiting: { en: ["Waiting for payment", "Open in wallet"], de: ["Warten auf Zahlung", "In Wallet öffnen"] },
    confirming: { en: ["Confirming payment", "Confirmations: 1 of 2"], de: ["Zahlung wird bestätigt", "Bestätigungen: 1 von 2"] },
    underpaid: { en: ["Partially paid", "If the time runs out first"], de: ["Teilweise bezahlt", "Läuft die Zeit vorher ab"] },
    overpaid: { en: ["Paid", "You sent 5 USDT more than the amount due"], de: ["Bezahlt", "Sie haben 5 USDT mehr als den fälligen Betrag gesendet"] },
    paid: { en: ["Paid", "Payment received"], de: ["Bezahlt", "Zahlung erhalten"] },
    expired: { en: ["Expired", "This payment has expired"], de: ["Abgelaufen", "Diese Zahlung ist abgelaufen"] },
  } as const;

  it("passes axe at 390 and 1280 px in every state, in English and German, and fits the screen", async () => {
    for (const [state, languages] of Object.entries(STATES)) {
      for (const [language, [badge, line]] of Object.entries(languages)) {
        const page = await browser.newPage();
        const problems: string[] = [];
        page.on("pageerror", (error) => problems.push(error.message));
        page.on("console", (message) => {
          if (message.type() === "error") problems.push(message.text());
        });
        await page.goto(`${urls[state]}?lang=${language}`);
        await expect(page.locator("html").getAttribute("lang")).resolves.toBe(language);
        await expect(page.locator("[data-status-text]").innerText(), `${state} ${language}`).resolves.toBe(badge);
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

  it("shows each new confirmation as it comes, without a reload by the payer", async () => {
    const invoice = await whitelabel("USDT", "TRX");
    const txHash = (await deposit(invoice.address, 25, 0)).txHash as string;
    const page = await browser.newPage();
    await page.goto(invoice.paymentUrl);
    await expect(page.locator("p[data-confirmations]").innerText()).resolves.toBe("Confirmations: 0 of 19");
    await api("/api/v1/sandbox/deposit/confirm", { txHash, confirmations: 5 });
    // The page's own polling notices the change (every 3 s) and shows the new count.
    await page.locator("p[data-confirmations]", { hasText: "Confirmations: 5 of 19" }).waitFor({ timeout: 12_000 });
    await page.close();
  }, 30_000);

  it("copies the amount and the address with their buttons, saying so in the page's language", async () => {
    const page = await browser.newPage();
    await page.goto(`${urls.waiting}?lang=fr`);
    const amount = page.locator('[data-copy="pay-amount"]');
    await expect(amount.getAttribute("aria-label")).resolves.toBe("Copier le montant");
    await amount.click();
    await page.locator('[data-copy="pay-amount"]', { hasText: "Copié" }).waitFor({ timeout: 2000 });
    await expect(page.evaluate<string>("navigator.clipboard.readText()")).resolves.toBe("25");
    await page.locator('[data-copy="pay-address"]').click();
    await expect(page.evaluate<string>("navigator.clipboard.readText()")).resolves.toBe(await page.locator("[data-address]").innerText());
    await page.close();
  });

  it("switches language with its links, without JavaScript too", async () => {
    const noScript = await launchChromium({ viewport: WIDTHS[0], javaScriptEnabled: false });
    try {
      const page = await noScript.context.newPage();
      await page.goto(urls.waiting!);
      await expect(page.locator("html").getAttribute("lang")).resolves.toBe("en");
      await page.getByRole("link", { name: "Русский" }).click();
      await page.waitForURL(/\?lang=ru$/);
      await expect(page.locator("h1").innerText()).resolves.toBe("Оплата в Tether (USDT)");
      await expect(page.locator('[aria-current="true"]').innerText()).resolves.toBe("Русский");
      await page.screenshot({ path: join(SHOTS, "waiting-ru-nojs-390.png"), fullPage: true });
      await page.getByRole("link", { name: "中文" }).click();
      await page.waitForURL(/\?lang=zh$/);
      await expect(page.locator("[data-status-text]").innerText()).resolves.toBe("等待付款");
      await page.screenshot({ path: join(SHOTS, "waiting-zh-nojs-390.png"), fullPage: true });
    } finally {
      await noScript.close();
    }
  }, 30_000);
});
