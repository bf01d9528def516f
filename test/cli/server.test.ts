import { afterAll, beforeAll, expect, it } from "vitest";
import { createPaymentRouter, staticPricing } from "../../src/index";
import { evmChain } from "../../src/evm";
import { postgresStorage } from "../../src/postgres";
import { startAnvil, type Anvil } from "../adapters/chain/evm/anvil";
import { HOT } from "../adapters/chain/evm/support";
import { DATABASE_URL, dropSchema, uniqueSchema } from "../adapters/storage/sql-fixtures";
import { describeIf, NO_DATABASE_URL } from "../support/skips";
import { cli, config, json } from "./cli";

/**
 * The CLI on a PostgreSQL server, with a config whose storage does not migrate itself
 * (`migrate: false`): `migrate` creates a fresh schema, and `health` reads how far the service's
 * deposit scan got from the cursor the service stored there.
 */

describeIf(DATABASE_URL, NO_DATABASE_URL)("the CLI on a PostgreSQL server", { timeout: 120_000 }, () => {
  const schema = uniqueSchema("cli");
  let node: Anvil;
  let env: Record<string, string>;

  beforeAll(async () => {
    node = await startAnvil();
    env = { DATABASE_URL: DATABASE_URL!, CLI_SCHEMA: schema, CLI_RPC_URL: node.rpcUrl, CLI_HOT_WALLET: node.privateKey(HOT) };
  }, 60_000);
  afterAll(async () => {
    await node?.stop();
    await dropSchema(schema);
  });

  it("migrate runs every step on a fresh schema, then none", async () => {
    const first = await cli(["migrate", "--json", "--config", config("server.ts")], env);
    expect(first.code, first.stderr).toBe(0);
    const report = json(first);
    expect(report.applied[0]).toEqual({ version: 1, name: "initial schema" });
    expect(report.applied.map((step: { version: number }) => step.version)).toEqual(Array.from({ length: report.version }, (_, i) => i + 1));
    const again = await cli(["migrate", "--config", config("server.ts")], env);
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).toBe(`schema up to date (version ${report.version}): no migration ran`);
    const created = await cli(["merchants", "create", "--name", "Server shop", "--id", "m_server", "--config", config("server.ts")], env);
    expect(created.code, created.stderr).toBe(0);
  });

  it("health reports the scanner's height from the cursor the running service stored", async () => {
    await node.mine(5);
    // The service, in this process, on the same schema: one round scans the chain.
    const service = createPaymentRouter({
      storage: postgresStorage({ connectionString: DATABASE_URL!, schema, migrate: false }),
      chains: [evmChain({ network: "ETH", rpcUrl: node.rpcUrl, hotWallet: node.privateKey(HOT) })],
      pricing: staticPricing({ allowLive: true }),
      publicUrl: "https://shop.example",
      backgroundIntervalMs: false,
      webhooks: { intervalMs: false },
    });
    try {
      await service.tick();
    } finally {
      await service.close();
    }
    const head = Number(await node.public.getBlockNumber());
    const run = await cli(["health", "--json", "--config", config("server.ts")], env);
    expect(run.code, run.stderr).toBe(0);
    expect(json(run).chains[0]).toMatchObject({ chain: "evm:ETH", state: "ready", nodeHeight: head, scannedHeight: head, lagBlocks: 0 });
  });
});
