import express from "express";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import request from "supertest";
import { formatEther, parseEther, parseUnits, type Address } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { testTokenAbi } from "../../../fixtures/contracts/artifacts";
import { startRpcProxy, type RpcProxy } from "../rpc-proxy";
import { startAnvil, type Anvil } from "./anvil";
import { deployToken, ethChain, HOT, liveHarness, mine } from "./support";

/**
 * The hot-wallet gauges show the background work's latest reading: a scrape sends the node no
 * balance read (counted by an RPC proxy in front of a real node), however often it comes.
 */

let node: Anvil;
let proxy: RpcProxy;
let usdt: Address;

beforeAll(async () => {
  node = await startAnvil();
  proxy = await startRpcProxy(node.rpcUrl);
  usdt = await deployToken(node, "USDT", 6);
  await mine(
    node,
    node.wallet.writeContract({
      address: usdt,
      abi: testTokenAbi,
      functionName: "mint",
      args: [node.account(HOT).address, parseUnits("50", 6)],
      account: node.account(0),
      chain: null,
    }),
  );
}, 60_000);
afterAll(async () => {
  await proxy.close();
  await node.stop();
});

/** Balance reads (the native coin, and token balanceOf calls) that reached the node so far. */
const balanceReads = () => (proxy.seen.get("eth_getBalance") ?? 0) + (proxy.seen.get("eth_call") ?? 0);

it("shows the hot wallet's balances from the background reading, with no node call per scrape", async () => {
  const chain = ethChain(node, { rpcUrl: proxy.url, tokens: { USDT: { address: usdt, decimals: 6 } }, consolidation: false, lowBalance: { USDT: "100" } });
  const h = await liveHarness([chain]);
  try {
    const app = express().get("/metrics", h.router.metricsHandler);
    const scrape = async () => {
      const res = await request(app).get("/metrics");
      expect(res.status, res.text).toBe(200);
      const families = parsePrometheusTextFormat(res.text);
      const samples = (name: string) =>
        (families.find((family) => family.name === `express_crypto_pay_${name}`)?.metrics ?? []).map((metric) => ({
          labels: metric.labels,
          value: Number(metric.value),
        }));
      return { balance: samples("hot_wallet_balance"), low: samples("hot_wallet_low") };
    };
    // Before the first background reading: nothing to show, and nothing read for the scrape.
    const untouched = balanceReads();
    expect(await scrape()).toEqual({ balance: [], low: [] });
    expect(balanceReads()).toBe(untouched);

    await h.router.tick();
    const eth = await node.public.getBalance({ address: node.account(HOT).address });
    const afterReading = balanceReads();
    expect(afterReading).toBeGreaterThan(untouched);
    const expected = {
      balance: [
        { labels: { coin: "ETH", network: "ETH" }, value: Number(formatEther(eth)) },
        { labels: { coin: "USDT", network: "ETH" }, value: 50 },
      ],
      low: [{ labels: { coin: "USDT", network: "ETH" }, value: 1 }],
    };
    for (let i = 0; i < 5; i++) expect(await scrape()).toEqual(expected);
    expect(balanceReads()).toBe(afterReading);

    // The node's balance changes; scrapes keep the reading until the background work reads again.
    await node.test.setBalance({ address: node.account(HOT).address, value: parseEther("7") });
    expect(await scrape()).toEqual(expected);
    h.clock.advanceMinutes(2);
    await h.router.tick();
    expect((await scrape()).balance[0]).toEqual({ labels: { coin: "ETH", network: "ETH" }, value: 7 });
    await node.test.setBalance({ address: node.account(HOT).address, value: eth });
  } finally {
    await h.router.close();
  }
});
