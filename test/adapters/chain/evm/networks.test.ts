import { parseAbiItem, parseEther, parseUnits, type Address } from "viem";
import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { evmChain } from "../../../../src/evm";
import { createPaymentRouter, sandboxChain, staticPricing } from "../../../../src/index";
import { testTokenAbi } from "../../../fixtures/contracts/artifacts";
import type { Harness } from "../../../helpers";
import { balances } from "../../../http/v1/support";
import { startAnvil, type Anvil } from "./anvil";
import { deployToken, ethChain, HOT, liveHarness, livePayment, payment, payNative, payToken, settle } from "./support";

/**
 * Several live EVM chains behind one router (ETH and BNB Smart Chain on two real nodes, with
 * a token of 6 decimals on one and 18 on the other), consolidation into the hot wallet, and the
 * boot-time checks of the configuration.
 */

let eth: Anvil;
let bsc: Anvil;
let ethUsdt: Address;
let bscUsdt: Address;
const open: Harness[] = [];

beforeAll(async () => {
  [eth, bsc] = await Promise.all([startAnvil(), startAnvil({ chainId: 56 })]);
  [ethUsdt, bscUsdt] = await Promise.all([deployToken(eth, "USDT", 6), deployToken(bsc, "USDT", 18)]);
}, 60_000);
afterAll(async () => {
  await Promise.all([eth.stop(), bsc.stop()]);
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.router.close();
});

const ethAdapter = () => ethChain(eth, { tokens: { USDT: { address: ethUsdt, decimals: 6 } } });
const bscAdapter = () =>
  evmChain({ network: "BSC", rpcUrl: bsc.rpcUrl, hotWallet: bsc.privateKey(HOT), chainId: 56, tokens: { USDT: { address: bscUsdt, decimals: 18 } } });

describe("two EVM networks at once", () => {
  it("takes USDT on ETH (6 decimals) and on BSC (18 decimals on chain) in one router, each from its own node", async () => {
    const h = await liveHarness([ethAdapter(), bscAdapter()]);
    open.push(h);
    const currencies = await h.post("/api/v1/currencies", undefined, h.liveKey);
    const usdt = currencies.body.find((currency: { symbol: string }) => currency.symbol === "USDT");
    expect(usdt.networks.map((network: { network: string }) => network.network)).toEqual(["ETH", "BSC"]);

    const onEth = await livePayment(h, { amount: "12.5", currency: "USDT", chain: "ETH" });
    const onBsc = await livePayment(h, { amount: "7.25", currency: "USDT", chain: "BSC" });
    await payToken(eth, ethUsdt, 6, onEth.address, "12.5");
    // 18 decimals on chain, 6 in the ledger: the dust below a micro-USDT is not credited.
    await bsc.wallet.writeContract({
      address: bscUsdt,
      abi: testTokenAbi,
      functionName: "transfer",
      args: [onBsc.address as Address, parseUnits("7.25", 18) + 999n],
      account: bsc.account(1),
      chain: null,
    });
    await Promise.all([eth.mine(12), bsc.mine(15)]);
    await settle(h);
    expect(await payment(h, onEth.id)).toMatchObject({ status: "PAID", receivedAmount: "12.5" });
    expect(await payment(h, onBsc.id)).toMatchObject({ status: "PAID", receivedAmount: "7.25" });
    expect((await balances(h, h.liveKey)).USDT?.available).toBe("19.65125"); // 19.75 x 0.995
  });

  it("pays a USDT payout on BSC in 18-decimal units on chain", async () => {
    const h = await liveHarness([ethAdapter(), bscAdapter()]);
    open.push(h);
    const funding = await livePayment(h, { amount: "50", currency: "USDT", chain: "BSC" });
    await payToken(bsc, bscUsdt, 18, funding.address, "50");
    await bsc.mine(15);
    await settle(h);
    await bsc.wallet.writeContract({
      address: bscUsdt,
      abi: testTokenAbi,
      functionName: "mint",
      args: [bsc.account(HOT).address, parseUnits("1000", 18)],
      account: bsc.account(0),
      chain: null,
    });
    const to = bsc.account(30).address;
    const res = await h.post("/v1/withdrawals", { currency: "USDT", chain: "BSC", amount: "10.5", address: to }, h.liveKey);
    expect(res.status, res.text).toBe(200);
    await bsc.mine(15);
    await settle(h);
    expect((await h.post("/api/v1/merchants/payout/fetch", { payoutId: res.body.id }, h.liveKey)).body.status).toBe("COMPLETED");
    expect(await bsc.public.readContract({ address: bscUsdt, abi: testTokenAbi, functionName: "balanceOf", args: [to] })).toBe(parseUnits("10.5", 18));
  });
});

