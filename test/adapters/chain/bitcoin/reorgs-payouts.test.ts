import { PGlite } from "@electric-sql/pglite";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { postgresStorage } from "../../../../src/postgres";
import type { Storage } from "../../../../src/index";
import type { Harness } from "../../../helpers";
import { balances, get } from "../../../http/v1/support";
import { liveHarness, restart, settle } from "../evm/support";
import { startRpcProxy } from "../rpc-proxy";
import { deriveAddress, parseAccountKey } from "../../../../src/adapters/chain/bitcoin/keys";
import { addressParams } from "../../../../src/adapters/chain/bitcoin/params";
import { startLitecoind, type Litecoind } from "./litecoind";
import { ltcChain, ltcPayment, newAccount, payment } from "./support";

/**
 * Reorgs, double-spends, downtime and payouts on a real Litecoin Core node (regtest).
 */

let node: Litecoind;
let pglite: PGlite;
let schemas = 0;
const open: Harness[] = [];

beforeAll(async () => {
  [node, pglite] = await Promise.all([startLitecoind(), PGlite.create()]);
  await node.fund();
}, 120_000);
afterAll(async () => {
  await node?.stop();
  await pglite?.close();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.router.close();
});

async function harness(
  account = newAccount(),
  storage: Storage = postgresStorage({ pglite, schema: `ltc_${++schemas}` }),
  options: Parameters<typeof ltcChain>[2] = {},
): Promise<Harness> {
  const h = await liveHarness([ltcChain(node, account, options)], { storage });
  open.push(h);
  return h;
}

describe("reorgs and double-spends", () => {
  it("puts a deposit of an invalidated block back to unconfirmed, then credits it once when mined again", async () => {
    const h = await harness();
    const created = await ltcPayment(h, "0.4");
    await node.pay(created.address, "0.4");
    const [mined] = await node.mine(2);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");
    await node.invalidate(mined!);
    expect(await node.mempool()).toHaveLength(1); // the payment waits again
    await node.mine(3);
    await settle(h);
    expect(h.logger.lines.some((line) => line.includes("reorg"))).toBe(true);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");
    await node.mine(6);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("PAID");
    expect((await balances(h, h.liveKey)).LTC?.available).toBe("0.398");
  });

  it("never credits a deposit whose transaction was double-spent by a conflict mined instead", async () => {
    const h = await harness();
    const created = await ltcPayment(h, "0.3");
    const txid = await node.pay(created.address, "0.3");
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");
    await node.doubleSpend(txid);
    await node.mine(6);
    await settle(h);
    const after = await payment(h, created.id);
    expect(after.status).toBe("PENDING");
    expect((await balances(h, h.liveKey)).LTC?.available ?? "0").toBe("0");
  });
});

