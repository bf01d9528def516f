import { HDKey } from "@scure/bip32";
import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bitcoinChain } from "../../../src/bitcoin";
import type { Harness } from "../../helpers";
import { balances, get } from "../../http/v1/support";
import { freePort, startAnvil, type Anvil } from "../../adapters/chain/evm/anvil";
import { ltcChain, newAccount } from "../../adapters/chain/bitcoin/support";
import { ethChain, liveHarness, livePayment, payment, payNative, settle } from "../../adapters/chain/evm/support";
import { startLitecoind, type Litecoind } from "../../adapters/chain/bitcoin/litecoind";
import { startRpcProxy, type RpcProxy } from "../../adapters/chain/rpc-proxy";

/**
 * `payments.ready()`: every live chain's node reached and checked (network, chain id, keys)
 * before the host starts serving; a chain that fails the check is never scanned and its coins
 * answer 503 (50301) for invoices and payouts, nothing debited, while the other chains serve.
 */

let anvil: Anvil;
let litecoind: Litecoind;
let ltcProxy: RpcProxy;
const open: Harness[] = [];

beforeAll(async () => {
  [anvil, litecoind] = await Promise.all([startAnvil(), startLitecoind()]);
  ltcProxy = await startRpcProxy(litecoind.rpcUrl);
}, 120_000);
afterAll(async () => {
  await ltcProxy?.close();
  await Promise.all([anvil?.stop(), litecoind?.stop()]);
});
afterEach(async () => {
  ltcProxy.refuse.clear();
  for (const h of open.splice(0)) await h.router.close();
});

async function harness(...args: Parameters<typeof liveHarness>): Promise<Harness> {
  const h = await liveHarness(...args);
  open.push(h);
  return h;
}

/** The LTC node's URL through the proxy, with the node's credentials. */
function ltcProxyUrl(): string {
  const url = new URL(ltcProxy.url);
  url.username = litecoind.rpcUser;
  url.password = litecoind.rpcPassword;
  return url.toString();
}

/** Funds the live LTC balance through the storage's ledger, as a credited deposit would. */
async function creditLtc(h: Harness, amount: bigint): Promise<void> {
  const posted = await h.router.storage.transaction((tx) =>
    tx.postLedgerEntries([
      {
        id: `led_test_${amount}`,
        merchantId: h.merchant.id,
        mode: "live",
        asset: "LTC",
        amount,
        kind: "deposit",
        causeKey: `test-credit:${amount}`,
        createdAt: h.clock.now(),
      },
    ]),
  );
  expect(posted.status).toBe("posted");
}

