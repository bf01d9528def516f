import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { HDKey } from "@scure/bip32";
import { NETWORK, WIF } from "@scure/btc-signer";
import { derive } from "../../../../src/adapters/chain/bitcoin/keys";
import type { Harness } from "../../../helpers";
import { balances } from "../../../http/v1/support";
import { liveHarness, settle } from "../evm/support";
import { startLitecoind, type Litecoind } from "./litecoind";
import { ltcChain, ltcPayment, newAccount, payment } from "./support";

/**
 * The hot wallet of a Bitcoin-family chain on a real Litecoin Core node (regtest): its balance
 * read from the account's outputs the node says are unspent, its low-balance threshold, and a
 * payout beyond it refused at creation, nothing debited.
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

/** Pays `count` invoices of `each` LTC and confirms them: the hot wallet's outputs. */
async function fund(h: Harness, count: number, each: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    const created = await ltcPayment(h, each);
    await node.pay(created.address, each);
    await node.mine(6);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("PAID");
  }
}

describe("the Litecoin hot wallet", () => {
  it("reads its balance from the outputs it may spend, with its threshold, and logs once when it is low", async () => {
    const h = await liveHarness([ltcChain(node, newAccount(), { lowBalance: { LTC: "5" } })]);
    open.push(h);
    await fund(h, 2, "1");
    h.clock.advanceMinutes(2);
    await h.router.tick();
    const [reading] = h.router.admin.hotWallets();
    expect(reading).toMatchObject({ chain: "bitcoin:LTC", readAt: h.clock.now(), error: null });
    expect(reading!.balances).toEqual([
      { coin: "LTC", network: "LTC", address: expect.stringMatching(/^rltc1q/), amount: 200_000_000n, lowBalance: 500_000_000n, low: true },
    ]);
    h.clock.advanceMinutes(2);
    await h.router.tick();
    expect(h.logger.lines.filter((line) => line.includes("below its low-balance threshold of 5"))).toHaveLength(1);
    // A payout sent leaves its change in the balance: 2 LTC less 0.5 and the fee.
    const sent = await h.post("/v1/withdrawals", { currency: "LTC", amount: "0.5", address: await node.newAddress() }, h.liveKey);
    expect(sent.status, sent.text).toBe(200);
    h.clock.advanceMinutes(2);
    await h.router.tick();
    const after = h.router.admin.hotWallets()[0]!.balances[0]!.amount;
    expect(after).toBeLessThan(150_000_000n);
    expect(after).toBeGreaterThan(149_000_000n);
  });

  it("refuses at start-up a threshold of another coin or finer than a satoshi", () => {
    const account = newAccount();
    expect(() => ltcChain(node, account, { lowBalance: { BTC: "1" } })).toThrow(/lowBalance\.BTC names a coin this adapter does not serve/);
    expect(() => ltcChain(node, account, { lowBalance: { LTC: "0.000000001" } })).toThrow(/lowBalance\.LTC has more than 8 decimal places/);
  });

  it("refuses with 42203 a payout beyond the hot wallet, debiting nothing; one it can fund is sent", async () => {
    const account = newAccount();
    const h = await liveHarness([ltcChain(node, account)]);
    open.push(h);
    const paid = await ltcPayment(h, "1");
    const txid = await node.pay(paid.address, "1");
    await fund(h, 1, "1");
    // Another wallet restored from the same seed spends the first deposit: the merchant's balance
    // still holds it, the hot wallet no longer does.
    await spendOutside(account.xprv, txid, paid.address);
    const before = (await balances(h, h.liveKey)).LTC!.available;
    expect(Number.parseFloat(before) > 1.9).toBe(true);
    const refused = await h.post("/v1/withdrawals", { currency: "LTC", amount: "1.5", address: await node.newAddress() }, h.liveKey);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.error).toBe(42203);
    expect(refused.body.message).toContain("LTC hot wallet cannot fund this payout");
    expect((await balances(h, h.liveKey)).LTC!.available).toBe(before);
    const sent = await h.post("/v1/withdrawals", { currency: "LTC", amount: "0.5", address: await node.newAddress() }, h.liveKey);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.txHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await node.mempool()).toContain(sent.body.txHash);
  });
});

/** Spends the output of `txid` to `address` (the account's receive address 0/0) with the node, signed by the account key. */
async function spendOutside(xprv: string, txid: string, address: string): Promise<void> {
  const output = (await node.decode(await node.rawTransaction(txid))).vout.find((out) => (out.scriptPubKey.addresses ?? []).includes(address))!;
  const key = derive(HDKey.fromExtendedKey(xprv, { private: 0x04358394, public: 0x043587cf }), 0, 0);
  const wif = WIF({ ...NETWORK, wif: 0xef } as never).encode(key.privateKey!);
  const raw = await node.call<string>("createrawtransaction", [{ txid, vout: output.n }], { [await node.newAddress()]: 0.999 });
  const signed = await node.call<{ hex: string; complete: boolean }>(
    "signrawtransactionwithkey",
    raw,
    [wif],
    [{ txid, vout: output.n, scriptPubKey: output.scriptPubKey.hex, amount: output.value }],
  );
  expect(signed.complete).toBe(true);
  await node.call("sendrawtransaction", signed.hex);
}
