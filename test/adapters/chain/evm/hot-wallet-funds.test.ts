import { formatUnits, parseEther, parseUnits, type Address } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { testTokenAbi } from "../../../fixtures/contracts/artifacts";
import type { Harness } from "../../../helpers";
import { balances } from "../../../http/v1/support";
import { startAnvil, type Anvil } from "./anvil";
import { deployToken, ethChain, HOT, liveHarness, livePayment, mine, payment, payToken, settle, mintToken } from "./support";

/**
 * The hot wallet's balances on a real node: read on the background schedule with their
 * low-balance thresholds, a warning logged once per crossing, and payouts it cannot fund
 * refused at creation with their own code, nothing debited.
 */

let node: Anvil;
let usdt: Address;
const open: Harness[] = [];

beforeAll(async () => {
  node = await startAnvil();
  usdt = await deployToken(node, "USDT", 6);
  // The hot wallet's token float: 50 USDT.
  await mintToken(node, usdt, node.account(HOT).address, "50", 6);
}, 60_000);
afterAll(async () => {
  await node.stop();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.router.close();
});

async function harness(lowBalance?: Record<string, string>): Promise<Harness> {
  // Deposits stay at their addresses (no consolidation): the hot wallet holds only its float.
  const chain = ethChain(node, { tokens: { USDT: { address: usdt, decimals: 6 } }, consolidation: false, ...(lowBalance ? { lowBalance } : {}) });
  const h = await liveHarness([chain]);
  open.push(h);
  return h;
}

describe("hot wallet balances", () => {
  it("reads the native coin and every token, with their thresholds, on the background schedule", async () => {
    const h = await harness({ ETH: "0.05", USDT: "100" });
    expect(h.router.admin.hotWallets()).toEqual([{ chain: "evm:ETH", balances: [], readAt: null, error: null }]);
    await h.router.tick();
    const [reading] = h.router.admin.hotWallets();
    expect(reading!.readAt).toBe(h.clock.now());
    expect(reading!.error).toBeNull();
    const eth = await node.public.getBalance({ address: node.account(HOT).address });
    expect(reading!.balances).toEqual([
      { coin: "ETH", network: "ETH", address: node.account(HOT).address, amount: eth, lowBalance: parseEther("0.05"), low: false },
      { coin: "USDT", network: "ETH", address: node.account(HOT).address, amount: parseUnits("50", 6), lowBalance: parseUnits("100", 6), low: true },
    ]);
  });

  it("logs one warning when a coin is below its threshold, none in later rounds, and one line when it recovers", async () => {
    const h = await harness({ USDT: "100" });
    const warnings = () => h.logger.lines.filter((line) => line.includes("low-balance threshold"));
    await h.router.tick();
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain("50 USDT");
    expect(warnings()[0]).toContain("threshold of 100");
    for (let round = 0; round < 3; round++) {
      h.clock.advanceMinutes(2);
      await h.router.tick();
    }
    expect(warnings()).toHaveLength(1);
    // Reads are at most a minute apart, whatever the round interval.
    const readAt = h.router.admin.hotWallets()[0]!.readAt;
    await h.router.tick();
    expect(h.router.admin.hotWallets()[0]!.readAt).toBe(readAt);
    // Topped up: one line says so, and the reading is no longer low.
    await mintToken(node, usdt, node.account(HOT).address, "100", 6);
    h.clock.advanceMinutes(2);
    await h.router.tick();
    expect(h.logger.lines.filter((line) => line.includes("again, above its threshold"))).toHaveLength(1);
    expect(h.router.admin.hotWallets()[0]!.balances.find((balance) => balance.coin === "USDT")!.low).toBe(false);
    // Back to the 50 USDT float for the other tests.
    await mine(
      node,
      node.wallet.writeContract({
        address: usdt,
        abi: testTokenAbi,
        functionName: "transfer",
        args: [node.account(0).address, parseUnits("100", 6)],
        account: node.account(HOT),
        chain: null,
      }),
    );
  });

  it("refuses at start-up a threshold of a coin not served, or one finer than the coin", () => {
    expect(() => ethChain(node, { lowBalance: { USDT: "1" } })).toThrow(/lowBalance\.USDT names a coin this adapter does not serve/);
    expect(() => ethChain(node, { tokens: { USDT: { address: usdt, decimals: 6 } }, lowBalance: { USDT: "0.0000001" } })).toThrow(/lowBalance\.USDT/);
    expect(() => ethChain(node, { lowBalance: { ETH: "1e3" } })).toThrow(/lowBalance/);
  });
});

