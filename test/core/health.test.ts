import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import express from "express";
import type { Harness } from "../helpers";
import { startAnvil, type Anvil } from "../adapters/chain/evm/anvil";
import { ethChain, liveHarness, livePayment, payNative, settle } from "../adapters/chain/evm/support";
import { ltcChain, newAccount } from "../adapters/chain/bitcoin/support";
import { startLitecoind, type Litecoind } from "../adapters/chain/bitcoin/litecoind";
import { startRpcProxy, type RpcProxy } from "../adapters/chain/rpc-proxy";

/**
 * payments.health() and healthHandler against real nodes: anvil behind a proxy that cuts its
 * connections (the node stopped), the scanner left behind the head (lag), and Litecoin Core
 * regtest (the heights syncStatus reports are the node's own).
 */

let anvil: Anvil;
let litecoind: Litecoind;
let ethProxy: RpcProxy;
const open: Harness[] = [];

beforeAll(async () => {
  [anvil, litecoind] = await Promise.all([startAnvil(), startLitecoind()]);
  ethProxy = await startRpcProxy(anvil.rpcUrl);
}, 120_000);
afterAll(async () => {
  await ethProxy?.close();
  await Promise.all([anvil?.stop(), litecoind?.stop()]);
});
afterEach(async () => {
  ethProxy.refuse.clear();
  ethProxy.hang.clear();
  for (const h of open.splice(0)) await h.router.close();
});

async function harness(...args: Parameters<typeof liveHarness>) {
  const h = await liveHarness(...args);
  open.push(h);
  const app = express();
  app.get("/health", h.router.healthHandler);
  return { h, health: () => request(app).get("/health") };
}

describe("health of an EVM chain (anvil)", () => {
  it("answers 503 after nodeDownAfterMs of a stopped node, naming the chain and never the node's URL, and 200 when it is back", async () => {
    const { h, health } = await harness([ethChain(anvil, { rpcUrl: ethProxy.url })], { health: { nodeDownAfterMs: 60_000 } });
    await h.router.tick();
    let res = await health();
    expect(res.status, res.text).toBe(200);
    const head = Number(await anvil.public.getBlockNumber());
    expect(res.body.chains).toEqual([
      expect.objectContaining({ chain: "evm:ETH", state: "ready", nodeReachable: true, nodeHeight: head, scannedHeight: head, lagBlocks: 0, lagSeconds: 0 }),
    ]);
    expect(res.body.pricing).toEqual([expect.objectContaining({ coin: "ETH", available: true })]);

    ethProxy.refuse.add("eth_blockNumber");
    res = await health();
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("degraded");
    expect(res.body.chains[0]).toMatchObject({ nodeReachable: false, nodeHeight: null });
    h.clock.ms += 61_000;
    res = await health();
    expect(res.status).toBe(503);
    expect(res.body.status).toBe("unhealthy");
    expect(res.body.reasons).toEqual(["chain evm:ETH: node not answering for 61 s"]);
    expect(res.text).not.toContain(new URL(ethProxy.url).host);

    ethProxy.refuse.clear();
    res = await health();
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("ok");
  });

  it("treats a frozen node (no answer within timeoutMs) as not answering: 503 after nodeDownAfterMs", async () => {
    const { h, health } = await harness([ethChain(anvil, { rpcUrl: ethProxy.url, timeoutMs: 500 })], { health: { nodeDownAfterMs: 30_000, timeoutMs: 200 } });
    await h.router.tick();
    ethProxy.hang.add("eth_blockNumber");
    const started = Date.now();
    let res = await health();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(res.status).toBe(200);
    expect(res.body.chains[0]).toMatchObject({ nodeReachable: false });
    h.clock.ms += 30_000;
    res = await health();
    expect(res.status).toBe(503);
    expect(res.body.reasons).toEqual(["chain evm:ETH: node not answering for 30 s"]);
    ethProxy.hang.clear();
    // The adapter's request held by the frozen node ends at its own timeoutMs; calls made meanwhile join it.
    await expect.poll(async () => (await health()).status, { timeout: 5000, interval: 200 }).toBe(200);
  });

  it("measures the scanner's lag by the blocks' own timestamps: a burst of 51 blocks is no lag, blocks unread for 700 s answer 503, and 200 once it caught up", async () => {
    const { h, health } = await harness([ethChain(anvil)], { health: { maxLagSeconds: 600 } });
    await h.router.tick();
    const time = async (height: bigint) => Number((await anvil.public.getBlock({ blockNumber: height })).timestamp);
    const scanned = await anvil.public.getBlockNumber();
    // At ETH's 12 s a block, 51 blocks would read 612 s, past the limit; mined at once, they are seconds.
    await anvil.mine(51);
    let res = await health();
    const burst = (await time(scanned + 51n)) - (await time(scanned + 1n));
    expect(burst).toBeLessThan(600);
    expect(res.status, res.text).toBe(200);
    expect(res.body.chains[0]).toMatchObject({ lagBlocks: 51, lagSeconds: burst });
    // The next block comes 700 s after the first one the scanner has not read: those have waited 700 s.
    await anvil.test.setNextBlockTimestamp({ timestamp: BigInt((await time(scanned + 1n)) + 700) });
    await anvil.mine(1);
    res = await health();
    expect(res.status).toBe(503);
    expect(res.body.chains[0]).toMatchObject({ lagBlocks: 52, lagSeconds: 700 });
    expect(res.body.reasons).toEqual(["chain evm:ETH: scanner 52 blocks (700 s) behind the node"]);
    await h.router.tick();
    res = await health();
    expect(res.status).toBe(200);
    expect(res.body.chains[0]).toMatchObject({ lagBlocks: 0, lagSeconds: 0 });
  });
});

