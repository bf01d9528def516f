import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PGlite } from "@electric-sql/pglite";
import { parseNumber } from "../../../../src/money";
import { postgresStorage } from "../../../../src/postgres";
import type { Harness } from "../../../helpers";
import { balances, get } from "../../../http/v1/support";
import { liveHarness, settle } from "../evm/support";
import { startRpcProxy } from "../rpc-proxy";
import { startLitecoind, type Litecoind } from "./litecoind";
import { ltcChain, ltcPayment, newAccount } from "./support";

/**
 * What `bitcoinChain().holdings()` reads on a real Litecoin Core node (regtest), against the
 * node's own view: the account's unspent outputs (`scantxoutset` over its two branches, less
 * what waiting payouts spend and plus their change) and the fees of its payouts
 * (`getmempoolentry`).
 */

let node: Litecoind;
const open: Harness[] = [];

beforeAll(async () => {
  node = await startLitecoind();
  await node.fund();
}, 120_000);
afterAll(async () => {
  await node?.stop();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.router.close();
});

/** Sats of an amount as the node's JSON gives it (a number of at most 8 decimals). */
const sats = (value: number) => parseNumber(value, 8);

/** The account's confirmed unspent outputs on both branches, in sats, as the node's UTXO set has them. */
async function scanned(account: { xpub: string }): Promise<bigint> {
  const scan = await node.call<{ success: boolean; unspents: Array<{ amount: number }> }>("scantxoutset", "start", [
    { desc: `wpkh(${account.xpub}/0/*)`, range: 100 },
    { desc: `wpkh(${account.xpub}/1/*)`, range: 100 },
  ]);
  expect(scan.success).toBe(true);
  return scan.unspents.reduce((sum, unspent) => sum + sats(unspent.amount), 0n);
}

/** A waiting transaction's fee and the sats it pays back to the account (its change), per the node. */
async function waiting(txid: string, destination: string): Promise<{ fee: bigint; change: bigint }> {
  const entry = await node.call<{ fees: { base: number } }>("getmempoolentry", txid);
  const tx = await node.decode(await node.rawTransaction(txid));
  const change = tx.vout.filter((output) => !(output.scriptPubKey.addresses ?? []).includes(destination)).reduce((sum, output) => sum + sats(output.value), 0n);
  return { fee: sats(entry.fees.base), change };
}

/** Pays `count` invoices of `each` LTC and confirms them. */
async function fund(h: Harness, count: number, each: string): Promise<void> {
  for (let i = 0; i < count; i++) await node.pay((await ltcPayment(h, each)).address, each);
  await node.mine(6);
  await settle(h);
}