describe("payouts the hot wallet cannot fund", () => {
  it("refuses a payout larger than the hot wallet with 42203 and debits nothing; a fundable one is sent", async () => {
    const h = await harness();
    // The merchant holds 200 USDT, left at the deposit address; the hot wallet holds 50.
    const created = await livePayment(h, { amount: "200", currency: "USDT", chain: "ETH" });
    await payToken(node, usdt, 6, created.address, "200");
    await node.mine(12);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("PAID");
    const before = (await balances(h, h.liveKey)).USDT;
    const to = node.account(30).address;

    const refused = await h.post("/v1/withdrawals", { currency: "USDT", chain: "ETH", amount: "100", address: to }, h.liveKey);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.error).toBe(42203);
    expect(refused.body.message).toContain("hot wallet");
    expect((await balances(h, h.liveKey)).USDT).toEqual(before);
    expect((await h.router.forMerchant(h.merchant.id, "live").withdrawals.list()).data).toEqual([]);

    // Beyond the merchant's own balance too: the merchant hears about its balance (42201), not the wallet.
    const beyond = await h.post("/v1/withdrawals", { currency: "USDT", chain: "ETH", amount: "500", address: to }, h.liveKey);
    expect(beyond.body.error, beyond.text).toBe(42201);

    const sent = await h.post("/v1/withdrawals", { currency: "USDT", chain: "ETH", amount: "20", address: to }, h.liveKey);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    await node.mine(12);
    await settle(h);
    expect(await node.public.readContract({ address: usdt, abi: testTokenAbi, functionName: "balanceOf", args: [to] })).toBe(parseUnits("20", 6));
    // 30 USDT left: a payout of 40 is refused too, the balance it would debit untouched.
    const after = (await balances(h, h.liveKey)).USDT;
    const again = await h.post("/v1/withdrawals", { currency: "USDT", chain: "ETH", amount: "40", address: to }, h.liveKey);
    expect(again.body.error, again.text).toBe(42203);
    expect((await balances(h, h.liveKey)).USDT).toEqual(after);
  });

  it("refuses a token payout when the hot wallet has no native coin for its gas", async () => {
    const h = await harness();
    const created = await livePayment(h, { amount: "30", currency: "USDT", chain: "ETH" });
    await payToken(node, usdt, 6, created.address, "30");
    await node.mine(12);
    await settle(h);
    const before = (await balances(h, h.liveKey)).USDT!.available;
    const hot = node.account(HOT).address;
    const eth = await node.public.getBalance({ address: hot });
    await node.test.setBalance({ address: hot, value: 1n });
    try {
      const refused = await h.post("/v1/withdrawals", { currency: "USDT", chain: "ETH", amount: "15", address: node.account(31).address }, h.liveKey);
      expect(refused.status, refused.text).toBe(422);
      expect(refused.body.error).toBe(42203);
      expect(refused.body.message).toContain("ETH for the fee of a USDT payout");
      expect((await balances(h, h.liveKey)).USDT!.available).toBe(before);
    } finally {
      await node.test.setBalance({ address: hot, value: eth });
    }
  });

  it("counts a payout held for approval as not yet sent, until it is rejected", async () => {
    const h = await harness();
    const created = await livePayment(h, { amount: "200", currency: "USDT", chain: "ETH" });
    await payToken(node, usdt, 6, created.address, "200");
    await node.mine(12);
    await settle(h);
    const to = node.account(32).address;
    // Whatever the tests before sent from it: a threshold of half the hot wallet's USDT, and a held payout of three quarters.
    const hot = await node.public.readContract({ address: usdt, abi: testTokenAbi, functionName: "balanceOf", args: [node.account(HOT).address] });
    const half = formatUnits(hot / 2n, 6);
    await h.router.admin.setPayoutApproval(h.merchant.id, { above: half, currency: "USDT" });
    const held = await h.post("/v1/withdrawals", { currency: "USDT", chain: "ETH", amount: formatUnits((hot * 3n) / 4n, 6), address: to }, h.liveKey);
    expect(held.body.status, held.text).toBe("AWAITING_APPROVAL");
    const refused = await h.post("/v1/withdrawals", { currency: "USDT", chain: "ETH", amount: half, address: to }, h.liveKey);
    expect(refused.body.error, refused.text).toBe(42203);
    await h.router.admin.rejectPayout(held.body.id, { by: "user_ops" });
    const sent = await h.post("/v1/withdrawals", { currency: "USDT", chain: "ETH", amount: half, address: to }, h.liveKey);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.status).toBe("PROCESSING");
    expect(sent.body.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    await node.mine(12);
    await settle(h);
  });
});