describe("pending sweeps of an EVM chain (anvil)", () => {
  it("counts deposit addresses whose final deposits wait for the sweep, and none for a chain that does not sweep", async () => {
    // A sweep minimum above what is paid keeps the deposit waiting at its address.
    const { h, health } = await harness([ethChain(anvil, { consolidation: { minimum: { ETH: "5" } } })]);
    const paid = await livePayment(h, { amount: "0.2", currency: "ETH", chain: "ETH" });
    await payNative(anvil, paid.address, "0.2");
    await anvil.mine(12);
    await settle(h);
    expect((await health()).body.chains[0]).toMatchObject({ chain: "evm:ETH", pendingSweeps: 1 });
    await h.router.close();
    open.splice(open.indexOf(h), 1);
    const { h: unswept, health: unsweptHealth } = await harness([ethChain(anvil, { consolidation: false })]);
    await unswept.router.tick();
    expect((await unsweptHealth()).body.chains[0]).toMatchObject({ chain: "evm:ETH", pendingSweeps: null });
  });
});

describe("health of a Bitcoin-family chain (litecoind)", () => {
  it("reports the node's getblockcount and the scanner's height, its lag in the blocks' own times: six blocks mined at once are not 900 s behind", async () => {
    const { h, health } = await harness([ltcChain(litecoind, newAccount())]);
    let res = await health();
    expect(res.body.chains[0]).toMatchObject({ chain: "bitcoin:LTC", state: "pending", nodeHeight: await litecoind.height(), scannedHeight: null });
    await h.router.tick();
    res = await health();
    const height = await litecoind.height();
    expect(res.status, res.text).toBe(200);
    expect(res.body.chains[0]).toMatchObject({ state: "ready", nodeReachable: true, nodeHeight: height, scannedHeight: height, lagBlocks: 0 });
    // Six regtest blocks between two scans: at LTC's 150 s a block that would read 900 s, past
    // the 600 s limit. By the blocks' timestamps it is the seconds they took to mine.
    await litecoind.mine(6);
    res = await health();
    const time = async (at: number) => (await litecoind.call<{ time: number }>("getblockheader", await litecoind.blockHash(at))).time;
    const waited = (await time(height + 6)) - (await time(height + 1));
    expect(waited).toBeLessThan(600);
    expect(res.body.chains[0]).toMatchObject({ nodeHeight: height + 6, scannedHeight: height, lagBlocks: 6, lagSeconds: waited });
    expect(res.status, res.text).toBe(200);
    expect(res.text).not.toContain(litecoind.rpcPassword);
  });
});