describe("the hosted page in live mode", () => {
  it("offers only what the chains serve, and a payer's choice is paid on chain to PAID", async () => {
    const h = await liveHarness([ethAdapter(), bscAdapter()]);
    open.push(h);
    const created = await h.post("/api/v1/merchants/invoice/create", { amount: 20 }, h.liveKey);
    expect(created.status, created.text).toBe(200);
    const page = await request(h.app).get(`/pay/${created.body.id}`);
    expect(page.status).toBe(200);
    expect([...page.text.matchAll(/data-option="([^"]+)"/g)].map((match) => match[1])).toEqual(["ETH/ETH", "USDT/ETH", "USDT/BSC"]);
    const refused = await request(h.app)
      .post(`/pay/${created.body.id}/method`)
      .set("Sec-Fetch-Site", "same-origin")
      .type("form")
      .send({ coin: "USDT", network: "TRX" });
    expect(refused.status).toBe(400);

    const chosen = await request(h.app)
      .post(`/pay/${created.body.id}/method`)
      .set("Sec-Fetch-Site", "same-origin")
      .type("form")
      .send({ coin: "USDT", network: "BSC" });
    expect(chosen.status).toBe(303);
    const invoice = await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: created.body.id }, h.liveKey);
    expect(invoice.body.network).toEqual({ network: "BSC" });
    await payToken(bsc, bscUsdt, 18, invoice.body.address, String(invoice.body.payAmount));
    await bsc.mine(15);
    await settle(h);
    expect((await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: created.body.id }, h.liveKey)).body.status).toBe("PAID");
  });
});

describe("consolidation", () => {
  it("moves the funds of paid deposit addresses into the hot wallet, one sweep per coin, with no gas sent to the deposit addresses", async () => {
    const h = await liveHarness([ethAdapter()]);
    open.push(h);
    const hot = eth.account(HOT).address;
    const ethPaid = await livePayment(h, { amount: "0.7", currency: "ETH", chain: "ETH" });
    const ethPaid2 = await livePayment(h, { amount: "0.3", currency: "ETH", chain: "ETH" });
    const usdtPaid = await livePayment(h, { amount: "40", currency: "USDT", chain: "ETH" });
    await payNative(eth, ethPaid.address, "0.7");
    await payNative(eth, ethPaid2.address, "0.3");
    await payToken(eth, ethUsdt, 6, usdtPaid.address, "40");
    const hotUsdt = await eth.public.readContract({ address: ethUsdt, abi: testTokenAbi, functionName: "balanceOf", args: [hot] });
    await eth.mine(12);
    for (let i = 0; i < 8; i++) {
      await h.router.tick();
      await eth.mine(1);
    }
    expect((await payment(h, ethPaid.id)).status).toBe("PAID");
    for (const address of [ethPaid.address, ethPaid2.address, usdtPaid.address]) {
      expect(await eth.public.getBalance({ address: address as Address })).toBe(0n);
    }
    expect(await eth.public.readContract({ address: ethUsdt, abi: testTokenAbi, functionName: "balanceOf", args: [usdtPaid.address as Address] })).toBe(0n);
    expect(await eth.public.readContract({ address: ethUsdt, abi: testTokenAbi, functionName: "balanceOf", args: [hot] })).toBe(hotUsdt + parseUnits("40", 6));
    // The factory's Swept events account for every wei moved.
    const swept = await eth.public.getLogs({
      event: parseAbiItem("event Swept(address indexed token, address indexed forwarder, uint256 amount)"),
      fromBlock: 0n,
    });
    const native = swept.filter((log) => log.args.token === "0x0000000000000000000000000000000000000000");
    expect(native.map((log) => log.args.amount).sort()).toEqual([parseEther("0.3"), parseEther("0.7")].sort());
    // The ledger was never touched by it.
    expect((await balances(h, h.liveKey)).ETH?.available).toBe("0.995");
  });
});