describe("payments.ready()", () => {
  it("resolves once every live node was reached and checked", async () => {
    const h = await harness([ethChain(anvil), ltcChain(litecoind, newAccount())]);
    await expect(h.router.ready()).resolves.toBeUndefined();
  });

  it("waits for a node that cannot be reached yet, and resolves when it answers", async () => {
    ltcProxy.refuse.add("getblockchaininfo");
    const h = await harness([ltcChain(litecoind, newAccount(), { rpcUrl: ltcProxyUrl() })]);
    let settled = false;
    const ready = h.router.ready().finally(() => (settled = true));
    const failure = (await h.router.tick().catch((error: unknown) => error)) as AggregateError;
    expect(failure.errors.map((error: Error) => error.message).join("\n")).toMatch(/^LTC node/m);
    expect(settled).toBe(false);
    ltcProxy.refuse.clear();
    await expect(ready).resolves.toBeUndefined();
  });

  it("rejects a mainnet xpub on a regtest node, naming the mismatch: the chain is not scanned and LTC answers 503 while ETH serves", async () => {
    const mainnet = HDKey.fromMasterSeed(new Uint8Array(64).fill(5)).derive("m/84'/2'/0'");
    const wrong = bitcoinChain({
      coin: "LTC",
      network: "LTC",
      rpcUrl: ltcProxyUrl(),
      xpub: mainnet.publicExtendedKey,
      hotWallet: mainnet.privateExtendedKey,
      feeRate: { fallback: 2 },
    });
    const h = await harness([ethChain(anvil), wrong]);
    await expect(h.router.ready()).rejects.toThrow(/^the LTC node is on regtest, but the xpub given is a xpub key for main/);
    expect(h.logger.lines.filter((line) => line.includes("refused"))).toHaveLength(1);

    const invoice = await h.post("/v1/payments", { amount: "1", currency: "LTC" }, h.liveKey);
    expect(invoice.status).toBe(503);
    expect(invoice.body).toMatchObject({ error: 50301 });
    expect(invoice.body.message).toMatch(/LTC on LTC is out of service: the LTC node is on regtest/);
    await creditLtc(h, 100_000_000n);
    const payout = await h.post("/v1/withdrawals", { currency: "LTC", amount: "0.1", address: await litecoind.newAddress() }, h.liveKey);
    expect(payout.status).toBe(503);
    expect(payout.body).toMatchObject({ error: 50301 });
    expect((await balances(h, h.liveKey)).LTC?.available).toBe("1");
    expect(`${invoice.text} ${payout.text} ${h.logger.lines.join("\n")}`).not.toContain(litecoind.rpcPassword);

    // Never scanned: rounds run (ETH is paid), the LTC node hears nothing more.
    const asked = [...ltcProxy.seen.values()].reduce((sum, count) => sum + count, 0);
    const eth = await livePayment(h, { amount: "0.05", currency: "ETH", chain: "ETH" });
    await payNative(anvil, eth.address, "0.05");
    await anvil.mine(11);
    await settle(h);
    expect((await payment(h, eth.id)).status).toBe("PAID");
    expect(ltcProxy.seen.get("getblockcount") ?? 0).toBe(0);
    expect([...ltcProxy.seen.values()].reduce((sum, count) => sum + count, 0)).toBe(asked);
  });

  it("rejects an EVM node on another chain id than configured, and its coins answer 503", async () => {
    const h = await harness([ethChain(anvil, { chainId: 1 })]);
    await expect(h.router.ready()).rejects.toThrow(/^ETH node is on chain 31337, but chainId 1 was configured$/);
    const refused = await h.post("/v1/payments", { amount: "0.05", currency: "ETH", chain: "ETH" }, h.liveKey);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ error: 50301, message: "ETH on ETH is out of service: ETH node is on chain 31337, but chainId 1 was configured" });
    await expect(h.router.tick()).resolves.toMatchObject({ depositsApplied: 0 });
  });
});

