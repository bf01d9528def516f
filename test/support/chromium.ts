import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Express } from "express";
import { chromium, type BrowserContext } from "playwright-core";

/**
 * What the browser tests share: Debian's Chromium driven by playwright-core, each launch with a
 * fresh profile directory, and the test app on a real port of 127.0.0.1.
 */

const CHROMIUM = "/usr/bin/chromium";
// Without the background-networking flags Chromium tries Google's hosts, which this network refuses.
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Whether Chromium is installed. CI installs it (.ci/run) and must fail without it; a developer machine without it skips. */
export const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), as .ci/run does.`);

/** A launched Chromium: its browser context, and how to end it. */
export interface LaunchedChromium {
  context: BrowserContext;
  /** Ends the browser and removes its profile. */
  close(): Promise<void>;
}

/** The test app listening: its base URL, and how to stop it. */
export interface Listening {
  server: Server;
  base: string;
  close(): Promise<void>;
}

/** A headless Chromium on a profile of its own. */
export async function launchChromium(options: { viewport: { width: number; height: number }; javaScriptEnabled?: boolean }): Promise<LaunchedChromium> {
  const profile = await mkdtemp(join(tmpdir(), "ecp-chromium-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, headless: true, ...options });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Serves `app` on a free port of 127.0.0.1; `close` cuts open connections and waits for the server to stop. */
export async function listen(app: Express): Promise<Listening> {
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  return {
    server,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
