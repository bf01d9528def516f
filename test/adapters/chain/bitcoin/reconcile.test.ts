import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReconcileReport, ReconcileRow } from "../../../../src/operator";
import type { BitcoinChain } from "../../../../src/bitcoin";
import { formatDecimal, parseDecimal, parseNumber } from "../../../../src/money";
import { postgresStorage } from "../../../../src/postgres";
import type { Harness } from "../../../helpers";
import { get } from "../../../http/v1/support";
import { liveHarness, restart, settle } from "../evm/support";
import { startLitecoind, type Litecoind } from "./litecoind";
import { ltcChain, ltcPayment, newAccount } from "./support";

/**
 * `payments.admin.reconcile()` on a real Litecoin Core node (regtest): the records against what
 * `bitcoinChain` reads of the account's outputs, each case produced through the public API
 * (payments and withdrawals over HTTP, `tick()`) and the chain moved by the test (a payout left
 * in the mempool, a deep reorg with a conflict, coins sent from outside).
 */

let node: Litecoind;
let chain: BitcoinChain;
let h: Harness;
const account = newAccount();
/** The miner fees of the payouts sent so far, in sats, as the node reported them. */
let fees = 0n;

beforeAll(async () => {
  node = await startLitecoind();
  await node.fund();
  chain = ltcChain(node, account, { float: { LTC: "0.5" } });
  h = await liveHarness([chain]);
  // The operator's float: 0.5 LTC sent to the hot wallet's address, declared above.
  const [wallet] = await chain.hotWalletBalances!();
  await node.pay(wallet!.address, "0.5");
  await node.mine(6);
  await settle(h);
}, 120_000);
afterAll(async () => {
  await h?.router.close();
  await node?.stop();
});

/** Sats of an amount as the node's JSON gives it. */
const sats = (value: number) => parseNumber(value, 8);
/** Sats as the report writes them. */
const ltc = (amount: bigint) => formatDecimal(amount, 8);

/** The account's confirmed unspent outputs on both branches, in sats, as the node's UTXO set has them. */
async function scanned(): Promise<bigint> {
  const scan = await node.call<{ unspents: Array<{ amount: number }> }>("scantxoutset", "start", [
    { desc: `wpkh(${account.xpub}/0/*)`, range: 100 },
    { desc: `wpkh(${account.xpub}/1/*)`, range: 100 },
  ]);
  return scan.unspents.reduce((sum, unspent) => sum + sats(unspent.amount), 0n);
}

/** The LTC row of the LTC chain. */
function row(report: ReconcileReport): ReconcileRow {
  const entry = report.chains.find((item) => item.network === "LTC");
  if (!entry || !("rows" in entry) || !entry.rows) throw new Error(`no LTC rows: ${JSON.stringify(entry)}`);
  return entry.rows.find((item) => item.coin === "LTC")!;
}

/** Sends a payout over HTTP and notes its fee from the node's mempool. */
async function withdraw(amount: string): Promise<{ id: string; txHash: string }> {
  const res = await h.post("/v1/withdrawals", { currency: "LTC", amount, address: await node.newAddress() }, h.liveKey);
  expect(res.status, res.text).toBe(200);
  expect(res.body.txHash).toMatch(/^[0-9a-f]{64}$/);
  fees += sats((await node.call<{ fees: { base: number } }>("getmempoolentry", res.body.txHash)).fees.base);
  return res.body;
}