describe("reorgs deeper than the confirmations", () => {
  /** GET /v1/payments/:id with the live key (decimal strings and the deposits). */
  async function v1Payment(h: Harness, id: string) {
    const res = await get(h, `/v1/payments/${id}`, h.liveKey);
    expect(res.status, res.text).toBe(200);
    return res.body as { status: string; deposits: Array<Record<string, unknown>>; [key: string]: unknown };
  }

  it("keeps a final deposit credited while a deep reorg only puts it back in the mempool, reverses it once a conflict is mined instead, and credits it again once when its branch wins back", async () => {
    const h = await harness();
    const scope = { merchantId: h.merchant.id, mode: "live" as const };
    const created = await ltcPayment(h, "0.5");
    const txid = await node.pay(created.address, "0.5");
    const [mined] = await node.mine(6); // LTC's 6 confirmations: final, credited
    await settle(h);
    expect(await v1Payment(h, created.id)).toMatchObject({ status: "PAID", receivedAmount: "0.5" });
    expect((await balances(h, h.liveKey)).LTC?.available).toBe("0.4975");

    // The block holding it and the five above are invalidated: the transaction waits in the
    // mempool again. The coins still exist, so the credit stands.
    await node.invalidate(mined!);
    expect(await node.mempool()).toContain(txid);
    await settle(h);
    expect(await v1Payment(h, created.id)).toMatchObject({ status: "PAID", receivedAmount: "0.5", reversedAmount: "0" });
    expect((await balances(h, h.liveKey)).LTC?.available).toBe("0.4975");

    // A conflicting transaction spending the same inputs is mined instead (generateblock): the
    // payment is gone for good.
    await node.doubleSpend(txid);
    await settle(h);
    const reversed = await v1Payment(h, created.id);
    expect(reversed).toMatchObject({ status: "PAID", receivedAmount: "0", reversedAmount: "0.5" });
    expect(reversed.deposits).toMatchObject([{ txHash: txid, status: "REVERSED", reversals: 1 }]);
    expect((await balances(h, h.liveKey)).LTC?.available).toBe("0");
    expect((await h.router.storage.listEvents(scope, { invoiceId: created.id })).at(-1)?.type).toBe("payment.reversed");
    expect(h.logger.lines.filter((line) => /deposit dep_\w+ reversed/.test(line))).toHaveLength(1);
    expect((await h.router.admin.operatorReport()).reversedDeposits).toEqual([
      expect.objectContaining({
        invoiceId: created.id,
        coin: "LTC",
        network: "LTC",
        amount: "0.5",
        txHash: txid,
        status: "REVERSED",
        creditedAmount: "0.4975",
      }),
    ]);

    // The original branch (six blocks) is allowed back and outweighs the conflict's: the same
    // payment is on chain again, final, and credited again exactly once.
    await node.reconsider(mined!);
    await settle(h);
    await settle(h);
    const back = await v1Payment(h, created.id);
    expect(back).toMatchObject({ status: "PAID", receivedAmount: "0.5", reversedAmount: "0" });
    expect(back.deposits).toMatchObject([{ txHash: txid, status: "CONFIRMED", reversals: 1 }]);
    expect((await balances(h, h.liveKey)).LTC?.available).toBe("0.4975");
    const entries = await h.router.storage.listLedgerEntries(scope, "LTC");
    expect(entries.map((entry) => [entry.kind, entry.amount])).toEqual([
      ["deposit", 49_750_000n],
      ["deposit_reversal", -49_750_000n],
      ["deposit", 49_750_000n],
    ]);
    expect(entries.reduce((sum, entry) => sum + entry.amount, 0n)).toBe(await h.router.storage.getBalance(scope, "LTC"));
  });
});

describe("a deep reorg that brings a conflict at once", () => {
  it("reverses a final deposit whose transaction never comes back: the branch that replaced its block mined a conflict", async () => {
    const h = await harness();
    const scope = { merchantId: h.merchant.id, mode: "live" as const };
    const created = await ltcPayment(h, "0.2");
    const txid = await node.pay(created.address, "0.2");
    const [mined] = await node.mine(8);
    await settle(h);
    expect((await balances(h, h.liveKey)).LTC?.available).toBe("0.199");
    // Between two polls: the blocks are replaced by a branch whose first block spends the same
    // inputs elsewhere, so the payment never shows in the mempool or any block again.
    await node.invalidate(mined!);
    await node.doubleSpend(txid);
    await node.mine(2);
    await settle(h);
    const res = await get(h, `/v1/payments/${created.id}`, h.liveKey);
    expect(res.body).toMatchObject({ status: "PAID", receivedAmount: "0", reversedAmount: "0.2", deposits: [{ status: "REVERSED" }] });
    expect((await balances(h, h.liveKey)).LTC?.available).toBe("0");
    expect((await h.router.storage.listLedgerEntries(scope, "LTC")).map((entry) => entry.kind)).toEqual(["deposit", "deposit_reversal"]);
  });
});

