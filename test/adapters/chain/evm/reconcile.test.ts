import { formatEther, getAddress, parseEther, parseUnits, type Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresStorage } from "../../../../src/postgres";
import type { ReconcileReport, ReconcileRow } from "../../../../src/operator";
import type { Harness } from "../../../helpers";
import { get } from "../../../http/v1/support";
import { describeIf, NO_DATABASE_URL } from "../../../support/skips";
import { DATABASE_URL, dropSchema, uniqueSchema } from "../../storage/sql-fixtures";
import { startAnvil, type Anvil } from "./anvil";
import { deployToken, ethChain, HOT, liveHarness, livePayment, payment, payNative, payToken, settle, mintToken } from "./support";

/**
 * `payments.admin.reconcile()` on a real node (anvil), each cause of a difference (or of none)
 * produced on purpose through the public API: payments and withdrawals over HTTP, `tick()`, and
 * the chain moved by the test (outside transfers, a deep reorg, a payout held in the pool).
 */

let node: Anvil;
let usdt: Address;
let air: Address;
let h: Harness;
let otherLiveKey: string;
let hotWallet: Address;
let ethFloat: bigint;

beforeAll(async () => {
  node = await startAnvil();
  [usdt, air] = [await deployToken(node, "USDT", 6), getAddress(await deployToken(node, "AIR", 18))];
  hotWallet = node.account(HOT).address;
  // The operator's float: anvil's dev balance in ETH, and 1000 USDT minted to the hot wallet.
  await mintToken(node, usdt, hotWallet, "1000", 6);
  ethFloat = await node.public.getBalance({ address: hotWallet });
  const chain = ethChain(node, {
    tokens: { USDT: { address: usdt, decimals: 6 } },
    consolidation: { minimum: { ETH: "0.05" } },
    float: { ETH: formatEther(ethFloat), USDT: "1000" },
  });
  h = await liveHarness([chain]);
  otherLiveKey = (await h.router.admin.issueApiKey(h.other.id, { mode: "live" })).key;
}, 60_000);
afterAll(async () => {
  await h?.router.close();
  await node?.stop();
});

/** Background rounds with one block mined after each: deposits become final, sweeps confirm. */
async function rounds(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await h.router.tick();
    await node.mine(1);
  }
}

/** gasUsed x effectiveGasPrice of every transaction `from` sent, read block by block from the node. */
async function gasPaidBy(from: Address): Promise<bigint> {
  let gas = 0n;
  const head = await node.public.getBlockNumber();
  for (let n = 0n; n <= head; n++) {
    const block = await node.public.getBlock({ blockNumber: n, includeTransactions: true });
    for (const tx of block.transactions) {
      if (getAddress(tx.from) !== from) continue;
      const receipt = await node.public.getTransactionReceipt({ hash: tx.hash });
      gas += receipt.gasUsed * receipt.effectiveGasPrice;
    }
  }
  return gas;
}

async function withdraw(body: Record<string, unknown>, key = h.liveKey) {
  const res = await h.post("/v1/withdrawals", { chain: "ETH", ...body }, key);
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; status: string; txHash: string | null };
}

/** The ETH chain's row of a coin. */
function row(report: ReconcileReport, coin: string): ReconcileRow {
  const chain = report.chains.find((entry) => entry.network === "ETH");
  if (!chain || !("rows" in chain)) throw new Error(`no ETH rows: ${JSON.stringify(chain)}`);
  return chain.rows.find((entry) => entry.coin === coin)!;
}

/** Each ETH row's difference, by coin. */
function rowDifferences(report: ReconcileReport): Record<string, string> {
  return Object.fromEntries(["ETH", "USDT"].map((coin) => [coin, row(report, coin).difference]));
}

