import { mkdir } from "node:fs/promises";
import express from "express";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { setup, type Harness } from "../../helpers";
import { haveChromium, launchChromium, listen, type LaunchedChromium, type Listening } from "../../support/chromium";
import { describeIf, NO_CHROMIUM } from "../../support/skips";

/**
 * The hosted payment page in a real headless Chromium, against a real server on 127.0.0.1:
 * the page polls its status endpoint while the test drives the sandbox chain over HTTP with
 * the test key, exactly as a payer and a merchant developer would see it. Screenshots of each
 * state go to test-artifacts/pay-page/ (gitignored).
 */

const ARTIFACTS = join(process.cwd(), "test-artifacts", "pay-page");
const PHONE = { width: 390, height: 844 };
/** Longer than the page's 3 s polling interval plus a reload. */
const UPDATE_TIMEOUT = 12_000;
const USDT_TRX_CONFIRMATIONS = 19;

describeIf(haveChromium, NO_CHROMIUM)("hosted payment page in Chromium", () => {
  let h: Harness;
  let server: Listening;
  let base: string;
  const launched: Array<LaunchedChromium> = [];
  let browser: BrowserContext;
  let noScript: BrowserContext;

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    h = await setup();
    server = await listen(h.app);
    base = server.base;
    launched.push(...(await Promise.all([launchChromium({ viewport: PHONE }), launchChromium({ viewport: PHONE, javaScriptEnabled: false })])));
    [browser, noScript] = launched.map((launch) => launch.context) as [BrowserContext, BrowserContext];
    await browser.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(launched.map((launch) => launch.close()));
    await server?.close();
    await h?.router.close();
  });

  /** Calls the merchant or sandbox API over the real server, with the test key. */
  async function api(path: string, body: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${h.testKey}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    expect(res.status, JSON.stringify(json)).toBe(200);
    return json;
  }

  const deposit = async (address: string, amount: number, confirmations = 0) =>
    (await api("/api/v1/sandbox/deposit/create", { address, amount, confirmations })).txHash as string;
  const confirm = (txHash: string) => api("/api/v1/sandbox/deposit/confirm", { txHash, confirmations: USDT_TRX_CONFIRMATIONS });

  /** A new tab that records anything the page should never do: CSP violations, script errors, requests elsewhere. */
  async function open(context: BrowserContext, url: string): Promise<{ page: Page; problems: string[] }> {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    page.on("response", (response) => {
      if (response.status() >= 400 && response.request().resourceType() !== "document") problems.push(`${response.status()}: ${response.url()}`);
    });
    page.on("request", (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith("data:")) problems.push(`request: ${request.url()}`);
    });
    await page.goto(url);
    return { page, problems };
  }

  const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  /** Visible text with no-break spaces as plain ones. */
  const textOf = async (page: Page, selector: string) => (await page.locator(selector).innerText()).replace(/\u00a0/g, " ");
  const statusText = (page: Page) => textOf(page, "[data-status-text]");
  /** Waits, without reloading, until the page shows this status (the page's own polling reloads it). */
  const waitForStatus = (page: Page, text: string) =>
    page.locator("[data-status-text]", { hasText: new RegExp(`^${text}$`) }).waitFor({ timeout: UPDATE_TIMEOUT });

  it("takes a hosted invoice from the coin choice to PAID while the payer watches, then links back", async () => {
    const invoice = await api("/api/v1/merchants/invoice/create", {
      amount: 25,
      acceptedCoins: ["USDT", "BTC", "LTC"],
      lifeTime: 30,
      returnUrl: "https://shop.example/orders/42/thanks",
      metadata: { orderId: "42", note: "<b>internal</b>" },
    });
    expect(invoice.paymentUrl).toBe(`${base}/pay/${invoice.id}`);
    const { page, problems } = await open(browser, invoice.paymentUrl as string);

    await expect(textOf(page, "h1")).resolves.toBe("Choose how to pay");
    await expect(page.locator("[data-option]").count()).resolves.toBe(5); // USDT x3, BTC, LTC
    await expect(textOf(page, "[data-countdown]")).resolves.toMatch(/^(30:00|29:\d\d)$/);
    await shot(page, "01-hosted-choose");

    await page.locator('[data-option="USDT/TRX"]').click();
    await page.waitForURL(`${base}/pay/${invoice.id}`);
    await expect(textOf(page, "h1")).resolves.toBe("Pay with Tether (USDT)");
    await expect(textOf(page, "[data-amount]")).resolves.toBe("25 USDT");
    await expect(statusText(page)).resolves.toBe("Waiting for payment");
    await expect(page.locator(".qr svg").isVisible()).resolves.toBe(true);
    await expect(page.locator("[data-nojs]").isVisible()).resolves.toBe(false);
    const address = await page.locator("[data-address]").innerText();
    expect(address).toMatch(/^sbx_trx_/);

    await page.locator('[data-copy="pay-address"]').click();
    await page.locator('[data-copy="pay-address"]', { hasText: "Copied" }).waitFor({ timeout: 2000 });
    await expect(page.evaluate<string>("navigator.clipboard.readText()")).resolves.toBe(address);
    await shot(page, "02-hosted-pay");

    const first = await deposit(address, 10);
    await waitForStatus(page, "Confirming payment");
    await expect(textOf(page, ".notice.warn")).resolves.toContain("We received 10 USDT of 25 USDT (waiting for confirmations)");
    await expect(textOf(page, "[data-amount]")).resolves.toBe("15 USDT");
    await shot(page, "03-hosted-partial-confirming");

    const second = await deposit(address, 15);
    await page.locator(".notice.info", { hasText: "Payment detected" }).waitFor({ timeout: UPDATE_TIMEOUT });
    await expect(textOf(page, ".notice.info")).resolves.toContain("We have seen 25 USDT");
    await shot(page, "04-hosted-detected");

    await confirm(first);
    await confirm(second);
    await waitForStatus(page, "Paid");
    await expect(textOf(page, "h1")).resolves.toBe("Payment received");
    const back = page.locator("[data-return-link]");
    await expect(back.innerText()).resolves.toBe("Return to the merchant");
    await expect(back.getAttribute("href")).resolves.toBe("https://shop.example/orders/42/thanks");
    await expect(page.content()).resolves.not.toContain("internal");
    await shot(page, "05-hosted-paid");
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("shows a whitelabel invoice with the fee line, then an underpayment and its failure", async () => {
    const invoice = await api("/api/v1/merchants/whitelabel/create", { amount: 100, payCurrency: "USDT", network: "TRX", feePaidByPayer: true, lifeTime: 45 });
    const { page, problems } = await open(browser, invoice.paymentUrl as string);
    await expect(textOf(page, "[data-amount]")).resolves.toBe("100.502513 USDT");
    await expect(textOf(page, "[data-fee]")).resolves.toBe("Includes the 0.5% payment fee of 0.502512 USDT.");
    await expect(textOf(page, "[data-address]")).resolves.toBe(invoice.address);
    await shot(page, "06-whitelabel-pay");

    await deposit(invoice.address as string, 40, USDT_TRX_CONFIRMATIONS);
    await waitForStatus(page, "Partially paid");
    await expect(textOf(page, "[data-amount]")).resolves.toBe("60.502513 USDT");
    await expect(textOf(page, "[data-fee]")).resolves.toBe("The total of 100.502513 USDT includes the 0.5% payment fee of 0.502512 USDT.");
    await shot(page, "07-whitelabel-underpaid");

    h.clock.advanceMinutes(46);
    await h.router.tick();
    await waitForStatus(page, "Incomplete");
    await expect(textOf(page, "h1")).resolves.toBe("Payment incomplete");
    await shot(page, "08-whitelabel-failed");
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("shows a BTC whitelabel invoice on a desktop screen", async () => {
    const invoice = await api("/api/v1/merchants/whitelabel/create", { amount: 120, amountCurrency: "EUR", payCurrency: "BTC", lifeTime: 60 });
    const { page, problems } = await open(browser, invoice.paymentUrl as string);
    await page.setViewportSize({ width: 1280, height: 900 });
    await expect(textOf(page, "h1")).resolves.toBe("Pay with Bitcoin (BTC)");
    await expect(textOf(page, ".sub")).resolves.toBe("Order total 120.00 EUR");
    await shot(page, "09-whitelabel-btc-desktop");
    expect(problems).toEqual([]);
    await page.close();
  }, 30_000);

  it("turns an open page into the expired page when the time runs out", async () => {
    const invoice = await api("/api/v1/merchants/invoice/create", { amount: 10, lifeTime: 15 });
    const { page, problems } = await open(browser, invoice.paymentUrl as string);
    await expect(textOf(page, "h1")).resolves.toBe("Choose how to pay");
    h.clock.advanceMinutes(16); // no background round: the page reads the clock itself
    await waitForStatus(page, "Expired");
    await expect(textOf(page, "h1")).resolves.toBe("This payment has expired");
    await expect(page.locator("[data-option]").count()).resolves.toBe(0);
    await shot(page, "10-expired");
    expect(problems).toEqual([]);
    await page.close();
  }, 30_000);

  it("shows a 404 page for an unknown invoice", async () => {
    const { page } = await open(browser, `${base}/pay/inv_doesNotExist000000000000`);
    await expect(textOf(page, "h1")).resolves.toBe("Payment not found");
    await shot(page, "11-not-found");
    await page.close();
  });

  it("works with JavaScript off: the form chooses, and a reload shows the current state", async () => {
    const invoice = await api("/api/v1/merchants/invoice/create", {
      amount: 25,
      acceptedCoins: ["USDT"],
      lifeTime: 30,
      returnUrl: "https://shop.example/done",
    });
    const { page } = await open(noScript, invoice.paymentUrl as string);
    await page.locator('[data-option="USDT/TRX"]').click();
    await page.waitForURL(`${base}/pay/${invoice.id}`);
    await expect(textOf(page, "[data-amount]")).resolves.toBe("25 USDT");
    await expect(page.locator("[data-countdown-box]").isVisible()).resolves.toBe(false);
    await expect(page.locator("[data-copy]").first().isVisible()).resolves.toBe(false);
    await expect(page.locator(".timer time").getAttribute("datetime")).resolves.toBe(invoice.expiresAt);
    await expect(textOf(page, ".timer time")).resolves.toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    await expect(page.locator("[data-nojs]").isVisible()).resolves.toBe(true);
    await expect(textOf(page, "[data-nojs] a")).resolves.toBe("Refresh");
    await shot(page, "12-nojs-pay");

    const address = await page.locator("[data-address]").innerText();
    await deposit(address, 25, USDT_TRX_CONFIRMATIONS);
    await expect(statusText(page)).resolves.toBe("Waiting for payment"); // nothing moves without a reload
    await page.reload();
    await expect(statusText(page)).resolves.toBe("Paid");
    await expect(page.locator("[data-return-link]").getAttribute("href")).resolves.toBe("https://shop.example/done");
    await shot(page, "13-nojs-paid");
    await page.close();
  }, 30_000);

  /** The payments made through one payment link, read over the real server with the test key. */
  async function paymentsOf(linkId: string): Promise<Array<{ id: string; metadata: Record<string, unknown> | null }>> {
    const res = await fetch(`${base}/v1/payments?limit=100`, { headers: { Authorization: `Bearer ${h.testKey}` } });
    const json = (await res.json()) as { data: Array<{ id: string; metadata: Record<string, unknown> | null }> };
    return json.data.filter((payment) => payment.metadata?.paymentLinkId === linkId);
  }

  it.each([
    ["js", "with JavaScript", () => browser],
    ["nojs", "with JavaScript off", () => noScript],
  ])("opens a payment link (%s: %s) and starts the payment with its button", async (name, _how, context) => {
    const link = await api("/v1/payment-links", { amount: "25", acceptedCoins: ["USDT"] });
    const { page, problems } = await open(context(), link.url as string);
    await expect(textOf(page, "h1")).resolves.toBe("Pay 25.00 USD");
    await shot(page, `14-link-${name}`);
    await expect(paymentsOf(link.id as string)).resolves.toEqual([]); // opening it created nothing

    await page.locator("[data-start-payment]").click();
    await page.waitForURL(new RegExp(`^${base}/pay/inv_[A-Za-z0-9]+$`));
    await expect(textOf(page, "h1")).resolves.toBe("Choose how to pay");
    const payments = await paymentsOf(link.id as string);
    expect(payments).toHaveLength(1);
    expect(page.url()).toBe(`${base}/pay/${payments[0]!.id}`);

    // The payer goes back and presses the button again: the same payment, not a second one.
    await page.goto(link.url as string);
    await page.locator("[data-start-payment]").click();
    await page.waitForURL(`${base}/pay/${payments[0]!.id}`);
    await expect(paymentsOf(link.id as string)).resolves.toHaveLength(1);
    // The browser's own form post is a real choice: it carries Sec-Fetch-Site: same-origin.
    await page.locator('[data-option="USDT/TRX"]').click();
    await page.waitForURL(`${base}/pay/${payments[0]!.id}`);
    await expect(textOf(page, "h1")).resolves.toBe("Pay with Tether (USDT)");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("refuses a coin choice posted by another site's page: no address is issued", async () => {
    const invoice = await api("/api/v1/merchants/invoice/create", { amount: 25, acceptedCoins: ["USDT"], lifeTime: 30 });
    // Another origin (localhost is another site than 127.0.0.1) whose page posts our form.
    const evil = express();
    evil.get("/", (_req, res) =>
      res
        .type("html")
        .send(
          `<!doctype html><form method="post" action="${String(invoice.paymentUrl)}/method"><input type="hidden" name="coin" value="USDT"><input type="hidden" name="network" value="TRX"><button id="go">Win a prize</button></form>`,
        ),
    );
    const other = await listen(evil);
    try {
      const page = await browser.newPage();
      await page.goto(other.base.replace("127.0.0.1", "localhost"));
      await page.locator("#go").click();
      await page.waitForURL(`${String(invoice.paymentUrl)}/method`);
      await expect(page.locator(".notice").first().innerText()).resolves.toContain("Your choice was not sent from this page");
      await expect(textOf(page, "h1")).resolves.toBe("Choose how to pay");
      const fetched = await api("/api/v1/merchants/invoice/fetch", { invoiceId: invoice.id });
      expect(fetched.address ?? null).toBeNull();
      await page.close();
    } finally {
      await other.close();
    }
  });

  it("shows the rate limit as a page with Retry-After, on a phone and a desktop", async () => {
    const limited = await setup({ paymentLinks: { perClient: { limit: 1, windowSeconds: 120 } } });
    const served = await listen(limited.app);
    try {
      const res = await fetch(`${served.base}/v1/payment-links`, {
        method: "POST",
        headers: { Authorization: `Bearer ${limited.testKey}`, "Content-Type": "application/json" },
        body: JSON.stringify({ amount: "25" }),
      });
      const link = (await res.json()) as { url: string };
      // Two visitors from the same address: the first gets its payment, the second (no cookie) the limit.
      for (const [context, size] of [
        [browser, "phone"],
        [noScript, "desktop"],
      ] as const) {
        const { page } = await open(context, link.url.replace(base, served.base));
        if (size === "desktop") await page.setViewportSize({ width: 1280, height: 900 });
        const answer = page.waitForResponse((response) => response.request().method() === "POST");
        await page.locator("[data-start-payment]").click();
        const response = await answer;
        if (context === browser) {
          expect(response.status()).toBe(303);
          // Land on the payment's page before closing: closing a page mid-navigation can hang Chromium.
          await page.waitForURL(/\/pay\/inv_/);
          await page.waitForLoadState();
        } else {
          expect(response.status()).toBe(429);
          expect(response.headers()["retry-after"]).toBe("120");
          // The 429 answers the form post on the link's own URL: wait for the refusal's document,
          // not the load state, which the link's page (still shown while the answer arrives) has.
          await page.locator("h1", { hasText: "Too many payments started" }).waitFor();
          await expect(textOf(page, ".sub")).resolves.toBe("Too many payments were started here just now. Please try again in 2 minutes.");
          await shot(page, "15-link-rate-limited-desktop");
          await page.setViewportSize(PHONE);
          await shot(page, "15-link-rate-limited-phone");
        }
        await page.close();
      }
    } finally {
      await served.close();
      await limited.router.close();
    }
  });
});