describe("downtime", () => {
  it("credits once a deposit that confirmed while the service was down, after a restart", async () => {
    const account = newAccount();
    const schema = `ltc_down_${++schemas}`;
    const first = await harness(account, postgresStorage({ pglite, schema }));
    const created = await ltcPayment(first, "0.25");
    await node.pay(created.address, "0.25");
    await settle(first);
    expect((await payment(first, created.id)).status).toBe("CONFIRMING");
    await first.router.close();
    open.splice(open.indexOf(first), 1);

    await node.mine(8);
    const second = await restart(first, [ltcChain(node, account)], postgresStorage({ pglite, schema }));
    open.push(second);
    await settle(second);
    await settle(second);
    expect((await payment(second, created.id)).status).toBe("PAID");
    expect((await balances(second, second.liveKey)).LTC?.available).toBe("0.24875");
  });

  it("finds deposits missed by a lost cursor with rescan(fromHeight), also through payments.admin.rescan; one-shot health reads the scan's height from the stored cursor", async () => {
    const account = newAccount();
    const chain = ltcChain(node, account, { startHeight: 1_000_000 });
    const h = await liveHarness([chain], { storage: postgresStorage({ pglite, schema: `ltc_rescan_${++schemas}` }) });
    open.push(h);
    const height = await node.height();
    const created = await ltcPayment(h, "0.15");
    await node.pay(created.address, "0.15");
    await node.mine(6);
    // A start height in the future: the scan read nothing of this. Recovery rescans from before.
    await chain.rescan(height);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("PAID");

    // Once more through the admin method, by network: the same deposit is found again, credited once.
    const before = (await balances(h, h.liveKey)).LTC?.available;
    await h.router.admin.rescan("LTC", height);
    await settle(h);
    expect((await balances(h, h.liveKey)).LTC?.available).toBe(before);
    const health = await h.router.health({ oneShot: true });
    expect(health.chains[0]).toMatchObject({ chain: "bitcoin:LTC", state: "ready", nodeReachable: true, scannedHeight: await node.height() });
  });
});

