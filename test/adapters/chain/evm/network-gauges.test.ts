import express from "express";
import type { Address } from "viem";
import parsePrometheusTextFormat, { type ParsedFamily } from "parse-prometheus-text-format";
import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { evmChain, type EvmChain } from "../../../../src/evm";
import type { Harness } from "../../../helpers";
import { startRpcProxy, type RpcProxy } from "../rpc-proxy";
import { startAnvil, type Anvil } from "./anvil";
import { deployToken, ethChain, HOT, liveHarness } from "./support";

/**
 * Two networks of one family (ETH and BNB Smart Chain, each on its own anvil) with the BSC node
 * down: every chain gauge and health entry names its network, so the down one shows as down
 * whatever the order of `chains`, as the documented alert (`chain_node_up == 0`) needs.
 */

const PREFIX = "express_crypto_pay_";
let eth: Anvil;
let bsc: Anvil;
let bscProxy: RpcProxy;
let bscUsdt: Address;
const open: Harness[] = [];

beforeAll(async () => {
  [eth, bsc] = await Promise.all([startAnvil(), startAnvil({ chainId: 56 })]);
  bscProxy = await startRpcProxy(bsc.rpcUrl);
  // BSC's coin in the default currency list is USDT.
  bscUsdt = await deployToken(bsc, "USDT", 18);
}, 60_000);
afterAll(async () => {
  await bscProxy?.close();
  await Promise.all([eth?.stop(), bsc?.stop()]);
});
afterEach(async () => {
  bscProxy.refuse.clear();
  for (const h of open.splice(0)) await h.router.close();
});

const bscChain = (): EvmChain =>
  evmChain({ network: "BSC", rpcUrl: bscProxy.url, hotWallet: bsc.privateKey(HOT), chainId: 56, tokens: { USDT: { address: bscUsdt, decimals: 18 } } });

/** A scrape of the router's metrics, read by a Prometheus text parser. */
async function scrape(h: Harness): Promise<ParsedFamily[]> {
  const res = await request(express().get("/metrics", h.router.metricsHandler)).get("/metrics");
  expect(res.status, res.text).toBe(200);
  return parsePrometheusTextFormat(res.text);
}

/** One family's samples, by their labels, sorted by the chain label. */
function samples(families: ParsedFamily[], name: string) {
  return (families.find((family) => family.name === PREFIX + name)?.metrics ?? [])
    .map((metric) => ({ labels: metric.labels, value: Number(metric.value) }))
    .sort((a, b) => String(a.labels?.chain).localeCompare(String(b.labels?.chain)));
}

describe("chain gauges and health by network", () => {
  for (const order of ["ETH first", "BSC first"] as const) {
    it(`shows ETH up and BSC down, each under its own network (${order} in chains)`, async () => {
      const chains = order === "ETH first" ? [ethChain(eth), bscChain()] : [bscChain(), ethChain(eth)];
      const h = await liveHarness(chains);
      open.push(h);
      await h.router.tick();
      // The BSC node goes away: every request to it is cut.
      bscProxy.refuse.add("*");

      const families = await scrape(h);
      expect(samples(families, "chain_node_up")).toEqual([
        { labels: { chain: "evm:BSC" }, value: 0 },
        { labels: { chain: "evm:ETH" }, value: 1 },
      ]);
      const head = Number(await eth.public.getBlockNumber());
      // A node that does not answer has no height or lag: only ETH's series are there.
      expect(samples(families, "node_height")).toEqual([{ labels: { chain: "evm:ETH", network: "ETH" }, value: head }]);
      expect(samples(families, "scanner_lag_blocks")).toEqual([{ labels: { chain: "evm:ETH", network: "ETH" }, value: 0 }]);
      expect(samples(families, "scanner_lag_seconds")).toEqual([{ labels: { chain: "evm:ETH", network: "ETH" }, value: 0 }]);

      const health = await h.router.health();
      const byChain = Object.fromEntries(health.chains.map((chain) => [chain.chain, chain.nodeReachable]));
      expect(byChain).toEqual({ "evm:ETH": true, "evm:BSC": false });
      expect(health.reasons).toContainEqual(expect.stringMatching(/^chain evm:BSC: node not answering/));
      expect(health.reasons.join("\n")).not.toMatch(/evm:ETH/);
    });
  }
});
