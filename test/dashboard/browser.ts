import { mkdir } from "node:fs/promises";
import type { Express } from "express";
import type { BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import { axeViolations } from "../support/axe";
import { launchChromium, listen } from "../support/chromium";

/**
 * What the dashboard's browser tests share: the host app on a real port, a headless Chromium
 * that logs in with the host's fake login (a cookie), and the check every page passes at a
 * phone's and a desktop's width (axe-core, nothing wider than the screen, a screenshot).
 * Screenshots go to SHOTS_DIR (default test-artifacts/dashboard/, gitignored).
 */

/** Where screenshots go. */
export const SHOTS = process.env.SHOTS_DIR ?? "test-artifacts/dashboard";

/** The widths every page is checked at: a phone's first, as the browser starts with it. */
export const WIDTHS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 900 },
] as const;

// The 403 and 404 pages, and a refused action's answer, are documents with a 4xx status, which
// Chromium also logs as a console error; they are the pages under test, not problems.
const REFUSAL_DOCUMENT = /^Failed to load resource: .* status of 4\d\d /;

/** A page opened as one user, with the script errors and CSP reports seen on it so far. */
export interface OpenedPage {
  page: Page;
  problems: string[];
}

/** The host app served to a headless Chromium, and what the tests do with them. */
export interface DashboardBrowser {
  /** The app's base URL (the dashboard is under `${base}/admin`). */
  base: string;
  context: BrowserContext;
  /** Opens `/admin${path}` in a new page as `login` (one of the host's users, or anyone else). */
  open(login: string, path: string): Promise<OpenedPage>;
  /** Checks the page as shown at both widths and saves a screenshot of each as `${name}-${width}.png`; ends at the phone's width. */
  check(page: Page, name: string): Promise<void>;
  /**
   * Opens each `[name, login, path]`, runs `also` on it (if given), checks it as `check` does and
   * expects no script error or CSP report on it.
   */
  checkPages(pages: ReadonlyArray<readonly [name: string, login: string, path: string]>, also?: (page: Page, name: string) => Promise<void>): Promise<void>;
  /** Ends the browser, then the server. */
  close(): Promise<void>;
}

/** Serves `app` on a free port of 127.0.0.1 and launches Chromium at a phone's width. */
export async function startDashboardBrowser(app: Express): Promise<DashboardBrowser> {
  await mkdir(SHOTS, { recursive: true });
  const server = await listen(app);
  // Nothing is returned if Chromium fails to start, so the server is stopped here.
  const launched = await launchChromium({ viewport: WIDTHS[0] }).catch(async (error: unknown) => {
    await server.close();
    throw error;
  });
  const context = launched.context;

  async function open(login: string, path: string): Promise<OpenedPage> {
    await context.clearCookies();
    await context.addCookies([{ name: "login", value: login, url: server.base }]);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" && !REFUSAL_DOCUMENT.test(message.text())) problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(`${server.base}/admin${path}`);
    return { page, problems };
  }

  async function check(page: Page, name: string): Promise<void> {
    for (const size of WIDTHS) {
      await page.setViewportSize(size);
      expect(await axeViolations(page), `${name} at ${size.width}`).toEqual([]);
      // Nothing wider than the screen: tables scroll inside their own box.
      expect(await page.evaluate<number>("document.documentElement.scrollWidth"), `${name} at ${size.width}`).toBeLessThanOrEqual(size.width);
      await page.screenshot({ path: `${SHOTS}/${name}-${size.width}.png`, fullPage: true });
    }
    // A test that goes on clicking after a check does so at the width it started with.
    await page.setViewportSize(WIDTHS[0]);
  }

  async function checkPages(pages: ReadonlyArray<readonly [string, string, string]>, also?: (page: Page, name: string) => Promise<void>) {
    for (const [name, login, path] of pages) {
      const { page, problems } = await open(login, path);
      await also?.(page, name);
      await check(page, name);
      expect(problems, name).toEqual([]);
      await page.close();
    }
  }

  return {
    base: server.base,
    context,
    open,
    check,
    checkPages,
    close: async () => {
      await launched.close();
      await server.close();
    },
  };
}
