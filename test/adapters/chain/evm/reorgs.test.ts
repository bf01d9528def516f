import { PGlite } from "@electric-sql/pglite";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { postgresStorage } from "../../../../src/postgres";
import type { Storage } from "../../../../src/index";
import type { Harness } from "../../../helpers";
import { balances } from "../../../http/v1/support";
import { startAnvil, type Anvil } from "./anvil";
import { ethChain, liveHarness, livePayment, payment, restart, settle, signedPayment } from "./support";

/**
 * Reorgs and restarts on a real node: a deposit in an orphaned block is dropped and the
 * invoice goes back to PENDING; re-mined, it is credited once. A router restarted mid-scan
 * resumes from the stored cursor with nothing lost or doubled.
 */

let node: Anvil;
let pglite: PGlite;
let schemas = 0;
const open: Harness[] = [];

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

async function harness(storage: Storage = postgresStorage({ pglite, schema: `reorg_${++schemas}` })): Promise<Harness> {
  const h = await liveHarness([ethChain(node)], { storage });
  open.push(h);
  return h;
}

describe("reorgs", () => {
  it("drops a deposit whose block is orphaned (snapshot and revert): the payment goes back to PENDING, and the re-mined transfer is credited once", async () => {
    const h = await harness();
    const created = await livePayment(h, { amount: "0.3", currency: "ETH", chain: "ETH" });
    const raw = await signedPayment(node, created.address, "0.3");
    const before = await node.test.snapshot();
    await node.public.sendRawTransaction({ serializedTransaction: raw });
    await node.mine(2);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");

    // The branch with the payment is abandoned for a longer one without it.
    await node.test.revert({ id: before });
    await node.mine(5);
    await settle(h);
    expect(await payment(h, created.id)).toMatchObject({ status: "PENDING", receivedAmount: "0" });
    expect(h.logger.lines.some((line) => /reorg/.test(line))).toBe(true);

    // The same transaction is mined again on the new branch.
    await node.public.sendRawTransaction({ serializedTransaction: raw });
    await node.mine(12);
    await settle(h);
    expect(await payment(h, created.id)).toMatchObject({ status: "PAID", receivedAmount: "0.3" });
    expect((await balances(h, h.liveKey)).ETH?.available).toBe("0.2985");
  });

  it("follows a transfer moved to another block by anvil_reorg and credits it once", async () => {
    const h = await harness();
    await node.mine(5); // deep enough for a 4-block reorg when this test runs alone
    const created = await livePayment(h, { amount: "0.4", currency: "ETH", chain: "ETH" });
    const raw = await signedPayment(node, created.address, "0.4");
    await node.public.sendRawTransaction({ serializedTransaction: raw });
    await node.mine(2);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");
    const height = await node.public.getBlockNumber();

    // Replace the last 4 blocks; the payment lands in the first of the new ones.
    await node.test.request({ method: "anvil_reorg" as never, params: [4, [[raw, 0]]] as never });
    expect(await node.public.getBlockNumber()).toBe(height);
    const lines = h.logger.lines.length;
    await settle(h);
    expect(h.logger.lines.slice(lines).some((line) => /reorg/.test(line))).toBe(true);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");
    await node.mine(12);
    await settle(h);
    expect(await payment(h, created.id)).toMatchObject({ status: "PAID", receivedAmount: "0.4" });
    expect((await balances(h, h.liveKey)).ETH?.available).toBe("0.398");
  });

  it("reverses a deposit that a reorg deeper than its confirmations removed (the credit taken back once, even below zero), and credits it again once when it is mined again", async () => {
    const h = await harness();
    const created = await livePayment(h, { amount: "0.2", currency: "ETH", chain: "ETH" });
    const raw = await signedPayment(node, created.address, "0.2");
    const before = await node.test.snapshot();
    await node.public.sendRawTransaction({ serializedTransaction: raw });
    await node.mine(12);
    await settle(h);
    expect(await payment(h, created.id)).toMatchObject({ status: "PAID", receivedAmount: "0.2" });
    expect((await balances(h, h.liveKey)).ETH?.available).toBe("0.199");
    // Part of it is spent before the reorg: the reversal then overdraws the balance.
    const out = await h.post("/v1/withdrawals", { currency: "ETH", chain: "ETH", amount: "0.1", address: node.account(2).address }, h.liveKey);
    expect(out.status, out.text).toBe(200);
    await settle(h);

    // A branch without the payment replaces 12+ blocks: deeper than the 12 confirmations waited for.
    await node.test.revert({ id: before });
    await node.mine(20);
    await settle(h);
    const reversed = await payment(h, created.id);
    expect(reversed).toMatchObject({ status: "PAID", receivedAmount: "0", reversedAmount: "0.2" });
    expect(reversed.deposits).toMatchObject([{ status: "REVERSED", reversals: 1, amount: "0.2", countsTowardPayment: true }]);
    // 0.199 credited, 0.101 paid out (amount and fee), 0.199 taken back.
    expect((await balances(h, h.liveKey)).ETH?.available).toBe("-0.101");
    const scope = { merchantId: h.merchant.id, mode: "live" as const };
    expect((await h.router.storage.listEvents(scope, { invoiceId: created.id })).at(-1)?.type).toBe("payment.reversed");
    expect(h.logger.lines.filter((line) => /deposit dep_\w+ reversed/.test(line))).toHaveLength(1);
    const refused = await h.post("/v1/withdrawals", { currency: "ETH", chain: "ETH", amount: "0.01", address: node.account(2).address }, h.liveKey);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: 42202, message: expect.stringMatching(/0\.101 ETH below zero/) });
    const report = await h.router.admin.operatorReport();
    expect(report.reversedDeposits).toEqual([
      expect.objectContaining({ invoiceId: created.id, coin: "ETH", amount: "0.2", status: "REVERSED", creditedAmount: "0.199" }),
    ]);

    // The very same transaction is mined again on the new branch: credited again, once.
    await node.public.sendRawTransaction({ serializedTransaction: raw });
    await node.mine(12);
    await settle(h);
    await settle(h);
    const back = await payment(h, created.id);
    expect(back).toMatchObject({ status: "PAID", receivedAmount: "0.2", reversedAmount: "0" });
    expect(back.deposits).toMatchObject([{ status: "CONFIRMED", reversals: 1 }]);
    // The PAID invoice does not move again; the re-credit is announced as the deposit confirmed again.
    const types = (await h.router.storage.listEvents(scope, { invoiceId: created.id })).map((event) => event.type);
    expect(types.filter((type) => type === "payment.completed")).toHaveLength(1);
    expect(types.slice(-2)).toEqual(["payment.reversed", "payment.confirmed"]);
    expect(h.logger.lines.join("\n")).not.toContain(node.rpcUrl);
    expect((await balances(h, h.liveKey)).ETH?.available).toBe("0.098");
    const entries = await h.router.storage.listLedgerEntries(scope, "ETH");
    expect(entries.map((entry) => entry.kind)).toEqual(["deposit", "payout", "deposit_reversal", "deposit"]);
    expect(String(entries.reduce((sum, entry) => sum + entry.amount, 0n))).toBe(String(await h.router.storage.getBalance(scope, "ETH")));
  });
});

