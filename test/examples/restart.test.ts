import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { eventually, startExample, type ExampleProcess } from "./example-process";

const KEY = "sk_test_RestartTestKeyForTheExample0001";
const running: ExampleProcess[] = [];
const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop("SIGKILL")));
  for (const step of cleanup.splice(0)) await step();
});

/** A webhook receiver that answers `status()` to every request. */
async function receiver(status: () => number): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(status()).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return { url: `http://127.0.0.1:${address.port}/hooks`, server };
}

describe("examples/server on its embedded database (DATA_DIR)", { timeout: 120_000 }, () => {
  it("keeps merchants, keys, invoices, balances and pending webhook deliveries across a restart", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "ecp-restart-"));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const hooks = await receiver(() => 503);
    cleanup.push(() => new Promise((resolve) => hooks.server.close(resolve)));
    const env = { DATA_DIR: dataDir, DEMO_MERCHANT_ID: "mch_restart" };

    const first = await startExample(env, KEY);
    running.push(first);
    expect(first.lines.join("\n")).toContain(`embedded PGlite in ${dataDir}`);
    // A paid invoice (so a balance), an open one, and a webhook endpoint that keeps failing.
    const paid = await first.call<{ id: string; address: string }>("/api/v1/merchants/whitelabel/create", { amount: 25, payCurrency: "USDT", network: "TRX" });
    expect(paid.status).toBe(200);
    expect((await first.call("/api/v1/sandbox/deposit/create", { address: paid.body.address, amount: 25, confirmations: 19 })).status).toBe(200);
    const open = await first.call<{ id: string }>("/api/v1/merchants/invoice/create", { amount: 10, amountCurrency: "USD" });
    const endpoint = await first.call<{ id: string }>("/v1/webhook-endpoints", { url: hooks.url, events: ["payment.created"] });
    expect(endpoint.status).toBe(200);
    await first.call("/api/v1/merchants/invoice/create", { amount: 12, amountCurrency: "USD" });
    // The delivery fails, is retried in process after ~5 s, fails again and is stored for later.
    const pending = await eventually(
      async () => {
        const page = await first.call<{ data: Array<{ id: string; attemptCount: number; nextAttemptAt: string | null; status: string }> }>(
          "/v1/webhook-deliveries?status=pending",
        );
        return page.body.data.find((delivery) => delivery.attemptCount >= 2 && Date.parse(delivery.nextAttemptAt ?? "") > Date.now() + 60_000);
      },
      40_000,
      "a delivery waiting for its next attempt",
    );
    const balanceBefore = (await first.call<{ data: Array<{ currency: string; available: string }> }>("/v1/balances")).body.data.find(
      (b) => b.currency === "USDT",
    );
    expect(Number(balanceBefore?.available)).toBeGreaterThan(24);

    await first.stop("SIGTERM");

    const second = await startExample(env, KEY);
    running.push(second);
    expect(second.lines.join("\n")).toContain(`demo merchant mch_restart, test API key: ${KEY}`);
    // The same key works; every record is as it was.
    expect((await second.call<{ status: string }>("/api/v1/merchants/invoice/fetch", { invoiceId: paid.body.id })).body.status).toBe("PAID");
    expect((await second.call<{ status: string }>("/api/v1/merchants/invoice/fetch", { invoiceId: open.body.id })).body.status).toBe("PENDING");
    const balanceAfter = (await second.call<{ data: Array<{ currency: string; available: string }> }>("/v1/balances")).body.data.find(
      (b) => b.currency === "USDT",
    );
    expect(balanceAfter).toEqual(balanceBefore);
    expect((await second.call<{ data: Array<{ id: string }> }>("/v1/webhook-endpoints")).body.data.map((e) => e.id)).toEqual([endpoint.body.id]);
    const kept = await second.call<{ status: string; attemptCount: number; nextAttemptAt: string }>(`/v1/webhook-deliveries/${pending.id}`);
    // Still queued for its next attempt at the same time: the restarted sender will send it then.
    expect(kept.body).toMatchObject({ status: "pending", attemptCount: pending.attemptCount, nextAttemptAt: pending.nextAttemptAt });
  });

  it("refuses to open a data directory another running process holds", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "ecp-lock-"));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const first = await startExample({ DATA_DIR: dataDir }, KEY);
    running.push(first);
    await expect(startExample({ DATA_DIR: dataDir }, KEY)).rejects.toThrow(/in use by process \d+/);
    // Killed without a chance to clean up, it leaves its lock behind: the next start takes it over.
    await first.stop("SIGKILL");
    const second = await startExample({ DATA_DIR: dataDir }, KEY);
    running.push(second);
    expect(second.lines.join("\n")).toContain("test API key");
  });
});
