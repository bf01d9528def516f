import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";

const children: ChildProcess[] = [];
const dataDirs: string[] = [];
afterEach(async () => {
  await Promise.all(
    children.splice(0).map((child) => {
      if (child.exitCode !== null || child.signalCode !== null) return null;
      child.kill();
      return once(child, "exit");
    }),
  );
  await Promise.all(dataDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Starts `npm start`'s program as a user would, on a free port and a data directory of its own, and waits for its banner. */
async function startServer(env: Record<string, string>): Promise<{ base: string; lines: string[]; child: ChildProcess }> {
  const dataDir = await mkdtemp(join(tmpdir(), "ecp-example-"));
  dataDirs.push(dataDir);
  const child = spawn(process.execPath, ["--import", "tsx", "examples/server/index.ts"], {
    env: { ...process.env, PORT: "0", DATA_DIR: dataDir, DATABASE_URL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const lines: string[] = [];
  let base: string | undefined;
  for await (const line of createInterface({ input: child.stdout! })) {
    lines.push(line);
    base ??= /listening on (http:\/\/\S+)/.exec(line)?.[1];
    // The key line follows the banner; read through the same iterator, which may hold it already.
    if (base && line.includes("API key")) return { base, lines, child };
  }
  throw new Error(`the example server exited before listening: ${lines.join("\n")}`);
}

describe("examples/server (npm start)", { timeout: 60_000 }, () => {
  it("serves the payment API next to its own routes with the DEMO_API_KEY it was given", async () => {
    const key = "sk_test_DemoKeyForTheExampleServer0001";
    const { base, lines } = await startServer({ DEMO_API_KEY: key });
    expect(lines.join("\n")).toContain(key);

    const home = await fetch(`${base}/`);
    expect(await home.text()).toContain("Demo shop");
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { status: string }).status).toBe("ok");
    expect((await fetch(`${base}/livez`)).status).toBe(200);

    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const created = await fetch(`${base}/api/v1/merchants/whitelabel/create`, {
      method: "POST",
      headers,
      body: JSON.stringify({ amount: 25, payCurrency: "USDT", network: "TRX" }),
    });
    expect(created.status).toBe(200);
    const invoice = (await created.json()) as { id: string; address: string; paymentUrl: string };
    expect(invoice.paymentUrl.startsWith(`${base}/pay/`)).toBe(true);

    await fetch(`${base}/api/v1/sandbox/deposit/create`, {
      method: "POST",
      headers,
      body: JSON.stringify({ address: invoice.address, amount: 25, confirmations: 19 }),
    });
    const fetched = await fetch(`${base}/api/v1/merchants/invoice/fetch`, { method: "POST", headers, body: JSON.stringify({ invoiceId: invoice.id }) });
    expect(((await fetched.json()) as { status: string }).status).toBe("PAID");
  });

  it("prints a fresh test key when no DEMO_API_KEY is set", async () => {
    const { lines } = await startServer({ DEMO_API_KEY: "" });
    expect(lines.join("\n")).toMatch(/test API key: sk_test_[A-Za-z0-9]{32}/);
  });

  it("refuses a DEMO_API_KEY that is not a test key", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "examples/server/index.ts"], {
      env: { ...process.env, PORT: "0", DEMO_API_KEY: "sk_live_NotAllowedForTheDemoMerchant01" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let stderr = "";
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    const [code] = await once(child, "exit");
    expect(code).toBe(1);
    expect(stderr).toContain("DEMO_API_KEY must be a test key");
  });
});
