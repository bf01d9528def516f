import { PGlite } from "@electric-sql/pglite";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { postgresStorage } from "../../../../src/postgres";
import type { Harness } from "../../../helpers";
import { balances } from "../../../http/v1/support";
import { liveEvents, liveHarness, settle } from "../evm/support";
import { startRpcProxy } from "../rpc-proxy";
import { startLitecoind, type Litecoind } from "./litecoind";
import { ltcChain, ltcPayment, newAccount, payment } from "./support";

/**
 * Blocks read twice on a real Litecoin Core node (regtest): a recovery rescan, or a deposit
 * scan set back to an older cursor, sends no payment event twice and credits nothing twice; and
 * a rescan asked for while a poll runs is not lost to that poll.
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

describe("replayed block ranges on litecoind", () => {
  it("a scan set back to a cursor from before a reorg moved the deposit, and a rescan over it, send no second event and credit once; the deposit names its new block", async () => {
    const chain = ltcChain(node, newAccount());
    const h = await liveHarness([chain], { storage: postgresStorage({ pglite, schema: `ltc_replay_${++schemas}` }) });
    open.push(h);
    const feed = `deposits:live:${chain.feedId}`;
    const created = await ltcPayment(h, "0.4");
    const txid = await node.pay(created.address, "0.4");
    const [first] = await node.mine(1);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");
    expect((await h.router.storage.listDepositsForInvoice(created.id)).map((deposit) => deposit.blockHash)).toEqual([first]);
    // The cursor as a backup taken now holds it: the deposit in its first block.
    const older = await h.router.storage.getCursor(feed);
    const height = await node.height();

    // The block is invalidated; the transaction goes back to the mempool and is mined again.
    await node.invalidate(first!);
    const [movedTo] = await node.mine(1);
    expect((await node.call<{ tx: string[] }>("getblock", movedTo, 1)).tx).toContain(txid);
    await node.mine(6);
    await settle(h);
    expect(await payment(h, created.id)).toMatchObject({ status: "PAID", receivedAmount: 0.4 });
    expect((await h.router.storage.listDepositsForInvoice(created.id)).map((deposit) => deposit.blockHash)).toEqual([movedTo]);
    const trail = await liveEvents(h);
    expect(trail.filter((entry) => entry.endsWith(created.id))).toEqual(
      ["created", "confirming", "confirmed", "completed"].map((step) => `payment.${step} ${created.id}`),
    );

    // The scan starts again from the older cursor, which still holds the invalidated block.
    await h.router.storage.transaction((tx) => tx.setCursor(feed, older!));
    await settle(h);
    expect(await liveEvents(h)).toEqual(trail);
    // And a rescan reads the same blocks once more.
    await h.router.admin.rescan("LTC", height - 1);
    await settle(h);
    expect(await liveEvents(h)).toEqual(trail);
    const [deposit] = await h.router.storage.listDepositsForInvoice(created.id);
    expect([deposit!.status, deposit!.blockHash, deposit!.reversals]).toEqual(["CONFIRMED", movedTo, 0]);
    const scope = { merchantId: h.merchant.id, mode: "live" as const };
    expect((await h.router.storage.listLedgerEntries(scope, "LTC")).map((entry) => entry.kind)).toEqual(["deposit"]);
    expect((await balances(h, h.liveKey)).LTC?.available).toBe("0.398");
  });
});

describe("rescan during a poll", () => {
  it("asked for while a poll applies an earlier one, takes effect at the next poll", async () => {
    const proxy = await startRpcProxy(`http://127.0.0.1:${new URL(node.rpcUrl).port}`);
    try {
      const viaProxy = `http://${node.rpcUser}:${node.rpcPassword}@127.0.0.1:${new URL(proxy.url).port}`;
      // The scan starts far above the chain: the payment's block is read only by a rescan.
      const chain = ltcChain(node, newAccount(), { rpcUrl: viaProxy, startHeight: 1_000_000 });
      const h = await liveHarness([chain], { storage: postgresStorage({ pglite, schema: `ltc_replay_${++schemas}` }) });
      open.push(h);
      const height = await node.height();
      const created = await ltcPayment(h, "0.15");
      await node.pay(created.address, "0.15");
      await node.mine(6);

      // A rescan from above the payment's block: the poll that applies it stops at its mempool
      // read, and the operator, seeing the mistake, asks again from further back meanwhile.
      await h.router.admin.rescan("LTC", height + 3);
      const gate = proxy.pause("getrawmempool");
      const round = h.router.tick();
      await gate.reached;
      await h.router.admin.rescan("LTC", height);
      gate.release();
      await round;
      expect((await payment(h, created.id)).status).toBe("PENDING");

      await settle(h);
      expect((await payment(h, created.id)).status).toBe("PAID");
      expect((await balances(h, h.liveKey)).LTC?.available).toBe("0.14925");
    } finally {
      await proxy.close();
    }
  });
});
