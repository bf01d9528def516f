import { PGlite } from "@electric-sql/pglite";
import type { Hash } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { postgresStorage } from "../../../../src/postgres";
import type { Harness } from "../../../helpers";
import { balances } from "../../../http/v1/support";
import { startAnvil, type Anvil } from "./anvil";
import { ethChain, liveEvents, liveHarness, livePayment, payment, settle, signedPayment } from "./support";

/**
 * Blocks read twice on a real node (anvil): a deposit scan set back to an older cursor (a
 * restored backup of the cursor), or a recovery rescan, reads blocks it read before. Deposits
 * name their block, so nothing read again sends a payment event twice or credits twice, even
 * when a reorg moved the transfer to another block in between.
 */

let node: Anvil;
let pglite: PGlite;
let schemas = 0;
const open: Harness[] = [];
const FEED = "deposits:live:evm:ETH";

beforeAll(async () => {
  [node, pglite] = await Promise.all([startAnvil(), PGlite.create()]);
}, 60_000);
afterAll(async () => {
  await node.stop();
  await pglite.close();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.router.close();
});

async function harness(): Promise<Harness> {
  const h = await liveHarness([ethChain(node)], { storage: postgresStorage({ pglite, schema: `replay_${++schemas}` }) });
  open.push(h);
  return h;
}

/** The payment's deposits as the storage holds them. */
async function deposits(h: Harness, paymentId: string) {
  return h.router.storage.listDepositsForInvoice(paymentId);
}

describe("replayed block ranges on anvil", () => {
  it("a scan set back to a cursor from before a reorg moved the deposit sends no second event and credits once; the deposit names its new block", async () => {
    const h = await harness();
    await node.mine(5); // deep enough for the 4-block reorg below
    const created = await livePayment(h, { amount: "0.4", currency: "ETH", chain: "ETH" });
    const raw = await signedPayment(node, created.address, "0.4");
    const hash = (await node.public.sendRawTransaction({ serializedTransaction: raw })) as Hash;
    await node.mine(2);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");
    const firstBlock = (await node.public.getTransactionReceipt({ hash })).blockHash;
    expect((await deposits(h, created.id)).map((deposit) => deposit.blockHash)).toEqual([firstBlock]);
    // The cursor as a backup taken now holds it: the deposit in its first block.
    const older = await h.router.storage.getCursor(FEED);

    // A reorg replaces the last 4 blocks; the same transfer lands in the first new one.
    await node.test.request({ method: "anvil_reorg" as never, params: [4, [[raw, 0]]] as never });
    await settle(h);
    const movedTo = (await node.public.getTransactionReceipt({ hash })).blockHash;
    expect(movedTo).not.toBe(firstBlock);
    expect((await deposits(h, created.id)).map((deposit) => deposit.blockHash)).toEqual([movedTo]);
    await node.mine(12);
    await settle(h);
    expect(await payment(h, created.id)).toMatchObject({ status: "PAID", receivedAmount: "0.4" });
    const trail = await liveEvents(h);
    // Moved within one read: never reported as dropped, and each step once.
    expect(trail).toEqual(["created", "confirming", "confirmed", "completed"].map((step) => `payment.${step} ${created.id}`));

    // The scan starts again from the older cursor: it still holds the orphaned block.
    await h.router.storage.transaction((tx) => tx.setCursor(FEED, older!));
    await settle(h);
    expect(await liveEvents(h)).toEqual(trail);
    expect(await payment(h, created.id)).toMatchObject({ status: "PAID", receivedAmount: "0.4", reversedAmount: "0" });
    expect((await deposits(h, created.id)).map((deposit) => [deposit.status, deposit.blockHash, deposit.reversals])).toEqual([["CONFIRMED", movedTo, 0]]);
    const scope = { merchantId: h.merchant.id, mode: "live" as const };
    expect((await h.router.storage.listLedgerEntries(scope, "ETH")).map((entry) => entry.kind)).toEqual(["deposit"]);
    expect((await balances(h, h.liveKey)).ETH?.available).toBe("0.398");
  });

  it("a rescan over a deposit's blocks, while it is confirmed and after it is final, sends no payment event twice and credits once", async () => {
    const h = await harness();
    const created = await livePayment(h, { amount: "0.25", currency: "ETH", chain: "ETH" });
    const hash = (await node.public.sendRawTransaction({ serializedTransaction: await signedPayment(node, created.address, "0.25") })) as Hash;
    await node.mine(2);
    await settle(h);
    const block = Number((await node.public.getTransactionReceipt({ hash })).blockNumber);
    const confirming = await liveEvents(h);
    expect(confirming.slice(-1)).toEqual([`payment.confirming ${created.id}`]);

    await h.router.admin.rescan("ETH", block - 1);
    await settle(h);
    expect(await liveEvents(h)).toEqual(confirming);

    await node.mine(12);
    await settle(h);
    const paid = await liveEvents(h);
    expect(paid.slice(-2)).toEqual([`payment.confirmed ${created.id}`, `payment.completed ${created.id}`]);
    await h.router.admin.rescan("ETH", block - 1);
    await settle(h);
    expect(await liveEvents(h)).toEqual(paid);
    expect((await balances(h, h.liveKey)).ETH?.available).toBe("0.24875");
  });
});
