import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type Anvil } from "../adapters/chain/evm/anvil";
import { deployToken, HOT, payToken } from "../adapters/chain/evm/support";
import { startMarket, type Market } from "../adapters/pricing/market";
import { eventually, startExample, type ExampleProcess } from "./example-process";

/**
 * `npm start` as a merchant trying live mode would run it: the example server pointed at an EVM
 * node through its environment, a live key from its banner, a USDT payment created and paid
 * over plain HTTP, the background loop (not a test's tick) taking it to PAID; prices from two
 * providers' APIs (local servers answering in their documented formats).
 */

let node: Anvil;
let market: Market;
let server: ExampleProcess | null = null;
let dataDir: string;

beforeAll(async () => {
  [node, market] = await Promise.all([startAnvil({ blockTime: 1 }), startMarket()]);
  dataDir = await mkdtemp(join(tmpdir(), "ecp-example-live-"));
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await node.stop();
  await market.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("examples/server with a live EVM chain", { timeout: 90_000 }, () => {
  it("prints a live key and takes a real USDT payment to PAID on its own background loop", async () => {
    const usdt = await deployToken(node, "USDT", 6);
    const live = await startExample({
      DATA_DIR: dataDir,
      BACKGROUND_INTERVAL_MS: "300",
      PUBLIC_URL: "https://shop.example",
      EVM_RPC_URL: node.rpcUrl,
      EVM_HOT_KEY: node.privateKey(HOT),
      EVM_CHAIN_ID: String(node.chainId),
      EVM_TOKENS: `USDT=${usdt}:6`,
      PRICE_SOURCES: `coinbase=${market.coinbase.url},kraken=${market.kraken.url}`,
    });
    server = live;
    expect(live.liveKey, live.lines.join("\n")).toMatch(/^sk_live_/);
    expect(live.lines.join("\n")).not.toContain(node.privateKey(HOT).slice(2));
    const call = (path: string, body?: unknown) => live.call(path, body, undefined, live.liveKey!);

    const currencies = await call("/api/v1/currencies", {});
    expect((currencies.body as unknown as Array<{ symbol: string }>).map((currency) => currency.symbol)).toEqual(["ETH", "USDT"]);
    const created = await call("/v1/payments", { amount: "12", currency: "USDT", metadata: { orderId: "A-1" } });
    expect(created.status).toBe(200);
    expect(created.body.chain).toBe("ETH");
    const priced = await call("/v1/payments", { amount: "30", amountCurrency: "USD", currency: "ETH" });
    expect(priced.body).toMatchObject({ rate: "3000", payAmount: "0.01", rateSources: ["coinbase", "kraken"] });
    await payToken(node, usdt, 6, created.body.address as string, "12");
    // anvil mines a block a second: USDT on ETH needs 12 confirmations.
    const paid = await eventually(
      async () => {
        const fetched = await call(`/v1/payments/${created.body.id}`);
        return fetched.body.status === "PAID" ? fetched.body : undefined;
      },
      60_000,
      "the payment to be PAID",
    );
    expect(paid.receivedAmount).toBe("12");
  });

  it("refuses to start on a node of another chain than EVM_CHAIN_ID, naming the mismatch (it awaits payments.ready())", async () => {
    const otherDir = await mkdtemp(join(tmpdir(), "ecp-example-wrong-chain-"));
    try {
      const start = startExample({
        DATA_DIR: otherDir,
        PUBLIC_URL: "https://shop.example",
        EVM_RPC_URL: node.rpcUrl,
        EVM_HOT_KEY: node.privateKey(HOT),
        EVM_CHAIN_ID: "1",
        PRICE_SOURCES: `coinbase=${market.coinbase.url},kraken=${market.kraken.url}`,
      });
      await expect(start).rejects.toThrow(/exited before listening[\s\S]*ETH node is on chain 31337, but chainId 1 was configured/);
    } finally {
      await rm(otherDir, { recursive: true, force: true });
    }
  });
});
