import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseDecimal } from "../../../src/money";
import { setup, type Harness } from "../../helpers";
import { axeViolations } from "../../support/axe";
import { haveChromium, launchChromium, listen, type LaunchedChromium, type Listening } from "../../support/chromium";
import { describeIf, NO_CHROMIUM } from "../../support/skips";

/**
 * The hosted refund claim page in headless Chromium: the form, a refused address, the review,
 * the outcome and a closed link, in English and German, at a phone's and a desktop's width, pass
 * axe (no serious or critical violation) and fit the screen; the payer claims through the real
 * form, and a double submit (a double click, and two browsers confirming at once) claims once.
 * Screenshots go to SHOTS_DIR (default test-artifacts/refund-claim/).
 */

const SHOTS = process.env.SHOTS_DIR ?? join(process.cwd(), "test-artifacts", "refund-claim");
const WIDTHS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 900 },
] as const;
const EVM_ADDRESS = "0x000000000000000000000000000000000000dEaD";

describeIf(haveChromium, NO_CHROMIUM)("refund claim page in Chromium, with axe", () => {
  let h: Harness;
  let server: Listening;
  let launched: LaunchedChromium;
  let browser: BrowserContext;
  let paymentId: string;

  async function api(method: "GET" | "POST", path: string, body?: unknown): Promise<Record<string, any>> {
    const res = await fetch(`${server.base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${h.testKey}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, any>;
    expect(res.status, JSON.stringify(json)).toBe(200);
    return json;
  }
  const claimLink = async (body: Record<string, unknown>) => (await api("POST", "/v1/refunds", { paymentId, ...body })) as { id: string; claimUrl: string };
  const available = async () =>
    ((await api("GET", "/v1/balances")).data as Array<{ currency: string; available: string }>).find((row) => row.currency === "USDT")!.available;

  /** Runs axe at both widths and checks the page fits, then takes a screenshot of each. */
  async function checkPage(page: Page, name: string): Promise<void> {
    for (const size of WIDTHS) {
      await page.setViewportSize(size);
      expect(await axeViolations(page), `${name} at ${size.width}`).toEqual([]);
      expect(await page.evaluate<number>("document.documentElement.scrollWidth"), `${name} at ${size.width}`).toBeLessThanOrEqual(size.width);
      await page.screenshot({ path: join(SHOTS, `${name}-${size.width}.png`), fullPage: true });
    }
    await page.setViewportSize(WIDTHS[0]);
  }

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    h = await setup({ payPage: { merchantName: "Café Olé", accentColor: "#f5a623" } });
    server = await listen(h.app);
    launched = await launchChromium({ viewport: WIDTHS[0] });
    browser = launched.context;
    for (const amount of [400, 100]) {
      const payment = await api("POST", "/v1/payments", { amount: String(amount), currency: "USDT", chain: "TRX" });
      await api("POST", "/api/v1/sandbox/deposit/create", { address: payment.address, amount: Number(payment.payAmount), confirmations: 19 });
      paymentId = payment.id as string;
    }
  }, 60_000);

  afterAll(async () => {
    await launched?.close();
    await server?.close();
    await h?.router.close();
  });

  it("passes axe at 390 and 1280 px on the form, a refused address, the review, the outcome and a closed link, in English and German", async () => {
    for (const language of ["en", "de"] as const) {
      const claim = await claimLink({ amount: "20", currency: "USD", claimChains: ["TRX", "BSC"] });
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on("pageerror", (error) => problems.push(error.message));
      await page.goto(`${claim.claimUrl}?lang=${language}`);
      await expect(page.locator("html").getAttribute("lang")).resolves.toBe(language);
      await expect(page.locator("[data-claim-amount]").innerText()).resolves.toBe(language === "en" ? "Refund of 20 USD" : "Erstattung von 20 USD");
      await checkPage(page, `form-${language}`);
      await page.locator("[data-claim-network]").selectOption("BSC");
      await page.locator("[data-claim-address]").fill("0xnot-an-address");
      await page.locator("[data-claim-continue]").click();
      await page.locator('[role="alert"]').waitFor();
      // Nothing the payer chose or typed is lost.
      await expect(page.locator("[data-claim-address]").inputValue()).resolves.toBe("0xnot-an-address");
      await expect(page.locator("[data-claim-network]").inputValue()).resolves.toBe("BSC");
      await checkPage(page, `refused-${language}`);
      await page.locator("[data-claim-address]").fill(EVM_ADDRESS);
      await page.locator("[data-claim-continue]").click();
      await page.locator("[data-claim-confirm]").waitFor();
      await expect(page.locator("[data-claim-receive]").innerText()).resolves.toBe("20\u00a0USDT");
      await expect(page.locator("[data-claim-rate]").innerText()).resolves.toBe("1 USDT = 1 USD");
      await checkPage(page, `review-${language}`);
      await page.locator("[data-claim-confirm]").click();
      await page.locator("[data-claim-status]").waitFor();
      await expect(page.locator("[data-claim-status]").getAttribute("data-claim-status")).resolves.toBe("PROCESSING");
      await checkPage(page, `claimed-${language}`);
      const closed = await claimLink({ amount: "10" });
      await api("POST", `/v1/refunds/${closed.id}/cancel`, {});
      await page.goto(`${closed.claimUrl}?lang=${language}`);
      await expect(page.locator("[data-claim-status]").getAttribute("data-claim-status")).resolves.toBe("CANCELLED");
      await checkPage(page, `cancelled-${language}`);
      expect(problems, language).toEqual([]);
      await page.close();
    }
  }, 180_000);

  it("claims once on a double click of confirm, and once when two browsers confirm at the same time", async () => {
    const before = await available();
    const clicked = await claimLink({ amount: "10" });
    const page = await browser.newPage();
    await page.goto(clicked.claimUrl);
    await page.locator("[data-claim-address]").fill("TQjw9LfWkygUMPoV5tvokXQX2YLdStctTe");
    await page.locator("[data-claim-continue]").click();
    await page.locator("[data-claim-confirm]").dblclick();
    await page.locator("[data-claim-status]").waitFor();
    await expect(page.locator("[data-claim-status]").getAttribute("data-claim-status")).resolves.toBe("PROCESSING");

    const raced = await claimLink({ amount: "10" });
    const other = await launchChromium({ viewport: WIDTHS[1] });
    try {
      const pages = [page, await other.context.newPage()];
      for (const each of pages) {
        await each.goto(raced.claimUrl);
        await each.locator("[data-claim-address]").fill("TQjw9LfWkygUMPoV5tvokXQX2YLdStctTe");
        await each.locator("[data-claim-continue]").click();
        await each.locator("[data-claim-confirm]").waitFor();
      }
      await Promise.all(pages.map((each) => each.locator("[data-claim-confirm]").click()));
      const texts = await Promise.all(
        pages.map(async (each) => {
          await each.locator("[data-claim-status]").waitFor();
          return each.locator(".card").innerText();
        }),
      );
      expect(texts.filter((text) => text.includes("This refund has already been claimed."))).toHaveLength(1);
    } finally {
      await other.close();
    }
    await page.close();
    for (const id of [clicked.id, raced.id]) expect((await api("GET", `/v1/refunds/${id}`)).status).toBe("PROCESSING");
    const refunds = (await api("GET", `/v1/refunds?paymentId=${paymentId}&limit=100`)).data as Array<{ id: string }>;
    expect(refunds.filter((refund) => refund.id === clicked.id || refund.id === raced.id)).toHaveLength(2);
    // Each claimed once: 10 + the TRX fee of 2, twice.
    expect(parseDecimal(before, 6) - parseDecimal(await available(), 6)).toBe(24_000_000n);
  }, 60_000);

  it("claims in another coin the link offers: chosen in the form, shown converted, paid from that coin's balance", async () => {
    const usdc = await api("POST", "/v1/payments", { amount: "50", currency: "USDC", chain: "BASE" });
    await api("POST", "/api/v1/sandbox/deposit/create", { address: usdc.address, amount: Number(usdc.payAmount), confirmations: 19 });
    const balance = async (coin: string) =>
      parseDecimal(
        ((await api("GET", "/v1/balances")).data as Array<{ currency: string; available: string }>).find((row) => row.currency === coin)!.available,
        6,
      );
    const [usdtBefore, usdcBefore] = [await balance("USDT"), await balance("USDC")];
    const claim = await claimLink({ amount: "10", claimCoins: { USDC: ["BASE"] } });
    const page = await browser.newPage();
    await page.goto(claim.claimUrl);
    await page.locator("[data-claim-network]").selectOption("USDC:BASE");
    await page.locator("[data-claim-address]").fill(EVM_ADDRESS);
    await page.locator("[data-claim-continue]").click();
    // Both coins at 1 USD in the default table.
    await expect(page.locator("[data-claim-receive]").innerText()).resolves.toBe("10\u00a0USDC");
    await checkPage(page, "review-other-coin");
    await page.locator("[data-claim-confirm]").click();
    await page.locator("[data-claim-status]").waitFor();
    await expect(page.locator("[data-claim-status]").getAttribute("data-claim-status")).resolves.toBe("PROCESSING");
    await page.close();
    expect(await api("GET", `/v1/refunds/${claim.id}`)).toMatchObject({ status: "PROCESSING", currency: "USDC", chain: "BASE", address: EVM_ADDRESS });
    // The USDT hold came back whole; USDC paid 10 + the BASE fee of 0.1.
    expect(await balance("USDT")).toBe(usdtBefore);
    expect(usdcBefore - (await balance("USDC"))).toBe(10_100_000n);
  }, 60_000);
});