describe("configuration checked at boot", () => {
  const key = `0x${"ab".repeat(32)}`;
  it("refuses the sandbox as a live chain", () => {
    expect(() => createPaymentRouter({ chains: [sandboxChain()], backgroundIntervalMs: false })).toThrow(/sandbox chain .*cannot serve live mode/);
  });

  it("refuses two adapters claiming one coin and network", () => {
    const a = evmChain({ network: "ETH", rpcUrl: "http://127.0.0.1:1", hotWallet: key });
    const b = evmChain({
      network: "ETH",
      rpcUrl: "http://127.0.0.1:2",
      hotWallet: key,
      nativeCoin: null,
      tokens: { USDT: { address: "0xdAC17F958D2ee523a2206206994597C13D831ec7", decimals: 6 } },
    });
    const c = evmChain({ network: "ETH", rpcUrl: "http://127.0.0.1:3", hotWallet: key });
    expect(() => createPaymentRouter({ chains: [a, c], backgroundIntervalMs: false })).toThrow(/two chain adapters use the feed id "evm:ETH"/);
    const d = { ...b, feedId: "evm:ETH-tokens" };
    const e = {
      ...evmChain({
        network: "ETH",
        rpcUrl: "http://127.0.0.1:4",
        hotWallet: key,
        tokens: { USDT: { address: "0xdAC17F958D2ee523a2206206994597C13D831ec7", decimals: 6 } },
      }),
      feedId: "evm:ETH-all",
    };
    expect(() => createPaymentRouter({ chains: [d, e], backgroundIntervalMs: false })).toThrow(/USDT\/ETH is claimed by two chain adapters/);
  });

  it("refuses an adapter that serves nothing in the currency list, and chain together with chains", () => {
    const avalanche = evmChain({ network: "AVAXC", rpcUrl: "http://127.0.0.1:1", hotWallet: key });
    expect(() => createPaymentRouter({ chains: [avalanche], backgroundIntervalMs: false })).toThrow(/serves none of the currency list/);
    const a = evmChain({ network: "ETH", rpcUrl: "http://127.0.0.1:1", hotWallet: key });
    expect(() => createPaymentRouter({ chain: a, chains: [a], backgroundIntervalMs: false })).toThrow(/not both/);
  });

  it("names the option at fault and never shows the key or the URL", () => {
    const secretUrl = "https://user:hunter2@node.example/v3/0123456789abcdef";
    const attempts: Array<[Record<string, unknown>, RegExp]> = [
      [{ network: "ETH", rpcUrl: secretUrl, hotWallet: "0x1234" }, /hotWallet must be a 0x private key/],
      [{ network: "ETH", rpcUrl: secretUrl, hotWallet: `${key}ff` }, /hotWallet/],
      [{ network: "ETH", rpcUrl: "ftp://node", hotWallet: key }, /rpcUrl must be an http\(s\) URL/],
      [{ network: "ETH", rpcUrl: secretUrl, hotWallet: key, tokens: { USDT: { address: "0x1234", decimals: 6 } } }, /tokens\.USDT\.address/],
      [
        { network: "ETH", rpcUrl: secretUrl, hotWallet: key, tokens: { USDT: { address: "0xdAC17F958D2ee523a2206206994597C13D831ec7", decimals: -1 } } },
        /tokens\.USDT\.decimals/,
      ],
      [{ network: "ETH", rpcUrl: secretUrl }, /hotWallet is required/],
      [{ network: "ETH", rpcUrl: secretUrl, hotWallet: key, confirmation: 3 }, /unknown option\(s\) confirmation/],
    ];
    for (const [options, message] of attempts) {
      let thrown: unknown;
      try {
        evmChain(options as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(options)).toBeInstanceOf(TypeError);
      const text = String((thrown as Error).message);
      expect(text).toMatch(message);
      expect(text).not.toContain("hunter2");
      expect(text).not.toContain("0123456789abcdef");
      expect(text).not.toContain("ab".repeat(32));
    }
  });

  it("refuses a token with fewer decimals on chain than the ledger keeps", () => {
    const adapter = evmChain({
      network: "ETH",
      rpcUrl: eth.rpcUrl,
      hotWallet: key,
      tokens: { USDT: { address: "0xdAC17F958D2ee523a2206206994597C13D831ec7", decimals: 2 } },
    });
    expect(() => createPaymentRouter({ chains: [adapter], pricing: staticPricing({ allowLive: true }), backgroundIntervalMs: false })).toThrow(
      /USDT has 2 decimals on ETH but 6 in the currency list/,
    );
  });

  it("refuses a node on another chain than chainId, naming the node once", async () => {
    // anvil serves chain 31337. The refusal reaches pollDeposits and maintain through layers
    // that each scrub node errors: it must not read "ETH node: ETH node is on chain ...".
    const adapter = ethChain(eth, { chainId: 1 });
    open.push(await liveHarness([adapter]));
    const refusal = /^ETH node is on chain 31337, but chainId 1 was configured$/;
    await expect(adapter.pollDeposits(null, 100)).rejects.toThrow(refusal);
    await expect(adapter.maintain!()).rejects.toThrow(refusal);
  });
});