describe("bitcoinChain holdings", () => {
  it("reads the account's outputs as the node has them, payouts broadcast taken out with their change in, and counts each payout's fee once", async () => {
    const account = newAccount();
    const chain = ltcChain(node, account, { float: { LTC: "0.1" } });
    const h = await liveHarness([chain]);
    open.push(h);
    await fund(h, 3, "1");
    expect(await chain.holdings()).toEqual({
      network: "LTC",
      height: await node.height(),
      coins: [{ coin: "LTC", hotWallet: 300_000_000n, depositAddresses: 0n, networkFees: 0n, float: 10_000_000n }],
    });
    expect(await scanned(account)).toBe(300_000_000n);

    // Two payouts broadcast, waiting in the mempool: their inputs are out, their change in.
    const destinations = [await node.newAddress(), await node.newAddress()];
    const sent = [];
    for (const [i, amount] of ["0.3", "0.4"].entries()) {
      const res = await h.post("/v1/withdrawals", { currency: "LTC", amount, address: destinations[i] }, h.liveKey);
      expect(res.status, res.text).toBe(200);
      sent.push(await waiting(res.body.txHash as string, destinations[i]!));
    }
    const fees = sent[0]!.fee + sent[1]!.fee;
    expect(fees).toBeGreaterThan(0n);
    let held = (await chain.holdings()).coins[0]!;
    expect(held).toMatchObject({ hotWallet: 300_000_000n - 70_000_000n - fees, networkFees: fees });

    // Mined and completed: the node's UTXO set says the same, and nothing is counted twice.
    await node.mine(6);
    await settle(h);
    await settle(h);
    held = (await chain.holdings()).coins[0]!;
    expect(held).toMatchObject({ hotWallet: await scanned(account), depositAddresses: 0n, networkFees: fees });
    expect(held.hotWallet).toBe(300_000_000n - 70_000_000n - fees);

    // One more in flight: the confirmed UTXO set still holds what it spends; the mempool does not.
    const to = await node.newAddress();
    const third = await h.post("/v1/withdrawals", { currency: "LTC", amount: "0.2", address: to }, h.liveKey);
    expect(third.status, third.text).toBe(200);
    const flight = await waiting(third.body.txHash as string, to);
    const before = await scanned(account);
    held = (await chain.holdings()).coins[0]!;
    expect(held).toMatchObject({ hotWallet: before - 20_000_000n - flight.fee, networkFees: fees + flight.fee });
  });

  it.each([
    ["as signed", false],
    ["signed by a version that kept no fee (worked out from its inputs and outputs)", true],
  ])("counts a payout signed but never broadcast as still held and its fee as not paid, until it goes out: %s", async (_, earlier) => {
    const proxy = await startRpcProxy(`http://127.0.0.1:${new URL(node.rpcUrl).port}`);
    const pglite = await PGlite.create();
    try {
      const account = newAccount();
      const chain = ltcChain(node, account, { rpcUrl: `http://${node.rpcUser}:${node.rpcPassword}@127.0.0.1:${new URL(proxy.url).port}` });
      const h = await liveHarness([chain], { storage: postgresStorage({ pglite, schema: "held" }) });
      open.push(h);
      await fund(h, 1, "1");
      proxy.refuse.add("sendrawtransaction");
      const to = await node.newAddress();
      const res = await h.post("/v1/withdrawals", { currency: "LTC", amount: "0.25", address: to }, h.liveKey);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ status: "PROCESSING", txHash: null });
      expect((await chain.holdings()).coins[0]).toMatchObject({ hotWallet: 100_000_000n, networkFees: 0n });
      if (earlier) {
        const stripped = await pglite.query(
          `UPDATE held.cursors SET value = regexp_replace(value, ',"fee":"[0-9]+"', '') WHERE key LIKE 'chain:bitcoin:LTC:payout:%'`,
        );
        expect(stripped.affectedRows).toBe(1);
      }

      // The node is back: the stored transaction goes out on the next round, its fee counted once.
      proxy.refuse.delete("sendrawtransaction");
      await settle(h);
      const withdrawal = await get(h, `/v1/withdrawals/${res.body.id}`, h.liveKey);
      const txHash = withdrawal.body.txHash as string;
      expect(txHash).toMatch(/^[0-9a-f]{64}$/);
      const { fee, change } = await waiting(txHash, to);
      expect(change).toBe(100_000_000n - 25_000_000n - fee);
      await settle(h);
      expect((await chain.holdings()).coins[0]).toMatchObject({ hotWallet: change, networkFees: fee });
    } finally {
      for (const h of open.splice(0)) await h.router.close();
      await proxy.close();
      await pglite.close();
    }
  });

  it("takes a top-up sent to the address that names the hot wallet once it is final: in the balance and the holdings, spendable, credited to no one", async () => {
    const account = newAccount();
    const chain = ltcChain(node, account);
    const h = await liveHarness([chain]);
    open.push(h);
    await fund(h, 1, "0.2");
    const merchant = (await balances(h, h.liveKey)).LTC!.available;
    const [wallet] = await chain.hotWalletBalances!();
    const topUp = await node.pay(wallet!.address, "1.5");
    await node.mine(5);
    await settle(h);
    // Not final yet (LTC's 6 confirmations): not taken.
    expect((await chain.holdings()).coins[0]!.hotWallet).toBe(20_000_000n);
    await node.mine(1);
    await settle(h);
    expect((await chain.holdings()).coins[0]!).toMatchObject({ hotWallet: 170_000_000n, depositAddresses: 0n, networkFees: 0n });
    expect(await scanned(account)).toBe(170_000_000n);
    expect((await chain.hotWalletBalances!())[0]!.amount).toBe(170_000_000n);
    // The operator's money: no payment, no credit.
    expect((await balances(h, h.liveKey)).LTC!.available).toBe(merchant);
    expect((await get(h, "/v1/payments?limit=10", h.liveKey)).body.data).toHaveLength(1);
    // Spendable: the largest output goes first.
    const sent = await h.post("/v1/withdrawals", { currency: "LTC", amount: "0.15", address: await node.newAddress() }, h.liveKey);
    expect(sent.status, sent.text).toBe(200);
    const tx = await node.decode(await node.rawTransaction(sent.body.txHash as string));
    expect(tx.vin.map((input) => input.txid)).toEqual([topUp]);
  });

  it("reports the account's final deposits under depositAddresses when no hot wallet is configured", async () => {
    const account = newAccount();
    const chain = ltcChain(node, account, { hotWallet: false });
    const h = await liveHarness([chain]);
    open.push(h);
    await fund(h, 2, "0.3");
    expect((await chain.holdings()).coins).toEqual([{ coin: "LTC", hotWallet: 0n, depositAddresses: 60_000_000n, networkFees: 0n, float: 0n }]);
    expect(await scanned(account)).toBe(60_000_000n);
  });

  it("refuses a float of another coin or finer than a satoshi at start-up", () => {
    const account = newAccount();
    expect(() => ltcChain(node, account, { float: { BTC: "1" } })).toThrow(/float\.BTC names a coin this adapter does not serve/);
    expect(() => ltcChain(node, account, { float: { LTC: "0.000000001" } })).toThrow(/float\.LTC has more than 8 decimal places/);
    expect(() => ltcChain(node, account, { float: { LTC: "-1" } })).toThrow(/float/);
  });
});
