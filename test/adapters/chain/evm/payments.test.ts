import type { Address } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type Anvil } from "./anvil";
import { closeReceivers, createEndpoint, startReceiver } from "../../../delivery/receiver";
import { balances, get } from "../../../http/v1/support";
import type { Harness } from "../../../helpers";
import { deployPayer, deployToken, ethChain, liveHarness, livePayment, payment, payNative, payThroughContract, payToken, settle } from "./support";

/**
 * Live payments on a real EVM node (anvil), through the public HTTP API with a live key: the
 * evmChain adapter finds the transfers, core moves the invoices and credits the ledger.
 */

let node: Anvil;
let usdt: Address;
let payerContract: Address;
const open: Harness[] = [];

beforeAll(async () => {
  node = await startAnvil();
  usdt = await deployToken(node, "USDT", 6);
  payerContract = await deployPayer(node);
}, 60_000);
afterAll(async () => {
  await node.stop();
});
afterEach(async () => {
  await closeReceivers();
  for (const h of open.splice(0)) await h.router.close();
});

async function harness(): Promise<Harness> {
  const h = await liveHarness([ethChain(node, { tokens: { USDT: { address: usdt, decimals: 6 } } })]);
  open.push(h);
  return h;
}

describe("ETH on a real node", () => {
  it("takes an ETH payment: CONFIRMING on the first block, PAID after minConfirm, credited net of the fee, payment.completed delivered", async () => {
    const h = await harness();
    const receiver = await startReceiver();
    await createEndpoint(h, receiver.url, { key: h.liveKey });
    const created = await livePayment(h, { amount: "0.5", currency: "ETH", chain: "ETH", metadata: { orderId: "order-77" } });
    expect(created.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(created.payAmount).toBe("0.5");

    await payNative(node, created.address, "0.5");
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");

    await node.mine(10); // 11 confirmations: one short of ETH's 12
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");
    await node.mine(1);
    await settle(h);
    const paid = await payment(h, created.id);
    expect(paid.status).toBe("PAID");
    expect(paid.receivedAmount).toBe("0.5");

    // 0.5 ETH less the 0.5% fee, exactly.
    expect((await balances(h, h.liveKey)).ETH?.available).toBe("0.4975");
    const completed = receiver.events().filter((event) => event.type === "payment.completed");
    expect(completed).toHaveLength(1);
    expect(completed[0]!.data.id).toBe(created.id);
    expect(completed[0]!.data.metadata).toEqual({ orderId: "order-77" });
    expect(receiver.events().map((event) => event.type)).toEqual(["payment.created", "payment.confirming", "payment.confirmed", "payment.completed"]);
  });

  it("credits ETH that arrives through a contract's internal call", async () => {
    const h = await harness();
    const created = await livePayment(h, { amount: "0.25", currency: "ETH", chain: "ETH" });
    await payThroughContract(node, payerContract, created.address, "0.25");
    await node.mine(11);
    await settle(h);
    const paid = await payment(h, created.id);
    expect(paid.status).toBe("PAID");
    expect(paid.receivedAmount).toBe("0.25");
  });

  it("takes a payment in two transfers, and shows under- and overpayment", async () => {
    const h = await harness();
    const twice = await livePayment(h, { amount: "1", currency: "ETH", chain: "ETH" });
    const under = await livePayment(h, { amount: "1", currency: "ETH", chain: "ETH" });
    const over = await livePayment(h, { amount: "1", currency: "ETH", chain: "ETH" });
    await payNative(node, twice.address, "0.4");
    await payNative(node, twice.address, "0.6");
    await payNative(node, under.address, "0.9");
    await payNative(node, over.address, "1.3");
    await node.mine(12);
    await settle(h);
    expect(await payment(h, twice.id)).toMatchObject({ status: "PAID", receivedAmount: "1" });
    expect(await payment(h, under.id)).toMatchObject({ status: "UNDER_PAID", receivedAmount: "0.9" });
    expect(await payment(h, over.id)).toMatchObject({ status: "PAID", receivedAmount: "1.3" });
    // Every confirmed deposit is credited, net of the fee: (1 + 0.9 + 1.3) x 0.995.
    expect((await balances(h, h.liveKey)).ETH?.available).toBe("3.184");
  });

  it("reopens an expired payment paid late, within the late window", async () => {
    const h = await harness();
    const created = await livePayment(h, { amount: "0.1", currency: "ETH", chain: "ETH", lifeTime: 10 });
    h.clock.advanceMinutes(11);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("EXPIRED");
    await payNative(node, created.address, "0.1");
    await node.mine(11);
    await settle(h);
    const paid = await payment(h, created.id);
    expect(paid).toMatchObject({ status: "PAID", receivedAmount: "0.1" });
  });
});

describe("ERC-20 on a real node", () => {
  it("takes a USDT (6 decimals) payment to PAID", async () => {
    const h = await harness();
    const created = await livePayment(h, { amount: "25.5", currency: "USDT", chain: "ETH" });
    await payToken(node, usdt, 6, created.address, "25.5");
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");
    await node.mine(11);
    await settle(h);
    expect(await payment(h, created.id)).toMatchObject({ status: "PAID", receivedAmount: "25.5" });
    expect((await balances(h, h.liveKey)).USDT?.available).toBe("25.3725");
  });

  it("finds two transfers of one token in one transaction as two deposits", async () => {
    const h = await harness();
    const created = await livePayment(h, { amount: "10", currency: "USDT", chain: "ETH" });
    // Two Transfer logs in one block from two transactions, and the scanner keeps them apart.
    await payToken(node, usdt, 6, created.address, "4");
    await payToken(node, usdt, 6, created.address, "6");
    await node.mine(12);
    await settle(h);
    expect(await payment(h, created.id)).toMatchObject({ status: "PAID", receivedAmount: "10" });
  });
});

describe("live mode shows what the chains serve", () => {
  it("lists only the served coins and networks, and refuses an unserved pair with a 400 naming what is served", async () => {
    const h = await harness();
    const live = await h.post("/api/v1/currencies", undefined, h.liveKey);
    expect(live.status).toBe(200);
    expect(
      live.body.map((currency: { symbol: string; networks: Array<{ network: string }> }) => [currency.symbol, currency.networks.map((n) => n.network)]),
    ).toEqual([
      ["ETH", ["ETH"]],
      ["USDT", ["ETH"]],
    ]);
    const test = await h.post("/api/v1/currencies", undefined, h.testKey);
    expect(test.body.length).toBeGreaterThan(2);

    const refused = await h.post("/v1/payments", { amount: "1", currency: "BTC" }, h.liveKey);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/BTC on BTC is not served in live mode; served: ETH\/ETH, USDT\/ETH/);
    const onTron = await h.post("/v1/payments", { amount: "5", currency: "USDT", chain: "TRX" }, h.liveKey);
    expect(onTron.status).toBe(400);

    // USDT has three networks in the list, but live mode serves one: no chain needs naming.
    const usdtPayment = await livePayment(h, { amount: "5", currency: "USDT" });
    expect(usdtPayment.chain).toBe("ETH");

    const pairs = await h.post("/api/v1/exchange/pairs", undefined, h.liveKey);
    expect(
      pairs.body.map((pair: { fromCurrency: { symbol: string }; toCurrency: { symbol: string } }) => `${pair.fromCurrency.symbol}>${pair.toCurrency.symbol}`),
    ).toEqual(["ETH>USDT", "USDT>ETH"]);
  });

  it("rejects payouts to malformed addresses in live mode", async () => {
    const h = await harness();
    for (const address of ["not-an-address", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", "0x0000000000000000000000000000000000000000"]) {
      const res = await h.post("/v1/withdrawals", { currency: "ETH", chain: "ETH", amount: "0.01", address }, h.liveKey);
      expect(res.status, address).toBe(400);
    }
    const balance = await get(h, "/v1/balances", h.liveKey);
    expect(balance.status).toBe(200);
  });
});