describe("payments.admin.reconcile against litecoind", () => {
  it("reports a clean run: deposits final and payouts completed leave no difference, miner fees counted, the float the operator's", async () => {
    for (const amount of ["1", "0.4"]) await node.pay((await ltcPayment(h, amount)).address, amount);
    await node.mine(6);
    await settle(h);
    const payout = await withdraw("0.3");
    await node.mine(6);
    await settle(h);
    await settle(h);
    expect((await get(h, `/v1/withdrawals/${payout.id}`, h.liveKey)).body.status).toBe("COMPLETED");

    const report = await h.router.admin.reconcile();
    expect(report).toMatchObject({ mode: "live", differences: 0, errors: 0, clean: true });
    expect(fees).toBeGreaterThan(0n);
    const held = await scanned();
    expect(row(report)).toMatchObject({
      received: "1.4",
      sent: "0.3",
      networkFees: ltc(fees),
      float: "0.5",
      hotWallet: ltc(held),
      depositAddresses: "0",
      difference: "0",
    });
    expect(held).toBe(190_000_000n - 30_000_000n - fees);
    expect(report.chains[0]).toMatchObject({ network: "LTC", height: await node.height() });
    // The service's fees (0.5% of 1.4 LTC, and the payout's fee) are the operator's, less the miner fee: no surplus.
    const payoutFee = parseDecimal((await get(h, `/v1/withdrawals/${payout.id}`, h.liveKey)).body.fee, 8);
    expect(report.assets.find((asset) => asset.asset === "LTC")).toMatchObject({
      fees: ltc(700_000n + payoutFee),
      networkFees: ltc(fees),
      surplus: "0",
      shortfall: false,
    });
  });

  it("counts a payout broadcast and not mined as in flight, its fee paid, without a difference", async () => {
    await withdraw("0.2");
    const report = await h.router.admin.reconcile();
    expect(row(report)).toMatchObject({ difference: "0", networkFees: ltc(fees), explained: { payoutsInFlight: { count: 1, amount: "0.2" } } });
    expect(report.clean).toBe(true);
    await node.mine(6);
    await settle(h);
    await settle(h);
    expect(row(await h.router.admin.reconcile())).toMatchObject({ difference: "0", explained: { payoutsInFlight: { count: 0 } } });
  });

  it("lists a final deposit reversed by a deep reorg with a conflict mined instead, without a difference", async () => {
    const created = await ltcPayment(h, "0.25");
    const txid = await node.pay(created.address, "0.25");
    const [mined] = await node.mine(6);
    await settle(h);
    expect((await get(h, `/v1/payments/${created.id}`, h.liveKey)).body.status).toBe("PAID");
    // Its block and the five above leave the chain, and a conflict spending its inputs is mined instead.
    await node.invalidate(mined!);
    await node.doubleSpend(txid);
    await node.mine(2);
    await settle(h);
    expect((await get(h, `/v1/payments/${created.id}`, h.liveKey)).body).toMatchObject({ receivedAmount: "0", reversedAmount: "0.25" });

    const report = await h.router.admin.reconcile();
    expect(row(report)).toMatchObject({ received: "1.4", difference: "0", explained: { reversedDeposits: { count: 1, amount: "0.25" } } });
    expect(row(report).hotWallet).toBe(ltc(await scanned()));
  });

  it("shows coins sent to the hot wallet's address from outside as a difference of exactly their amount, once final", async () => {
    const [wallet] = await chain.hotWalletBalances!();
    await node.pay(wallet!.address, "0.07654321");
    await node.mine(5);
    await settle(h);
    expect(row(await h.router.admin.reconcile()).difference).toBe("0"); // not final: not taken yet
    await node.mine(1);
    await settle(h);
    const report = await h.router.admin.reconcile();
    expect(row(report).difference).toBe("0.07654321");
    expect(row(report).hotWallet).toBe(ltc(await scanned()));
    expect(report).toMatchObject({ differences: 1, clean: false });
  });
});

describe("payments.admin.reconcile without a declared float", () => {
  it("reports a clean run after payments and payouts paid from the payments' own coins: no difference, no surplus, the fees the operator's", async () => {
    const fresh = await liveHarness([ltcChain(node, newAccount())]);
    try {
      for (const amount of ["0.8", "0.2"]) await node.pay((await ltcPayment(fresh, amount)).address, amount);
      await node.mine(6);
      await settle(fresh);
      const res = await fresh.post("/v1/withdrawals", { currency: "LTC", amount: "0.25", address: await node.newAddress() }, fresh.liveKey);
      expect(res.status, res.text).toBe(200);
      const minerFee = sats((await node.call<{ fees: { base: number } }>("getmempoolentry", res.body.txHash)).fees.base);
      await node.mine(6);
      await settle(fresh);
      await settle(fresh);
      expect((await get(fresh, `/v1/withdrawals/${res.body.id}`, fresh.liveKey)).body.status).toBe("COMPLETED");

      const report = await fresh.router.admin.reconcile();
      expect(report).toMatchObject({ differences: 0, errors: 0, clean: true });
      expect(row(report)).toMatchObject({ received: "1", sent: "0.25", float: "0", networkFees: ltc(minerFee), difference: "0" });
      const payoutFee = parseDecimal(res.body.fee, 8);
      // Owed: 0.995 credited, less 0.25 and the payout's fee; the 0.005 LTC and that fee are the service's.
      expect(report.assets.find((asset) => asset.asset === "LTC")).toMatchObject({
        owed: ltc(99_500_000n - 25_000_000n - payoutFee),
        fees: ltc(500_000n + payoutFee),
        networkFees: ltc(minerFee),
        held: ltc(75_000_000n - minerFee),
        surplus: "0",
        shortfall: false,
      });
    } finally {
      await fresh.router.close();
    }
  });
});

describe("payments.admin.reconcile after rotating the account", () => {
  it("counts the previous account's outputs under depositAddresses, without a difference", async () => {
    const pglite = await PGlite.create();
    const [first, second] = [newAccount(), newAccount()];
    const before = await liveHarness([ltcChain(node, first)], { storage: postgresStorage({ pglite, schema: "rotated" }) });
    let after: Harness | null = null;
    try {
      const paid = await ltcPayment(before, "0.6");
      await node.pay(paid.address, "0.6");
      await node.mine(6);
      await settle(before);
      await before.router.close();
      after = await restart(before, [ltcChain(node, second)], postgresStorage({ pglite, schema: "rotated" }));
      const fresh = await ltcPayment(after, "0.3");
      await node.pay(fresh.address, "0.3");
      await node.mine(6);
      await settle(after);
      const report = await after.router.admin.reconcile();
      expect(report.clean).toBe(true);
      expect(row(report)).toMatchObject({ received: "0.9", hotWallet: "0.3", depositAddresses: "0.6", difference: "0" });
    } finally {
      await after?.router.close();
      await pglite.close();
    }
  });
});
