import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/core/merchants/merchants";
import { postgresStorage } from "../../src/postgres";
import { delivery, endpoint, merchant, T0 } from "../../src/testing/storage/fixtures";
import { type CliRun, cli, config, json } from "./cli";

/**
 * Every store-backed command on the embedded database, through a config module that exports an
 * async function: each run a new process on the same data directory, as an operator's would be.
 * The tests run in order and build on each other's state.
 */

let dir: string;
const runs: CliRun[] = [];
const ENDPOINT_SECRET = endpoint().secrets[0]!.secret;

async function run(...args: string[]): Promise<CliRun> {
  const result = await cli([...args, "--config", config("embedded.ts")], { CLI_DATA_DIR: join(dir, "data") });
  runs.push(result);
  return result;
}

/** The data directory's storage, opened by the test between CLI runs (one process at a time). */
async function withStorage<T>(work: (storage: ReturnType<typeof postgresStorage>) => Promise<T>): Promise<T> {
  const storage = postgresStorage({ dataDir: join(dir, "data") });
  try {
    return await work(storage);
  } finally {
    await storage.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ecp-cli-embedded-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the CLI on the embedded database", { timeout: 120_000 }, () => {
  it("migrate: lists the steps the first open applied, then reports the schema up to date", async () => {
    const first = await run("migrate");
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^applied \d+ migration\(s\):\n {2}1 {2}initial schema\n/);
    const again = await run("migrate", "--json");
    expect(again.code).toBe(0);
    const report = json(again);
    expect(report).toEqual({ migrated: true, applied: [], version: expect.any(Number) });
    expect(first.stdout).toContain(`schema at version ${report.version}`);
  });

  it("merchants create and list: ids kept or made, newest first, paged; an existing id exits 1", async () => {
    const kept = await run("merchants", "create", "--name", "Shop A", "--id", "m_a", "--json");
    expect(kept.code, kept.stderr).toBe(0);
    expect(json(kept)).toEqual({ id: "m_a", name: "Shop A", settleCurrency: null, createdAt: expect.any(String) });
    const made = await run("merchants", "create", "--name", "Shop B");
    expect(made.code).toBe(0);
    const id = /^created merchant (mch_\w+) \(Shop B\)$/.exec(made.stdout.trim())?.[1];
    expect(id).toBeDefined();
    const twice = await run("merchants", "create", "--name", "Again", "--id", "m_a");
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('a merchant with id "m_a" exists already');

    const list = await run("merchants", "list");
    expect(list.stdout.split("\n")[0]).toMatch(/^ID +NAME +SETTLES IN +CREATED$/);
    expect(
      list.stdout
        .trim()
        .split("\n")
        .slice(1)
        .map((line) => line.split(/ +/)[0]),
    ).toEqual([id, "m_a"]);
    const page = json(await run("merchants", "list", "--limit", "1", "--json"));
    expect(page).toMatchObject({ data: [{ id, name: "Shop B" }], hasMore: true, nextCursor: id });
    const next = json(await run("merchants", "list", "--limit", "1", "--after", id!, "--json"));
    expect(next).toMatchObject({ data: [{ id: "m_a" }], hasMore: false, nextCursor: null });
  });

  it("keys issue prints the plaintext once; keys list never shows it; keys revoke revokes, and exits 1 the second time", async () => {
    const live = json(await run("keys", "issue", "--merchant", "m_a", "--mode", "live", "--json"));
    expect(live.key).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    const test = await run("keys", "issue", "--merchant", "m_a");
    expect(test.code).toBe(0);
    const testKey = /^ {2}(sk_test_\w+)$/m.exec(test.stdout)?.[1];
    expect(testKey).toBeDefined();
    expect(test.stdout).toContain("it is never shown again");

    const listed = await run("keys", "list", "--merchant", "m_a");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${live.id}  live  sk_live_`);
    const keys = json<Array<Record<string, unknown>>>(await run("keys", "list", "--merchant", "m_a", "--json"));
    expect(keys.map((key) => key.mode)).toEqual(["live", "test"]);
    expect(keys[0]).toEqual({ id: live.id, merchantId: "m_a", mode: "live", prefix: live.key.slice(0, 12), createdAt: live.createdAt, revokedAt: null });

    const revoked = await run("keys", "revoke", live.id);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout.trim()).toBe(`revoked key ${live.id}`);
    const twice = await run("keys", "revoke", live.id, "--json");
    expect(twice.code).toBe(1);
    expect(json(twice)).toEqual({ id: live.id, revoked: false });
    const unknownMerchant = await run("keys", "list", "--merchant", "m_nobody");
    expect(unknownMerchant.code).toBe(1);

    // What the CLI did is what the service reads: the keys authenticate by their hash, one revoked.
    await withStorage(async (storage) => {
      expect((await storage.findApiKeyByHash(hashApiKey(live.key)))?.key.revokedAt).toEqual(expect.any(Number));
      expect((await storage.findApiKeyByHash(hashApiKey(testKey!)))?.key).toMatchObject({ merchantId: "m_a", mode: "test", revokedAt: null });
    });
    // The plaintexts were printed by their issue only.
    for (const key of [live.key, testKey!]) expect(runs.filter((r) => r.stdout.includes(key) || r.stderr.includes(key))).toHaveLength(1);
  });

  it("deliveries list finds failing deliveries across merchants; redeliver queues one again as the API does, and refuses a disabled endpoint's", async () => {
    const failed = { status: "failed", attempts: 8, nextAttemptAt: null, lastStatusCode: 500, lastError: "the endpoint answered 500" } as const;
    await withStorage((storage) =>
      storage.transaction(async (tx) => {
        await tx.insertMerchant(merchant({ id: "m_1" }));
        await tx.insertMerchant(merchant({ id: "m_2" }));
        await tx.insertWebhookEndpoint(endpoint({ id: "we_on" }));
        await tx.insertWebhookEndpoint(endpoint({ id: "we_off", status: "disabled", disabledReason: "it answered 410 Gone" }));
        await tx.insertWebhookEndpoint(endpoint({ id: "we_2", merchantId: "m_2", mode: "live" }));
        await tx.insertWebhookDeliveries([
          delivery({ id: "msg_failed", endpointId: "we_on", ...failed }),
          delivery({ id: "msg_ok", endpointId: "we_on", status: "succeeded", attempts: 1, nextAttemptAt: null, lastStatusCode: 200 }),
          delivery({ id: "msg_off", endpointId: "we_off", ...failed }),
          delivery({ id: "msg_retry", merchantId: "m_2", mode: "live", endpointId: "we_2", attempts: 2, nextAttemptAt: T0, lastStatusCode: 503 }),
        ]);
      }),
    );
    const failing = json(await run("deliveries", "list", "--failing", "--json"));
    expect(failing.data.map((d: { id: string }) => d.id)).toEqual(["msg_retry", "msg_off", "msg_failed"]);
    expect(failing.data[2]).toMatchObject({ merchantId: "m_1", mode: "test", status: "failed", attempts: 8, lastStatusCode: 500, nextAttemptAt: null });
    expect(failing.data[2]).not.toHaveProperty("payload");
    const all = json(await run("deliveries", "list", "--merchant", "m_1", "--json"));
    expect(all.data.map((d: { id: string }) => d.id)).toEqual(["msg_off", "msg_ok", "msg_failed"]);
    const text = await run("deliveries", "list", "--failing", "--mode", "live");
    expect(text.stdout.split("\n")).toEqual([
      expect.stringMatching(/^ID +MERCHANT +MODE +EVENT +STATUS +ATTEMPTS +LAST CODE +NEXT ATTEMPT$/),
      expect.stringMatching(/^msg_retry +m_2 +live +payment\.completed +pending +2 +503 +2023-11-14T22:13:20\.000Z$/),
      "",
    ]);

    const again = await run("deliveries", "redeliver", "msg_failed", "--json");
    expect(again.code, again.stderr).toBe(0);
    expect(json(again)).toMatchObject({ id: "msg_failed", status: "pending", attempts: 0, nextAttemptAt: expect.any(String) });
    const disabled = await run("deliveries", "redeliver", "msg_off");
    expect(disabled.code).toBe(1);
    expect(disabled.stderr).toContain("The endpoint of delivery msg_off is disabled (it answered 410 Gone)");
    const unknown = await run("deliveries", "redeliver", "msg_nope");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No webhook delivery with id "msg_nope" exists.');
    await withStorage(async (storage) => {
      const queued = await storage.getWebhookDelivery({ merchantId: "m_1", mode: "test" }, "msg_failed");
      expect(queued).toMatchObject({ status: "pending", attempts: 0, leaseUntil: null, payload: delivery().payload });
      expect((await storage.getWebhookDelivery({ merchantId: "m_1", mode: "test" }, "msg_off"))?.status).toBe("failed");
    });
  });

  it("health reads the webhook backlog from storage: a delivery waiting for a retry is a failing endpoint (degraded, exit 0)", async () => {
    const health = await run("health");
    expect(health.code, health.stderr).toBe(0);
    expect(health.stdout).toContain("status: degraded\n  - webhooks: 1 endpoint(s) failing\n");
    // Due: the one waiting for its retry and the one just redelivered; only the first has failed.
    expect(health.stdout).toMatch(/webhooks: 1 retrying, 2 due \(oldest \d+ s\), 1 endpoint\(s\) failing/);
  });

  it("rescan refuses a chain that is not configured, naming the live chains", async () => {
    const rescan = await run("rescan", "--chain", "ETH", "--from", "100");
    expect(rescan.code).toBe(1);
    expect(rescan.stderr.trim()).toBe('error: rescan: no live chain "ETH" (live chains: none)');
  });

  it("printed no endpoint secret in any run", () => {
    expect(runs.length).toBeGreaterThan(15);
    for (const result of runs) expect(result.stdout + result.stderr).not.toContain(ENDPOINT_SECRET);
  });
});
