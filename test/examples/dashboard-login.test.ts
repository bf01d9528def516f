import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "../support/axe";
import { haveChromium, launchChromium } from "../support/chromium";
import { describeIf, NO_CHROMIUM } from "../support/skips";
import { startExample, type ExampleProcess } from "./example-process";

/**
 * The example server's demo login in front of the merchant dashboard (examples/server/demo-login.ts):
 * nothing under /admin/payments without signing in, a wrong password or a forged cookie gets
 * nobody in, and the printed password opens the dashboard as an admin of every merchant.
 */

const PASSWORD = "correct horse battery staple";
const SHOTS = process.env.SHOTS_DIR ?? "test-artifacts/example-login";

const dataDirs: string[] = [];
const servers: ExampleProcess[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop();
  for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
});

/** The example on a data directory of its own, with the environment given. */
async function start(env: Record<string, string>): Promise<ExampleProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), "ecp-example-login-"));
  dataDirs.push(dataDir);
  const server = await startExample({ DATA_DIR: dataDir, ...env });
  servers.push(server);
  return server;
}

/** Posts the login form as a browser without JavaScript does. */
const logIn = (base: string, password: string) =>
  fetch(`${base}/admin/payments/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ password }).toString(),
    redirect: "manual",
  });

describe("examples/server: the dashboard behind a demo login", { timeout: 60_000 }, () => {
  let example: ExampleProcess;
  beforeAll(async () => {
    example = await start({ DASHBOARD_PASSWORD: PASSWORD });
  }, 60_000);

  const get = (path: string, cookie?: string) => fetch(`${example.base}${path}`, { redirect: "manual", headers: cookie ? { cookie } : {} });

  it("prints where the dashboard is and its password", () => {
    expect(example.lines.join("\n")).toContain(`dashboard: ${example.base}/admin/payments (demo login password: ${PASSWORD})`);
  });

  it("sends a visitor who is not signed in to the login form, for pages and actions alike", async () => {
    for (const path of ["/admin/payments/", "/admin/payments/m/mch_demo", "/admin/payments/m/mch_demo/payments"]) {
      const response = await get(path);
      expect(response.status, path).toBe(303);
      expect(response.headers.get("location")).toBe("/admin/payments/login");
    }
    const issue = await fetch(`${example.base}/admin/payments/m/mch_demo/keys`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "mode=test",
      redirect: "manual",
    });
    expect(issue.status).toBe(303);
    expect(issue.headers.get("location")).toBe("/admin/payments/login");

    const form = await get("/admin/payments/login");
    expect(form.status).toBe(200);
    const html = await form.text();
    expect(html).toContain('<form method="post" action="/admin/payments/login">');
    expect(html).toContain('type="password"');
  });

  it("refuses a wrong password, and sets no session", async () => {
    for (const password of ["wrong", "", `${PASSWORD} `, PASSWORD.toUpperCase()]) {
      const response = await logIn(example.base, password);
      expect(response.status, password).toBe(401);
      expect(response.headers.get("set-cookie")).toBeNull();
      expect(await response.text()).toContain("Wrong password.");
    }
  });

  it("opens the dashboard, as an admin of every merchant, with the session the right password gives", async () => {
    const response = await logIn(example.base, PASSWORD);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/admin/payments/");
    const setCookie = response.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^demo_session=\d+\.[\w-]+; .*Path=\/admin\/payments; .*HttpOnly; SameSite=Lax/);
    const cookie = setCookie.split(";")[0]!;

    const home = await get("/admin/payments/", cookie);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain("Merchant id"); // an admin of all merchants picks one
    const overview = await get("/admin/payments/m/mch_demo", cookie);
    expect(overview.status).toBe(200);
    expect(await overview.text()).toContain("Demo shop");
    // Admin: the keys page offers to issue a key.
    const keys = await (await get("/admin/payments/m/mch_demo/keys", cookie)).text();
    expect(keys).toMatch(/<form[^>]+method="post"/);
  });

  it("refuses a session cookie it did not sign, or one that has run out", async () => {
    const cookie = ((await logIn(example.base, PASSWORD)).headers.get("set-cookie") ?? "").split(";")[0]!;
    const [expires, mac] = cookie.slice("demo_session=".length).split(".") as [string, string];
    const forged = [
      `demo_session=${Number(expires) + 1000}.${mac}`, // a later expiry under the old signature
      `demo_session=${expires}.${mac.slice(0, -2)}AA`,
      `demo_session=${expires}`,
      "demo_session=9999999999999.",
      `demo_session=${expires}.${"é".repeat(mac.length)}`, // as long as the signature in characters, not in bytes
    ];
    for (const value of forged) {
      const response = await get("/admin/payments/m/mch_demo", value);
      expect(response.status, value).toBe(303);
      expect(response.headers.get("location")).toBe("/admin/payments/login");
    }
  });
});

describeIf(haveChromium, NO_CHROMIUM)("examples/server: the demo login in Chromium", { timeout: 120_000 }, () => {
  it("signs in with the password printed at start, from a login page without accessibility violations at 390 and 1280 px", async () => {
    await mkdir(SHOTS, { recursive: true });
    const example = await start({ DASHBOARD_PASSWORD: "" });
    const password = /demo login password: (\S+)\)/.exec(example.lines.join("\n"))?.[1];
    expect(password).toMatch(/^[\w-]{16}$/);

    const launched = await launchChromium({ viewport: { width: 390, height: 844 } });
    try {
      const page = await launched.context.newPage();
      const problems: string[] = [];
      page.on("pageerror", (error) => problems.push(error.message));
      page.on("console", (message) => {
        // The wrong password's answer is a 401 document, which Chromium also logs.
        if (message.type() === "error" && !/status of 401/.test(message.text())) problems.push(message.text());
      });
      await page.goto(`${example.base}/admin/payments/m/mch_demo`);
      expect(new URL(page.url()).pathname).toBe("/admin/payments/login");
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 844 });
        expect(await axeViolations(page), `at ${width} px`).toEqual([]);
        await page.screenshot({ path: join(SHOTS, `login-${width}.png`), fullPage: true });
      }
      await page.getByLabel("Dashboard password").fill("not it");
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect.poll(() => page.getByRole("alert").textContent()).toBe("Wrong password.");
      expect(await axeViolations(page)).toEqual([]);

      await page.getByLabel("Dashboard password").fill(password!);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${example.base}/admin/payments/`);
      expect(await page.title()).toContain("Choose a merchant");
      expect(problems).toEqual([]);
    } finally {
      await launched.close();
    }
  });
});
