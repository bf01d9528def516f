import { formatEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type Anvil } from "../adapters/chain/evm/anvil";
import { HOT } from "../adapters/chain/evm/support";
import { cli, config, json } from "./cli";

/**
 * The CLI against a live chain (anvil): health checks the node itself (no background round ran
 * in the CLI process), exits 1 naming the reason when the node is stopped, and never prints
 * the hot wallet's key or the node URL's credentials; rescan queues a rescan of a live chain;
 * reconcile compares the records with the chain.
 */

let node: Anvil;
let env: Record<string, string>;
const PASSWORD = "s3cret-rpc-pass";

beforeAll(async () => {
  node = await startAnvil();
  // Credentials in the URL, as hosted RPC providers hand them out: anvil ignores them.
  const url = new URL(node.rpcUrl);
  url.username = "operator";
  url.password = PASSWORD;
  env = { CLI_RPC_URL: url.toString(), CLI_HOT_WALLET: node.privateKey(HOT) };
}, 60_000);
afterAll(async () => {
  await node.stop();
});

function secretsIn(output: string): string[] {
  const key = env.CLI_HOT_WALLET!.slice(2);
  return [PASSWORD, key, new URL(node.rpcUrl).host].filter((secret) => output.includes(secret));
}

describe("the CLI with a live EVM chain", { timeout: 120_000 }, () => {
  it("health: the node checked and read now, the hot wallet read; exit 0", async () => {
    await node.mine(3);
    const run = await cli(["health", "--json", "--config", config("evm.ts")], env);
    expect(run.code, run.stderr).toBe(0);
    const report = json(run);
    expect(report.status).toBe("ok");
    expect(report.chains).toEqual([
      expect.objectContaining({
        chain: "evm:ETH",
        state: "ready",
        nodeReachable: true,
        nodeDownSince: null,
        nodeHeight: Number(await node.public.getBlockNumber()),
        scannedHeight: null,
        lastScanAt: null,
        hotWallet: [expect.objectContaining({ coin: "ETH", address: node.account(HOT).address, low: false })],
      }),
    ]);
    expect(report.pricing).toContainEqual(expect.objectContaining({ coin: "ETH", available: true }));
    const text = await cli(["health", "--config", config("evm.ts")], env);
    expect(text.stdout).toMatch(/\nCHAIN +STATE +NODE +HEIGHT +SCANNED +LAG +PAYOUTS\nevm:ETH +ready +up +\d+ +- +- +0\n/);
    expect(secretsIn(run.stdout + run.stderr + text.stdout + text.stderr)).toEqual([]);
  });

  it("rescan: queued for a configured chain; a chain not configured exits 1 naming the live chains", async () => {
    const run = await cli(["rescan", "--chain", "ETH", "--from", "2", "--config", config("evm.ts")], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("rescan of ETH from block 2 queued: the service's next deposit sync reads from there");
    const other = await cli(["rescan", "--chain", "LTC", "--from", "2", "--config", config("evm.ts")], env);
    expect(other.code).toBe(1);
    expect(other.stderr.trim()).toBe('error: rescan: no live chain "LTC" (live chains: evm:ETH)');
  });

  it("reconcile: the hot wallet's coins unexplained are a difference (exit 1); declared as float, the books are clean (exit 0)", async () => {
    const held = formatEther(await node.public.getBalance({ address: node.account(HOT).address }));
    const text = await cli(["reconcile", "--config", config("evm.ts")], env);
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).toMatch(
      new RegExp(`^CHAIN +COIN +DIFFERENCE +EXPECTED +ON CHAIN +CAUSES\nETH +ETH +${held.replace(".", "\\.")} +0 +${held.replace(".", "\\.")} +-\n`),
    );
    expect(text.stdout.trim().split("\n").at(-1)).toBe("NOT clean: 1 difference(s), 0 chain(s) not read");

    const clean = await cli(["reconcile", "--chain", "ETH", "--json", "--config", config("evm.ts")], { ...env, CLI_FLOAT: held });
    expect(clean.code, clean.stderr).toBe(0);
    const report = json(clean);
    expect(report).toMatchObject({ differences: 0, errors: 0, clean: true });
    expect(report.chains[0].rows[0]).toMatchObject({ coin: "ETH", difference: "0", float: held, onChain: held });

    const unknown = await cli(["reconcile", "--chain", "LTC", "--config", config("evm.ts")], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("reconcile: chain must be the network of a live chain (ETH)");
    expect(secretsIn(text.stdout + text.stderr + clean.stdout + clean.stderr)).toEqual([]);
  });

  it("health with the node stopped: unhealthy at once, exit 1 with the reason, no URL, credentials or key", async () => {
    const stopped = await startAnvil();
    const url = new URL(stopped.rpcUrl);
    await stopped.stop();
    url.username = "operator";
    url.password = PASSWORD;
    const down = { ...env, CLI_RPC_URL: url.toString() };
    const text = await cli(["health", "--config", config("evm.ts")], down);
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).toMatch(/^status: unhealthy\n {2}- chain evm:ETH: node not answering \(.*ETH node.*\)\n/);
    expect(text.stdout).toMatch(/evm:ETH +pending +DOWN +- +- +- +0/);
    const run = await cli(["health", "--json", "--config", config("evm.ts")], down);
    expect(run.code).toBe(1);
    expect(json(run)).toMatchObject({ status: "unhealthy", chains: [{ chain: "evm:ETH", nodeReachable: false, state: "pending" }] });
    expect(text.stdout + text.stderr + run.stdout + run.stderr).not.toContain(PASSWORD);
    expect(text.stdout + run.stdout).not.toContain(url.host);
    expect(text.stdout + run.stdout).not.toContain(env.CLI_HOT_WALLET!.slice(2));
  });
});