describe("restarts", () => {
  it("resumes from the stored cursor after a crash mid-sync: deposits paid while down are credited once", async () => {
    const schema = `reorg_restart_${++schemas}`;
    const storage = postgresStorage({ pglite, schema });
    // The first instance dies after applying a page of deposits but before it stores the cursor.
    let crashed = false;
    const dying: Storage = {
      ...storage,
      transaction: (work) =>
        storage.transaction((tx) =>
          work({
            ...tx,
            setCursor: async (key, value) => {
              if (key.startsWith("deposits:live:") && !crashed) {
                crashed = true;
                throw new Error("killed before the cursor was stored");
              }
              return tx.setCursor(key, value);
            },
          }),
        ),
    };
    const first = await harness(dying);
    const a = await livePayment(first, { amount: "0.11", currency: "ETH", chain: "ETH" });
    const b = await livePayment(first, { amount: "0.12", currency: "ETH", chain: "ETH" });
    await node.public.sendRawTransaction({ serializedTransaction: await signedPayment(node, a.address, "0.11") });
    await node.mine(3);
    await expect(first.router.tick()).rejects.toThrow();
    expect(crashed).toBe(true);
    expect((await payment(first, a.id)).status).toBe("CONFIRMING");
    await first.router.close();
    open.splice(open.indexOf(first), 1);

    // While it is down, the first deposit confirms and a second payment arrives.
    await node.public.sendRawTransaction({ serializedTransaction: await signedPayment(node, b.address, "0.12") });
    await node.mine(15);

    const second = await restart(first, [ethChain(node)], postgresStorage({ pglite, schema }));
    open.push(second);
    await settle(second);
    expect(await payment(second, a.id)).toMatchObject({ status: "PAID", receivedAmount: "0.11" });
    expect(await payment(second, b.id)).toMatchObject({ status: "PAID", receivedAmount: "0.12" });
    // (0.11 + 0.12) x 0.995, each credited once.
    expect((await balances(second, second.liveKey)).ETH?.available).toBe("0.22885");
  });

  it("two instances on one database polling at once credit each deposit once", async () => {
    const schema = `reorg_pair_${++schemas}`;
    const first = await harness(postgresStorage({ pglite, schema }));
    const second = await restart(first, [ethChain(node)], postgresStorage({ pglite, schema }));
    open.push(second);
    const created = await livePayment(first, { amount: "0.5", currency: "ETH", chain: "ETH" });
    await node.public.sendRawTransaction({ serializedTransaction: await signedPayment(node, created.address, "0.5") });
    await node.mine(12);
    await Promise.all([settle(first), settle(second), settle(first), settle(second)]);
    expect(await payment(first, created.id)).toMatchObject({ status: "PAID", receivedAmount: "0.5" });
    expect((await balances(first, first.liveKey)).ETH?.available).toBe("0.4975");
  });
});
