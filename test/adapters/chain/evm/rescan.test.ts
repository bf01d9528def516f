import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "../../../helpers";
import { balances } from "../../../http/v1/support";
import { startAnvil, type Anvil } from "./anvil";
import { ethChain, liveHarness, livePayment, payment, payNative, settle } from "./support";

/**
 * Recovery rescans on a real node: `payments.admin.rescan(network, fromHeight)` makes evmChain's
 * next deposit sync read blocks again, so a deposit the scan never saw (here: paid below the
 * block it was told to start at, as after restoring an old backup) is credited, and reading the
 * same blocks once more credits nothing twice.
 */

let node: Anvil;
const open: Harness[] = [];

beforeAll(async () => {
  node = await startAnvil();
}, 60_000);
afterAll(async () => {
  await node.stop();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.router.close();
});

describe("evmChain rescan", () => {
  it("credits a deposit below the scanner's start once rescanned from its block, and a second rescan credits nothing again", async () => {
    const head = Number(await node.public.getBlockNumber());
    // The scan starts three blocks above the one the payment lands in: it never reads that block.
    const h = await liveHarness([ethChain(node, { startBlock: head + 4 })]);
    open.push(h);
    const created = await livePayment(h, { amount: "0.5", currency: "ETH", chain: "ETH" });
    await payNative(node, created.address, "0.5");
    const paidIn = Number(await node.public.getBlockNumber());
    expect(paidIn).toBeLessThan(head + 4);
    await node.mine(14);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("PENDING");

    await h.router.admin.rescan("ETH", paidIn);
    await settle(h);
    const paid = await payment(h, created.id);
    expect(paid.status).toBe("PAID");
    expect(paid.receivedAmount).toBe("0.5");
    expect((await balances(h, h.liveKey)).ETH?.available).toBe("0.4975");

    // By its feed name this time, from further back: everything read again is already applied.
    await h.router.admin.rescan("evm:ETH", Math.max(0, paidIn - 2));
    await settle(h);
    expect((await payment(h, created.id)).receivedAmount).toBe("0.5");
    expect((await balances(h, h.liveKey)).ETH?.available).toBe("0.4975");
  });

  it("refuses an unknown chain naming the live ones, and a height that is not one", async () => {
    const h = await liveHarness([ethChain(node)]);
    open.push(h);
    await expect(h.router.admin.rescan("BTC", 1)).rejects.toThrow('rescan: no live chain "BTC" (live chains: evm:ETH)');
    await expect(h.router.admin.rescan("ETH", -1)).rejects.toThrow("fromHeight must be a block height");
    await expect(h.router.admin.rescan("ETH", 1.5)).rejects.toThrow("fromHeight must be a block height");
  });
});
