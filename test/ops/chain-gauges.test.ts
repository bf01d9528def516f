import { afterEach, describe, expect, it } from "vitest";
import request from "supertest";
import express from "express";
import parsePrometheusTextFormat, { type ParsedFamily } from "parse-prometheus-text-format";
import { setup, simulatedLiveChain, type Harness } from "../helpers";
import type { ChainSyncStatus, HotWalletBalance } from "../../src/chains";

const PREFIX = "express_crypto_pay_";
let h: Harness | undefined;

afterEach(async () => {
  await h?.router.close();
  h = undefined;
});

async function scrape(harness: Harness): Promise<ParsedFamily[]> {
  const res = await request(express().get("/metrics", harness.router.metricsHandler)).get("/metrics");
  expect(res.status, res.text).toBe(200);
  return parsePrometheusTextFormat(res.text);
}

function samples(families: ParsedFamily[], name: string) {
  return (families.find((family) => family.name === name)?.metrics ?? []).map((metric) => ({ labels: metric.labels, value: Number(metric.value) }));
}

describe("chain gauges", () => {
  it("shows scanner lag and node height read from the live chain at scrape time, cached between scrapes, and the background work's hot-wallet reading", async () => {
    let statusReads = 0;
    let walletReads = 0;
    const chain = {
      ...simulatedLiveChain(),
      name: "simulated",
      feedId: "simulated:TRX",
      syncStatus: async (): Promise<ChainSyncStatus> => {
        statusReads++;
        return { network: "TRX", nodeHeight: 1_000, scannedHeight: 990, blockSeconds: 3 };
      },
      hotWalletBalances: async (): Promise<HotWalletBalance[]> => {
        walletReads++;
        return [
          { coin: "USDT", network: "TRX", address: "TCUmA2JEPuSiBFmNGRiVktBZKbLB89JnSq", amount: 12_500_000n, lowBalance: 100_000_000n },
          { coin: "TRX", network: "TRX", address: "TCUmA2JEPuSiBFmNGRiVktBZKbLB89JnSq", amount: 50_000_000n, lowBalance: null },
        ];
      },
    };
    h = await setup({ liveChain: chain });
    // Before the background work's first reading there is no balance to show, and none is read.
    expect(samples(await scrape(h), `${PREFIX}hot_wallet_balance`)).toEqual([]);
    expect(walletReads).toBe(0);
    await h.router.tick();
    expect(walletReads).toBe(1);
    const families = await scrape(h);
    const statusReadsBefore = statusReads;
    expect(samples(families, `${PREFIX}chain_node_up`)).toEqual([{ labels: { chain: "simulated:TRX" }, value: 1 }]);
    expect(samples(families, `${PREFIX}scanner_lag_blocks`)).toEqual([{ labels: { chain: "simulated:TRX", network: "TRX" }, value: 10 }]);
    expect(samples(families, `${PREFIX}scanner_lag_seconds`)).toEqual([{ labels: { chain: "simulated:TRX", network: "TRX" }, value: 30 }]);
    expect(samples(families, `${PREFIX}node_height`)).toEqual([{ labels: { chain: "simulated:TRX", network: "TRX" }, value: 1000 }]);
    expect(samples(families, `${PREFIX}hot_wallet_balance`)).toEqual([
      { labels: { coin: "USDT", network: "TRX" }, value: 12.5 },
      { labels: { coin: "TRX", network: "TRX" }, value: 50 },
    ]);
    expect(samples(families, `${PREFIX}hot_wallet_low`)).toEqual([{ labels: { coin: "USDT", network: "TRX" }, value: 1 }]);
    await scrape(h);
    // The next scrape, within the status cache's 5 s, reads neither the status nor the wallet.
    expect(statusReads).toBe(statusReadsBefore);
    expect(walletReads).toBe(1);
  });

  it("shows a node that does not answer as down, without holding the scrape past its time limit", async () => {
    const chain = { ...simulatedLiveChain(), name: "frozen", feedId: "frozen:TRX", syncStatus: () => new Promise<ChainSyncStatus>(() => undefined) };
    h = await setup({ liveChain: chain });
    const started = Date.now();
    const families = await scrape(h);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(samples(families, `${PREFIX}chain_node_up`)).toEqual([{ labels: { chain: "frozen:TRX" }, value: 0 }]);
    expect(samples(families, `${PREFIX}scanner_lag_blocks`)).toEqual([]);
  });
});