describe("payments.admin.reconcile against anvil", () => {
  it("reports a clean run: deposits swept and payouts completed leave no difference and no surplus, fees equal the receipts' and the float and the service's fees are the operator's", async () => {
    const usdtPayment = await livePayment(h, { amount: "25", currency: "USDT", chain: "ETH" });
    const ethPayment = await livePayment(h, { amount: "0.1", currency: "ETH", chain: "ETH" });
    await payToken(node, usdt, 6, usdtPayment.address, "25");
    await payNative(node, ethPayment.address, "0.1");
    await node.mine(12);
    await settle(h);
    const usdtPayout = await withdraw({ currency: "USDT", amount: "10", address: node.account(4).address });
    await rounds(10); // the sweep, the factory deployed on the way
    const ethPayout = await withdraw({ currency: "ETH", amount: "0.02", address: node.account(5).address });
    await node.mine(12);
    await settle(h);
    for (const payout of [usdtPayout, ethPayout]) expect((await get(h, `/v1/withdrawals/${payout.id}`, h.liveKey)).body.status).toBe("COMPLETED");
    expect(await node.public.getBalance({ address: ethPayment.address as Address })).toBe(0n);

    const report = await h.router.admin.reconcile();
    expect(report).toMatchObject({ mode: "live", differences: 0, errors: 0, clean: true });
    const gas = await gasPaidBy(hotWallet);
    expect(gas).toBeGreaterThan(0n);
    expect(row(report, "ETH")).toMatchObject({
      received: "0.1",
      sent: "0.02",
      networkFees: formatEther(gas),
      float: formatEther(ethFloat),
      depositAddresses: "0",
      difference: "0",
    });
    expect(row(report, "USDT")).toMatchObject({ received: "25", sent: "10", networkFees: "0", float: "1000", difference: "0" });
    // Owed: 0.0995 - 0.021 ETH and 24.875 - 15 USDT; the rest is the operator's: the service's
    // fees (0.5% of each payment, each payout's fee), less the gas for ETH. Nothing is left over.
    const eth = report.assets.find((asset) => asset.asset === "ETH")!;
    expect(eth).toMatchObject({ owed: "0.0785", fees: "0.0015", networkFees: formatEther(gas), surplus: "0", shortfall: false });
    expect(parseEther(eth.held!)).toBe(parseEther("0.08") - gas);
    expect(report.assets.find((asset) => asset.asset === "USDT")).toMatchObject({
      owed: "9.875",
      held: "15",
      fees: "5.125",
      networkFees: "0",
      surplus: "0",
      shortfall: false,
    });
    // A second run reads only new receipts, and finds the same.
    expect(row(await h.router.admin.reconcile({ chain: "ETH" }), "ETH").networkFees).toBe(formatEther(gas));
  });

  it("lists a stray coin as credited and an unlisted token in rows of its own, without a difference", async () => {
    const usdtPayment = await livePayment(h, { amount: "5", currency: "USDT", chain: "ETH" });
    await payNative(node, usdtPayment.address, "0.06"); // ETH to a USDT payment
    await payToken(node, air, 18, usdtPayment.address, "777.000000000000000123");
    await node.mine(12);
    await settle(h);
    const report = await h.router.admin.reconcile();
    expect(report).toMatchObject({ differences: 0, clean: true });
    expect(row(report, "ETH").explained.strayDeposits).toEqual({ count: 1, amount: "0.06" });
    const chain = report.chains.find((entry) => entry.network === "ETH")!;
    expect(chain.unlistedTokens).toEqual([{ token: air, transfers: 1, amount: parseUnits("777.000000000000000123", 18).toString() }]);
  });

  it("lists a deposit reversed by a deep reorg and the merchant left in deficit, without a difference", async () => {
    // The other merchant's only ETH: its reversal takes the balance below zero.
    const doomedRes = await h.post("/v1/payments", { amount: "0.02", currency: "ETH", chain: "ETH" }, otherLiveKey);
    expect(doomedRes.status, doomedRes.text).toBe(200);
    const mark = await node.test.snapshot();
    await payNative(node, doomedRes.body.address, "0.02");
    await node.mine(12);
    await settle(h);
    expect((await get(h, `/v1/payments/${doomedRes.body.id}`, otherLiveKey)).body.status).toBe("PAID");
    // Spent before the reorg (converted to USDT), so the reversal takes the ETH balance below zero.
    // The deposit is below the sweep minimum: no transaction of the hot wallet is in the reverted window.
    const converted = await h.post("/v1/conversions", { fromCurrency: "ETH", toCurrency: "USDT", amount: "0.0199" }, otherLiveKey);
    expect(converted.status, converted.text).toBe(200);
    await node.test.revert({ id: mark });
    await node.mine(20);
    await settle(h);
    expect((await get(h, `/v1/payments/${doomedRes.body.id}`, otherLiveKey)).body.reversedAmount).toBe("0.02");

    const report = await h.router.admin.reconcile();
    expect(rowDifferences(report)).toEqual({ ETH: "0", USDT: "0" });
    expect(row(report, "ETH").explained.reversedDeposits).toEqual({ count: 1, amount: "0.02" });
    expect(report.assets.find((asset) => asset.asset === "ETH")!.deficits).toEqual({ count: 1, amount: "0.0199" });
    // The conversion left the service short of USDT (an exchange position the chain never saw): flagged, and counted.
    const usdtAsset = report.assets.find((asset) => asset.asset === "USDT")!;
    expect(usdtAsset.shortfall).toBe(true);
    expect(parseUnits(usdtAsset.held!, 6)).toBeLessThan(parseUnits(usdtAsset.owed, 6));
    expect(report).toMatchObject({ differences: 1, clean: false });
    expect(h.logger.lines.some((line) => line.startsWith("error reconcile:") && line.includes("USDT is owed to merchants"))).toBe(true);
  });

  it("counts a payout held in the node's pool as in flight, without a difference", async () => {
    await node.test.setAutomine(false);
    try {
      const pending = await withdraw({ currency: "ETH", amount: "0.01", address: node.account(6).address });
      expect(pending).toMatchObject({ status: "PROCESSING", txHash: expect.any(String) });
      const report = await h.router.admin.reconcile();
      expect(rowDifferences(report)).toEqual({ ETH: "0", USDT: "0" });
      expect(row(report, "ETH").explained.payoutsInFlight).toEqual({ count: 1, amount: "0.01" });
    } finally {
      await node.test.setAutomine(true);
    }
    await node.mine(12);
    await settle(h);
    const report = await h.router.admin.reconcile();
    expect(rowDifferences(report)).toEqual({ ETH: "0", USDT: "0" });
    expect(row(report, "ETH").explained.payoutsInFlight.count).toBe(0);
    expect(row(report, "ETH").networkFees).toBe(formatEther(await gasPaidBy(hotWallet)));
  });

  it("counts a payout held for approval as owed and not sent, without a difference, and sent once approved", async () => {
    await h.router.admin.setPayoutApproval(h.merchant.id, { above: "0.001", currency: "ETH" });
    try {
      const held = await withdraw({ currency: "ETH", amount: "0.01", address: node.account(7).address });
      expect(held).toMatchObject({ status: "AWAITING_APPROVAL", txHash: null });
      const before = await h.router.admin.reconcile();
      expect(rowDifferences(before)).toEqual({ ETH: "0", USDT: "0" });
      expect(row(before, "ETH").explained.payoutsNotSent).toEqual({ count: 1, amount: "0.01" });
      const owedBefore = parseEther(before.assets.find((asset) => asset.asset === "ETH")!.owed);
      await h.router.admin.approvePayout(held.id, { by: "user_ops" });
      await rounds(2);
      await node.mine(12);
      await settle(h);
      expect((await get(h, `/v1/withdrawals/${held.id}`, h.liveKey)).body.status).toBe("COMPLETED");
      const after = await h.router.admin.reconcile();
      expect(rowDifferences(after)).toEqual({ ETH: "0", USDT: "0" });
      expect(row(after, "ETH").explained.payoutsNotSent.count).toBe(0);
      // Sent: no longer owed.
      expect(parseEther(after.assets.find((asset) => asset.asset === "ETH")!.owed)).toBe(owedBefore - parseEther("0.01"));
    } finally {
      await h.router.admin.setPayoutApproval(h.merchant.id, null);
    }
  });

  it("counts a refund claim link's hold as owed and not sent, without a difference, until it is cancelled", async () => {
    const payment = await livePayment(h, { amount: "0.05", currency: "ETH", chain: "ETH" });
    await payNative(node, payment.address, "0.05");
    await node.mine(12);
    await settle(h);
    const created = await h.post("/v1/refunds", { paymentId: payment.id, amount: "0.01" }, h.liveKey);
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ status: "AWAITING_CLAIM", amount: "0.01" });
    const before = await h.router.admin.reconcile();
    expect(rowDifferences(before)).toEqual({ ETH: "0", USDT: "0" });
    expect(row(before, "ETH").explained.payoutsNotSent).toEqual({ count: 1, amount: "0.01" });
    const owedBefore = parseEther(before.assets.find((asset) => asset.asset === "ETH")!.owed);
    expect((await h.post(`/v1/refunds/${created.body.id}/cancel`, {}, h.liveKey)).body.status).toBe("CANCELLED");
    const after = await h.router.admin.reconcile();
    expect(rowDifferences(after)).toEqual({ ETH: "0", USDT: "0" });
    expect(row(after, "ETH").explained.payoutsNotSent.count).toBe(0);
    // The hold (0.01 and the 0.001 fee) is back on the balance: owed again, as before it was made, fee included.
    expect(parseEther(after.assets.find((asset) => asset.asset === "ETH")!.owed)).toBe(owedBefore + parseEther("0.001"));
  });

  it("shows coins sent to the hot wallet from outside as a difference of exactly their amount", async () => {
    await payNative(node, hotWallet, "0.5", 3);
    await payToken(node, usdt, 6, hotWallet, "7.000001");
    const report = await h.router.admin.reconcile();
    expect(rowDifferences(report)).toEqual({ ETH: "0.5", USDT: "7.000001" });
    expect(report).toMatchObject({ differences: 3, clean: false }); // two rows, and the USDT shortfall still there
  });

  it("refuses a chain no live chain serves", async () => {
    await expect(h.router.admin.reconcile({ chain: "DOGE" })).rejects.toThrow(TypeError);
    await expect(h.router.admin.reconcile({ chain: "DOGE" })).rejects.toThrow(/ETH/);
  });
});

