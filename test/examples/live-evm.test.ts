import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type Anvil } from "../chains/anvil";
import { deployToken, HOT, payToken } from "../chains/evm/support";
import { startMarket, type Market } from "../adapters/pricing/market";
import { eventually } from "./example-process";

/**
 * `npm start` as a merchant trying live mode would run it: the example server pointed at an EVM
 * node through its environment, a live key from its banner, a USDT payment created and paid
 * over plain HTTP, the background loop (not a test's tick) taking it to PAID; prices from two
 * providers' APIs (local servers answering in their documented formats).
 */

let node: Anvil;
let market: Market;
let child: ChildProcess | null = null;
let dataDir: string;

beforeAll(async () => {
  [node, market] = await Promise.all([startAnvil({ blockTime: 1 }), startMarket()]);
  dataDir = await mkdtemp(join(tmpdir(), "ecp-example-live-"));
}, 60_000);
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM");
    await once(child, "exit");
  }
  await node.stop();
  await market.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("examples/server with a live EVM chain", { timeout: 90_000 }, () => {
  it("prints a live key and takes a real USDT payment to PAID on its own background loop", async () => {
    const usdt = await deployToken(node, "USDT", 6);
    child = spawn(process.execPath, ["--import", "tsx", "examples/server/index.ts"], {
      env: {
        ...process.env,
        PORT: "0",
        DATA_DIR: dataDir,
        DATABASE_URL: "",
        BACKGROUND_INTERVAL_MS: "300",
        PUBLIC_URL: "https://shop.example",
        EVM_RPC_URL: node.rpcUrl,
        EVM_HOT_KEY: node.privateKey(HOT),
        EVM_CHAIN_ID: String(node.chainId),
        EVM_TOKENS: `USDT=${usdt}:6`,
        PRICE_SOURCES: `coinbase=${market.coinbase.url},kraken=${market.kraken.url}`,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: string[] = [];
    let base: string | undefined;
    let liveKey: string | undefined;
    for await (const line of createInterface({ input: child.stdout! })) {
      lines.push(line);
      base ??= /listening on (http:\/\/\S+)/.exec(line)?.[1];
      liveKey ??= /live API key \(shown once\): (sk_live_\S+)/.exec(line)?.[1];
      if (base && liveKey) break;
    }
    expect(base, lines.join("\n")).toBeDefined();
    expect(liveKey, lines.join("\n")).toBeDefined();
    expect(lines.join("\n")).not.toContain(node.privateKey(HOT).slice(2));
    const call = async (path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${liveKey}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };

    const currencies = await call("/api/v1/currencies", {});
    expect((currencies.body as unknown as Array<{ symbol: string }>).map((currency) => currency.symbol)).toEqual(["ETH", "USDT"]);
    const created = await call("/v1/payments", { amount: "12", currency: "USDT", metadata: { orderId: "A-1" } });
    expect(created.status).toBe(200);
    expect(created.body.chain).toBe("ETH");
    const priced = await call("/v1/payments", { amount: "30", amountCurrency: "USD", currency: "ETH" });
    expect(priced.body).toMatchObject({ rate: "3000", payAmount: "0.01", rateSources: ["coinbase", "kraken"] });
    await payToken(node, usdt, 6, created.body.address as string, "12");
    // anvil mines a block a second: USDT on ETH needs 12 confirmations.
    const paid = await eventually(async () => {
      const fetched = await call(`/v1/payments/${created.body.id}`);
      return fetched.body.status === "PAID" ? fetched.body : undefined;
    }, 60_000, "the payment to be PAID");
    expect(paid.receivedAmount).toBe("12");
  });
});
