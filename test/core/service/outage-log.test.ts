import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { coinbase, coingecko, exchangeRates, kraken } from "../../../src/rates";
import { TestClock, type Harness } from "../../helpers";
import { ethChain, liveHarness, settle } from "../../adapters/chain/evm/support";
import { startAnvil, type Anvil } from "../../adapters/chain/evm/anvil";
import { startRpcProxy, type RpcProxy } from "../../adapters/chain/rpc-proxy";
import { keepingLogger } from "./keeping-logger";
import { startMarket, USD_PRICES, type Market } from "../../adapters/pricing/market";

/**
 * An outage of a node and of price sources at once, as the operator's log shows it: each failing
 * part logs its error with its stack once, then at most one line per round, and one line when it
 * recovers; parts that keep working log nothing. Lines are counted, never timed.
 */

let anvil: Anvil;
let proxy: RpcProxy;
let market: Market;
const open: Harness[] = [];

beforeAll(async () => {
  [anvil, market] = await Promise.all([startAnvil(), startMarket()]);
  proxy = await startRpcProxy(anvil.rpcUrl);
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await Promise.all([anvil?.stop(), market?.close()]);
});
afterEach(async () => {
  proxy.refuse.clear();
  for (const h of open.splice(0)) await h.router.close();
});

/** The part a line of the outage log is about, and which of its three forms it is. */
function parse(message: string): { part: string; form: "failed" | "still" | "recovered" } | null {
  const match = /^(.+?) (failed; it is retried every|still failing \(|recovered after )/.exec(message);
  if (!match) return null;
  return { part: match[1]!, form: match[2]!.startsWith("failed") ? "failed" : match[2]!.startsWith("still") ? "still" : "recovered" };
}

describe("a node and two price sources down for several rounds, then back", () => {
  it("logs each failing part's stack once, at most one line a round each, and one recovery line each", async () => {
    const clock = new TestClock(Math.floor(Date.now() / 1000) * 1000);
    market.coingeckoTime = clock.ms;
    for (const provider of [market.coinbase, market.kraken, market.coingecko]) {
      provider.behaviour = "ok";
      provider.prices = { ...USD_PRICES };
    }
    const http = { timeoutMs: 3000 };
    const pricing = exchangeRates({
      sources: [
        coinbase({ baseUrl: market.coinbase.url, ...http }),
        kraken({ baseUrl: market.kraken.url, ...http }),
        coingecko({ baseUrl: market.coingecko.url, ...http }),
      ],
      now: clock.now,
      refreshSeconds: 3600,
      // Wide enough that the prices read before the outage stay fresh through it: only the failures are logged.
      maxAgeSeconds: 600,
    });
    const logger = keepingLogger();
    const h = await liveHarness([ethChain(anvil, { rpcUrl: proxy.url })], { pricing, logger, now: clock.now });
    open.push(h);
    await h.router.ready();
    await pricing.refresh();
    await settle(h);
    expect(logger.calls).toEqual([]);

    // The node goes away (every request's connection cut) and two of the three sources fail.
    proxy.refuse.add("*");
    market.kraken.behaviour = "down";
    market.coingecko.behaviour = "html";
    // The hot wallet's next read is due (they are a minute apart at least).
    clock.advanceMinutes(1);
    const rounds = 4;
    const perRound: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const before = logger.calls.length;
      await expect(h.router.tick()).rejects.toThrow(AggregateError);
      await pricing.refresh();
      perRound.push(logger.calls.length - before);
    }
    const outage = logger.calls.slice();
    const parts = new Map<string, Array<{ form: string; level: string; details: unknown[] }>>();
    for (const call of outage) {
      const parsed = parse(call.message);
      expect(parsed, `a line outside the outage log: ${call.message}`).not.toBeNull();
      parts.set(parsed!.part, [...(parts.get(parsed!.part) ?? []), { form: parsed!.form, level: call.level, details: call.details }]);
    }
    expect([...parts.keys()].sort()).toEqual(["hot wallet of live chain evm:ETH", "live chain evm:ETH", "price source coingecko", "price source kraken"]);
    for (const [part, lines] of parts) {
      // The stack once: the first line, an error with the error object.
      expect(lines[0], part).toMatchObject({ form: "failed", level: "error" });
      expect((lines[0]!.details[0] as Error).stack, part).toMatch(/\n\s+at /);
      expect(lines.slice(1).every((line) => line.form === "still" && line.level === "warn" && line.details.length === 0)).toBe(true);
      // At most one line a round (the hot wallet is read once a minute at most: once here).
      expect(lines.length, part).toBeLessThanOrEqual(rounds);
    }
    expect(parts.get("live chain evm:ETH")).toHaveLength(rounds);
    expect(parts.get("price source kraken")).toHaveLength(rounds);
    expect(parts.get("price source coingecko")).toHaveLength(rounds);
    expect(parts.get("hot wallet of live chain evm:ETH")).toHaveLength(1);
    // Four failing parts at most, so four lines a round at most.
    for (const count of perRound) expect(count).toBeLessThanOrEqual(4);

    // Back: one line each (the hot wallet's next read is due a minute later).
    proxy.refuse.clear();
    market.kraken.behaviour = "ok";
    market.coingecko.behaviour = "ok";
    clock.advanceMinutes(1);
    market.coingeckoTime = clock.ms;
    await h.router.tick();
    await pricing.refresh();
    const recovery = logger.calls.slice(outage.length);
    expect(recovery.map((call) => `${call.level} ${call.message}`).sort()).toEqual([
      `warn hot wallet of live chain evm:ETH recovered after 1 failed round`,
      `warn live chain evm:ETH recovered after ${rounds} failed rounds`,
      `warn price source coingecko recovered after ${rounds} failed reads`,
      `warn price source kraken recovered after ${rounds} failed reads`,
    ]);
    await h.router.tick();
    await pricing.refresh();
    expect(logger.calls).toHaveLength(outage.length + recovery.length);

    // Never the node's URL or the hot wallet's key.
    const text = JSON.stringify(logger.calls.map((call) => [call.message, ...call.details.map((detail) => (detail instanceof Error ? detail.stack : detail))]));
    for (const secret of [proxy.url, anvil.privateKey(9).slice(2)]) expect(text).not.toContain(secret);
  });
});