describe("payments.admin.reconcile with a node down", () => {
  it("gives the chain an error entry without its URL, and still resolves", async () => {
    const down = await startAnvil();
    const harness = await liveHarness([ethChain(down)]);
    try {
      await down.stop();
      const report = await harness.router.admin.reconcile();
      expect(report).toMatchObject({ differences: 0, errors: 1, clean: false });
      expect(report.chains).toEqual([{ network: "ETH", error: expect.stringMatching(/ETH node/), unlistedTokens: [] }]);
      expect(JSON.stringify(report)).not.toContain(down.rpcUrl.replace("http://", ""));
      expect(report.assets.find((asset) => asset.asset === "ETH")?.held ?? null).toBeNull();
    } finally {
      await harness.router.close();
      await down.stop();
    }
  }, 60_000);
});

describeIf(DATABASE_URL, NO_DATABASE_URL)("payments.admin.reconcile on a PostgreSQL server", () => {
  const schema = uniqueSchema("evm_reconcile");
  afterAll(() => dropSchema(schema));

  it("reports a clean run after a payment swept and a payout completed", async () => {
    const account = 8; // a hot wallet of its own: the other router's nonce queue is in another storage
    const float = await node.public.getBalance({ address: node.account(account).address });
    const chain = ethChain(node, { hotWallet: node.privateKey(account), float: { ETH: formatEther(float) } });
    const server = await liveHarness([chain], { storage: postgresStorage({ connectionString: DATABASE_URL!, schema }) });
    try {
      const paid = await livePayment(server, { amount: "0.2", currency: "ETH", chain: "ETH" });
      await payNative(node, paid.address, "0.2");
      await node.mine(12);
      for (let i = 0; i < 6; i++) {
        await server.router.tick();
        await node.mine(1);
      }
      const res = await server.post("/v1/withdrawals", { chain: "ETH", currency: "ETH", amount: "0.05", address: node.account(7).address }, server.liveKey);
      expect(res.status, res.text).toBe(200);
      await node.mine(12);
      await settle(server);
      expect((await payment(server, paid.id)).status).toBe("PAID");
      const report = await server.router.admin.reconcile();
      expect(report).toMatchObject({ differences: 0, clean: true });
      const eth = row(report, "ETH");
      expect(eth).toMatchObject({
        received: "0.2",
        sent: "0.05",
        depositAddresses: "0",
        networkFees: formatEther(await gasPaidBy(node.account(account).address)),
      });
    } finally {
      await server.router.close();
    }
  }, 60_000);
});