describe("payouts", () => {
  /** Pays `count` invoices of `each` LTC to the account and confirms them, so the hot wallet has coins. */
  async function fund(h: Harness, count: number, each: string): Promise<void> {
    for (let i = 0; i < count; i++) {
      const created = await ltcPayment(h, each);
      await node.pay(created.address, each);
    }
    await node.mine(6);
    await settle(h);
  }

  async function withdrawal(h: Harness, id: string) {
    const res = await get(h, `/v1/withdrawals/${id}`, h.liveKey);
    expect(res.status, res.text).toBe(200);
    return res.body as { status: string; txHash: string | null };
  }

  it("sends payouts in parallel spending distinct outputs; they complete after the confirmations and change returns to the account", async () => {
    const account = newAccount();
    const h = await harness(account);
    await fund(h, 4, "1");
    const destinations = await Promise.all([node.newAddress(), node.newAddress(), node.newAddress()]);
    const sent = await Promise.all(destinations.map((address) => h.post("/v1/withdrawals", { currency: "LTC", amount: "0.3", address }, h.liveKey)));
    for (const res of sent) expect(res.status, res.text).toBe(200);
    const hashes = sent.map((res) => res.body.txHash as string);
    expect(new Set(hashes).size).toBe(3);
    const mempool = await node.mempool();
    for (const hash of hashes) expect(mempool).toContain(hash);
    // No output is spent twice: every input of the three transactions is distinct.
    const inputs = (
      await Promise.all(hashes.map(async (hash) => (await node.decode(await node.rawTransaction(hash))).vin.map((input) => `${input.txid}:${input.vout}`)))
    ).flat();
    expect(new Set(inputs).size).toBe(inputs.length);
    await settle(h);
    expect((await withdrawal(h, sent[0]!.body.id)).status).toBe("PROCESSING");
    await node.mine(6);
    await settle(h);
    await settle(h);
    for (const res of sent) expect((await withdrawal(h, res.body.id)).status).toBe("COMPLETED");
    // Each destination got exactly 0.3 LTC.
    for (const [i, hash] of hashes.entries()) {
      const tx = await node.decode(await node.rawTransaction(hash));
      const paid = tx.vout.filter((output) => (output.scriptPubKey.addresses ?? []).includes(destinations[i]!));
      expect(paid.map((output) => output.value)).toEqual([0.3]);
    }
    // Change went back to the account's internal chain 1/i: every other output of the three
    // transactions pays one of its first addresses, and is not a deposit address 0/i.
    const key = parseAccountKey(account.xpub, "litecoin").key;
    const internal = new Set(Array.from({ length: 10 }, (_, i) => deriveAddress(key, 1, i, addressParams("litecoin", "regtest"))));
    for (const [i, hash] of hashes.entries()) {
      const rest = (await node.decode(await node.rawTransaction(hash))).vout
        .flatMap((output) => output.scriptPubKey.addresses ?? [])
        .filter((address) => address !== destinations[i]);
      expect(rest).toHaveLength(1);
      expect(internal.has(rest[0]!), `${rest[0]} is one of the account's change addresses`).toBe(true);
    }
    // A second round of payouts is paid too, out of what is left and the confirmed change.
    const again = await h.post("/v1/withdrawals", { currency: "LTC", amount: "0.5", address: await node.newAddress() }, h.liveKey);
    expect(again.status, again.text).toBe(200);
    expect(again.body.txHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("does not pay twice when the process dies between signing and broadcasting", async () => {
    const proxy = await startRpcProxy(`http://127.0.0.1:${new URL(node.rpcUrl).port}`);
    const viaProxy = `http://${node.rpcUser}:${node.rpcPassword}@127.0.0.1:${new URL(proxy.url).port}`;
    const account = newAccount();
    const schema = `ltc_crash_${++schemas}`;
    const first = await harness(account, postgresStorage({ pglite, schema }), { rpcUrl: viaProxy });
    await fund(first, 1, "1");
    const to = await node.newAddress();

    // The node goes away exactly when the signed payout is broadcast.
    proxy.refuse.add("sendrawtransaction");
    const res = await first.post("/v1/withdrawals", { currency: "LTC", amount: "0.2", address: to }, first.liveKey);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: "PROCESSING", txHash: null });
    expect(proxy.seen.get("sendrawtransaction")).toBeGreaterThan(0);
    expect(await node.mempool()).toEqual([]);
    await first.router.close();
    open.splice(open.indexOf(first), 1);
    await proxy.close();

    // Restarted on the same database, straight to the node: the stored transaction goes out, once.
    const second = await restart(first, [ltcChain(node, account)], postgresStorage({ pglite, schema }));
    open.push(second);
    await settle(second);
    const waiting = await node.mempool();
    expect(waiting).toHaveLength(1);
    await node.mine(6);
    await settle(second);
    await settle(second);
    const done = await withdrawal(second, res.body.id);
    expect(done).toMatchObject({ status: "COMPLETED", txHash: waiting[0] });
    expect(await node.wallet<number>("getreceivedbyaddress", to)).toBe(0.2);
    await settle(second);
    expect(await node.mempool()).toEqual([]);
  });

  it("answers 503 that payouts need the hot wallet when none is configured, and debits nothing", async () => {
    const h = await harness(newAccount(), undefined, { hotWallet: false });
    await fund(h, 1, "0.5");
    const before = (await balances(h, h.liveKey)).LTC?.available;
    const res = await h.post("/v1/withdrawals", { currency: "LTC", amount: "0.1", address: await node.newAddress() }, h.liveKey);
    expect(res.status).toBe(503);
    expect(res.body.message).toMatch(/need the hot wallet/);
    expect((await balances(h, h.liveKey)).LTC?.available).toBe(before);
  });

  it("refuses a Bitcoin address or a malformed one for a Litecoin payout", async () => {
    const h = await harness();
    await fund(h, 1, "0.5");
    for (const address of ["bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", "not-an-address", "ltc1qxyz"]) {
      const res = await h.post("/v1/withdrawals", { currency: "LTC", amount: "0.1", address }, h.liveKey);
      expect(res.status, address).toBe(400);
    }
  });
});
