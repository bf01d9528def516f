import { erc20Abi, getAddress, parseUnits, type Address } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { listUnlistedTransfers } from "../../../../src/core/deposits/unlisted";
import type { Harness } from "../../../helpers";
import { balances } from "../../../http/v1/support";
import { startAnvil, type Anvil } from "./anvil";
import { startRpcProxy } from "../rpc-proxy";
import { deployToken, ethChain, HOT, liveHarness, livePayment, payment, payToken } from "./support";

/**
 * A token the chain does not list, sent to a deposit address on a real node (anvil): the
 * scanner sees its Transfer log, core stores and logs it once it is final, the operator's list
 * names it, and the consolidation sweep leaves it where it is. A second TestToken plays the
 * unlisted token (18 decimals, like most).
 */

let node: Anvil;
let usdt: Address;
let unlisted: Address;
const open: Harness[] = [];

beforeAll(async () => {
  node = await startAnvil();
  [usdt, unlisted] = [await deployToken(node, "USDT", 6), await deployToken(node, "AIR", 18)];
}, 60_000);
afterAll(async () => {
  await node.stop();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.router.close();
});

async function harness(rpcUrl = node.rpcUrl): Promise<Harness> {
  const h = await liveHarness([ethChain(node, { rpcUrl, tokens: { USDT: { address: usdt, decimals: 6 } } })]);
  open.push(h);
  return h;
}

const balanceOf = (token: Address, holder: string) =>
  node.public.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [holder as Address] });
const unlistedLines = (h: Harness) => h.logger.lines.filter((line) => line.includes("unlisted token"));

/** Background rounds, one block mined after each: deposits become final and sweeps confirm. */
async function rounds(h: Harness, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await h.router.tick();
    await node.mine(1);
  }
}

describe("a token the chain does not list", () => {
  it("is held until final, then stored and logged once (contract, raw amount, address, tx), never credited, and left at the address by the sweep", async () => {
    const h = await harness();
    const created = await livePayment(h, { amount: "40", currency: "USDT", chain: "ETH" });
    await payToken(node, usdt, 6, created.address, "40");
    const txHash = await payToken(node, unlisted, 18, created.address, "1234.5");
    const receipt = await node.public.getTransactionReceipt({ hash: txHash });
    const log = receipt.logs.find((entry) => getAddress(entry.address) === getAddress(unlisted))!;

    // One confirmation: seen, but not final (ETH's minConfirm is 12), so not reported yet.
    await h.router.tick();
    expect(await listUnlistedTransfers({ storage: h.router.storage }, "live")).toEqual([]);
    expect(unlistedLines(h)).toEqual([]);

    await node.mine(11);
    await rounds(h, 8);
    expect(await payment(h, created.id)).toMatchObject({ status: "PAID", receivedAmount: "40" });

    const listed = await listUnlistedTransfers({ storage: h.router.storage }, "live");
    expect(listed).toEqual([
      expect.objectContaining({
        mode: "live",
        network: "ETH",
        token: getAddress(unlisted),
        address: created.address,
        txHash,
        logIndex: log.logIndex,
        amount: parseUnits("1234.5", 18),
        blockNumber: Number(receipt.blockNumber),
        merchantId: h.merchant.id,
        invoiceId: created.id,
        coin: "USDT",
      }),
    ]);
    const lines = unlistedLines(h);
    expect(lines).toHaveLength(1);
    for (const part of [getAddress(unlisted), parseUnits("1234.5", 18).toString(), created.address, txHash]) expect(lines[0]).toContain(part);

    // The sweep took the listed coin into the hot wallet and left the unlisted token alone.
    expect(await balanceOf(usdt, created.address)).toBe(0n);
    expect(await balanceOf(unlisted, created.address)).toBe(parseUnits("1234.5", 18));
    expect(await balanceOf(unlisted, node.account(HOT).address)).toBe(0n);
    // Never credited: the only balance is the USDT payment, net of the fee.
    const held = Object.entries(await balances(h, h.liveKey)).filter(([, balance]) => balance.available !== "0");
    expect(held).toEqual([["USDT", expect.objectContaining({ available: "39.8" })]]);

    // Later rounds find nothing new: logged once, listed once.
    await rounds(h, 3);
    expect(unlistedLines(h)).toHaveLength(1);
    expect(await listUnlistedTransfers({ storage: h.router.storage }, "live")).toHaveLength(1);
  });

  it("reports each of several unlisted transfers to issued addresses, and none to an address it never issued", async () => {
    const h = await harness();
    const first = await livePayment(h, { amount: "1", currency: "ETH", chain: "ETH" });
    const second = await livePayment(h, { amount: "5", currency: "USDT", chain: "ETH" });
    const stranger = node.account(5).address;
    const paid = [
      { address: first.address, txHash: await payToken(node, unlisted, 18, first.address, "1") },
      { address: first.address, txHash: await payToken(node, unlisted, 18, first.address, "2") },
      { address: second.address, txHash: await payToken(node, unlisted, 18, second.address, "3") },
    ];
    await payToken(node, unlisted, 18, stranger, "4");
    await node.mine(12);
    await rounds(h, 2);
    const listed = await listUnlistedTransfers({ storage: h.router.storage }, "live");
    expect(listed.map((transfer) => [transfer.address, transfer.txHash, transfer.amount])).toEqual(
      paid.map(({ address, txHash }, i) => [address, txHash, parseUnits(String(i + 1), 18)]),
    );
    expect(listed.map((transfer) => transfer.invoiceId)).toEqual([first.id, first.id, second.id]);
    expect(unlistedLines(h)).toHaveLength(3);
  });

  it("forgets an unlisted transfer that a reorg took off the chain before it was final", async () => {
    const h = await harness();
    const created = await livePayment(h, { amount: "1", currency: "ETH", chain: "ETH" });
    await h.router.tick();
    const mark = await node.test.snapshot();
    const height = await node.public.getBlockNumber();
    await payToken(node, unlisted, 18, created.address, "9");
    await h.router.tick(); // seen and held in the cursor
    await node.test.revert({ id: mark });
    await node.mine(Number((await node.public.getBlockNumber()) - height) + 2);
    await node.mine(12);
    await rounds(h, 2);
    expect(await listUnlistedTransfers({ storage: h.router.storage }, "live")).toEqual([]);
    expect(unlistedLines(h)).toEqual([]);
  });

  it("reads fewer blocks per eth_getLogs when the node refuses that many logs at once, and still finds everything", async () => {
    const proxy = await startRpcProxy(node.rpcUrl);
    try {
      // Every contract's Transfer logs of a 100-block poll can exceed what a provider answers.
      proxy.logBlockLimit = 4;
      const h = await harness(proxy.url);
      const created = await livePayment(h, { amount: "2", currency: "USDT", chain: "ETH" });
      await node.mine(20);
      await payToken(node, usdt, 6, created.address, "2");
      const txHash = await payToken(node, unlisted, 18, created.address, "7");
      await node.mine(30);
      for (let i = 0; i < 30 && (await payment(h, created.id)).status !== "PAID"; i++) await h.router.tick();
      expect(await payment(h, created.id)).toMatchObject({ status: "PAID", receivedAmount: "2" });
      for (let i = 0; i < 5; i++) await h.router.tick();
      const listed = await listUnlistedTransfers({ storage: h.router.storage }, "live");
      expect(listed.map((transfer) => [transfer.txHash, transfer.amount])).toEqual([[txHash, parseUnits("7", 18)]]);
    } finally {
      await proxy.close();
    }
  });
});