describe("a chain refused by ready()", () => {
  /** The coin/network pairs a key's currency list offers, as "COIN/NETWORK". */
  async function listed(h: Harness, key: string): Promise<string[]> {
    const res = await h.post("/api/v1/currencies", undefined, key);
    expect(res.status, res.text).toBe(200);
    return (res.body as Array<{ symbol: string; networks: Array<{ network: string }> }>).flatMap((currency) =>
      currency.networks.map(({ network }) => `${currency.symbol}/${network}`),
    );
  }

  /** The pairs a key's pair list offers, as "FROM>TO". */
  async function pairs(h: Harness, key: string): Promise<string[]> {
    const res = await h.post("/api/v1/exchange/pairs", undefined, key);
    expect(res.status, res.text).toBe(200);
    return (res.body as Array<{ fromCurrency: { symbol: string }; toCurrency: { symbol: string } }>).map(
      (pair) => `${pair.fromCurrency.symbol}>${pair.toCurrency.symbol}`,
    );
  }

  /** The coin/network choices of a live hosted invoice's page. */
  async function pageChoices(h: Harness): Promise<string[]> {
    const created = await h.post("/api/v1/merchants/invoice/create", { amount: 10 }, h.liveKey);
    expect(created.status, created.text).toBe(200);
    const page = await request(h.app).get(new URL(created.body.paymentUrl as string).pathname);
    expect(page.status).toBe(200);
    return [...page.text.matchAll(/data-option="([^"]+)"/g)].map((match) => match[1]!);
  }

  it("is no longer offered to live keys (currency list, pair list, hosted page), and stays out when ready() is asked again; test keys keep every coin", async () => {
    const h = await harness([ethChain(anvil, { chainId: 1 }), ltcChain(litecoind, newAccount())]);
    // Before its check the chain is offered, as configured.
    expect(await listed(h, h.liveKey)).toEqual(expect.arrayContaining(["ETH/ETH", "LTC/LTC"]));
    expect(await pairs(h, h.liveKey)).toContain("ETH>LTC");
    expect(await pageChoices(h)).toEqual(expect.arrayContaining(["ETH/ETH", "LTC/LTC"]));
    const testList = await listed(h, h.testKey);

    await expect(h.router.ready()).rejects.toThrow(/^ETH node is on chain 31337, but chainId 1 was configured$/);
    const live = await listed(h, h.liveKey);
    expect(live).toContain("LTC/LTC");
    expect(live.filter((pair) => pair.endsWith("/ETH"))).toEqual([]);
    expect((await pairs(h, h.liveKey)).filter((pair) => pair.includes("ETH"))).toEqual([]);
    const choices = await pageChoices(h);
    expect(choices).toContain("LTC/LTC");
    expect(choices.filter((pair) => pair.endsWith("/ETH"))).toEqual([]);
    // A hosted invoice that would accept only the refused chain's coin is refused, naming why.
    const onlyEth = await h.post("/api/v1/merchants/invoice/create", { amount: 10, acceptedCoins: ["ETH"] }, h.liveKey);
    expect(onlyEth.status, onlyEth.text).toBe(503);
    expect(onlyEth.body).toMatchObject({ error: 50301, message: "ETH on ETH is out of service: ETH node is on chain 31337, but chainId 1 was configured" });

    // Test keys see the sandbox's whole list, as before.
    expect(await listed(h, h.testKey)).toEqual(testList);
    expect(testList).toContain("ETH/ETH");
    expect(await pairs(h, h.testKey)).toContain("ETH>LTC");

    // Refused for good: asking again refuses again, and the chain is still not offered.
    await expect(h.router.ready()).rejects.toThrow(/^ETH node is on chain 31337/);
    expect((await listed(h, h.liveKey)).filter((pair) => pair.endsWith("/ETH"))).toEqual([]);
  });
});

describe("a bitcoinChain whose node was never reached", () => {
  it("answers a payout with 503 (50301), as invoice creation, and debits nothing", async () => {
    const account = newAccount();
    const closed = `http://user:pw-never-shown@127.0.0.1:${await freePort()}`;
    const h = await harness([bitcoinChain({ coin: "LTC", network: "LTC", rpcUrl: closed, xpub: account.xpub, hotWallet: account.xprv, timeoutMs: 2_000 })]);
    await creditLtc(h, 200_000_000n);
    const invoice = await h.post("/v1/payments", { amount: "1", currency: "LTC" }, h.liveKey);
    expect(invoice.status).toBe(503);
    expect(invoice.body.error).toBe(50301);
    const payout = await h.post("/v1/withdrawals", { currency: "LTC", amount: "0.5", address: "rltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9" }, h.liveKey);
    expect(payout.status, payout.text).toBe(503);
    expect(payout.body).toMatchObject({ error: 50301 });
    expect(payout.text).not.toContain("pw-never-shown");
    const legacy = await h.post(
      "/api/v1/merchants/payout/create",
      { currency: "LTC", network: "LTC", amount: 0.5, address: "rltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9" },
      h.liveKey,
    );
    expect(legacy.status, legacy.text).toBe(503);
    expect((await balances(h, h.liveKey)).LTC?.available).toBe("2");
    expect((await get(h, "/v1/withdrawals", h.liveKey)).body.data).toEqual([]);
  });
});
