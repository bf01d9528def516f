import { PGlite } from "@electric-sql/pglite";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { postgresStorage } from "../../../../src/postgres";
import type { Harness } from "../../../helpers";
import { balances, get } from "../../../http/v1/support";
import { deriveAddress, parseAccountKey } from "../../../../src/adapters/chain/bitcoin/keys";
import { addressParams } from "../../../../src/adapters/chain/bitcoin/params";
import { parseNumber } from "../../../../src/money";
import { liveHarness, restart, settle } from "../evm/support";
import { startLitecoind, type Litecoind } from "./litecoind";
import { ltcChain, ltcPayment, newAccount, payment } from "./support";

/**
 * Rotating a Bitcoin-family account on a real Litecoin Core node (regtest): the service is
 * started again on the same storage with another account (new xpub and hot wallet). The new
 * wallet spends only its own account's outputs, numbers its addresses from its own 0/0, and
 * the previous account's outputs stay in view (holdings) while late payments to its addresses
 * are still credited.
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

/** The receive address 0/index of `account` on regtest. */
function receiveAddress(account: { xpub: string }, index: number): string {
  return deriveAddress(parseAccountKey(account.xpub, "litecoin").key, 0, index, addressParams("litecoin", "regtest"));
}

describe("rotating the account", () => {
  it("spends only the current account's outputs: a payout only the previous account could fund is refused, nothing debited; one the new account funds is sent", async () => {
    const [first, second] = [newAccount(), newAccount()];
    const schema = `ltc_rotate_${++schemas}`;
    const before = await liveHarness([ltcChain(node, first)], { storage: postgresStorage({ pglite, schema }) });
    open.push(before);
    const paid = await ltcPayment(before, "1");
    expect(paid.address).toBe(receiveAddress(first, 0));
    await node.pay(paid.address, "1");
    // An invoice of the first account, paid only after the rotation.
    const late = await ltcPayment(before, "0.2");
    await node.mine(6);
    await settle(before);
    expect((await payment(before, paid.id)).status).toBe("PAID");
    await before.router.close();
    open.splice(open.indexOf(before), 1);

    // The operator rotates: same storage, another account.
    const rotated = ltcChain(node, second);
    const after = await restart(before, [rotated], postgresStorage({ pglite, schema }));
    open.push(after);
    const available = (await balances(after, after.liveKey)).LTC!.available;
    const refused = await after.post("/v1/withdrawals", { currency: "LTC", amount: "0.5", address: await node.newAddress() }, after.liveKey);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.error).toBe(42203);
    expect((await balances(after, after.liveKey)).LTC!.available).toBe(available);

    // The new account's addresses start at its own 0/0 (a wallet restored from its seed finds them).
    const fresh = await ltcPayment(after, "1");
    expect(fresh.address).toBe(receiveAddress(second, 0));
    await node.pay(fresh.address, "1");
    // The late payment to the previous account's address is still seen and credited.
    await node.pay(late.address, "0.2");
    await node.mine(6);
    await settle(after);
    expect((await payment(after, fresh.id)).status).toBe("PAID");
    expect((await payment(after, late.id)).status).toBe("PAID");

    const sent = await after.post("/v1/withdrawals", { currency: "LTC", amount: "0.5", address: await node.newAddress() }, after.liveKey);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.txHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await node.mempool()).toContain(sent.body.txHash);
    // Its only input is the new account's deposit.
    const tx = await node.decode(await node.rawTransaction(sent.body.txHash));
    const freshTx = (await get(after, `/v1/payments/${fresh.id}`, after.liveKey)).body.deposits[0].txHash as string;
    expect(tx.vin.map((input) => input.txid)).toEqual([freshTx]);

    // Holdings: the new hot wallet holds its change; the previous account's 1.2 LTC are the
    // service's, outside the hot wallet; the payout's fee is counted.
    const change = tx.vout.find((output) => output.value !== 0.5)!;
    const fee = 100_000_000n - 50_000_000n - sats(change.value);
    const [held] = (await rotated.holdings()).coins;
    expect(held).toEqual({ coin: "LTC", hotWallet: sats(change.value), depositAddresses: 120_000_000n, networkFees: fee, float: 0n });
  });

  it("takes over what a version that kept no account stored: the account that issued it keeps its counters and spends its outputs; another account starts afresh", async () => {
    const [first, second] = [newAccount(), newAccount()];
    const schema = `ltc_layout_${++schemas}`;
    const earlier = await liveHarness([ltcChain(node, first)], { storage: postgresStorage({ pglite, schema }) });
    open.push(earlier);
    const paid = await ltcPayment(earlier, "1");
    await ltcPayment(earlier, "0.1");
    await node.pay(paid.address, "1");
    await node.mine(6);
    await settle(earlier);
    expect((await payment(earlier, paid.id)).status).toBe("PAID");
    await earlier.router.close();
    open.splice(open.indexOf(earlier), 1);
    // What the earlier version left: values under names without the account, and coins and
    // addresses that do not name it.
    await pglite.query(
      `UPDATE ${schema}.cursors SET key = regexp_replace(key, ':[0-9a-f]{40}$', '') WHERE key ~ ':(next-receive|unused-receive|next-change):[0-9a-f]{40}$'`,
    );
    const stripped = await pglite.query(
      `UPDATE ${schema}.cursors SET value = regexp_replace(value, ',"account":"[0-9a-f]{40}"', '', 'g') WHERE key LIKE 'chain:bitcoin:LTC:addr:%' OR key = 'chain:bitcoin:LTC:coins'`,
    );
    expect(stripped.affectedRows).toBe(3);

    // Another account: its own 0/0, and the earlier account's output is not its to spend.
    const otherChain = ltcChain(node, second);
    const other = await restart(earlier, [otherChain], postgresStorage({ pglite, schema }));
    open.push(other);
    expect((await ltcPayment(other, "0.1")).address).toBe(receiveAddress(second, 0));
    const refused = await other.post("/v1/withdrawals", { currency: "LTC", amount: "0.3", address: await node.newAddress() }, other.liveKey);
    expect(refused.status, refused.text).toBe(422);
    const [seen] = (await otherChain.holdings()).coins;
    expect(seen).toMatchObject({ hotWallet: 0n, depositAddresses: 100_000_000n });
    await other.router.close();
    open.splice(open.indexOf(other), 1);

    // The account that stored it: its counter goes on at 0/2, and it spends its output.
    const same = await restart(earlier, [ltcChain(node, first)], postgresStorage({ pglite, schema }));
    open.push(same);
    expect((await ltcPayment(same, "0.1")).address).toBe(receiveAddress(first, 2));
    const sent = await same.post("/v1/withdrawals", { currency: "LTC", amount: "0.3", address: await node.newAddress() }, same.liveKey);
    expect(sent.status, sent.text).toBe(200);
    expect(await node.mempool()).toContain(sent.body.txHash);
  });
});

/** Sats of an amount as the node's JSON gives it (a number of at most 8 decimals). */
function sats(value: number): bigint {
  return parseNumber(value, 8);
}
