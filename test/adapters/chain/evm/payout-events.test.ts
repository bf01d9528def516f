import type { Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revertingReceiverAbi, revertingReceiverBytecode } from "../../../fixtures/contracts/artifacts";
import type { Harness } from "../../../helpers";
import { get } from "../../../http/v1/support";
import { startAnvil, type Anvil } from "./anvil";
import { deploy, ethChain, HOT, liveHarness, livePayment, payNative, payment, settle } from "./support";

/**
 * A live payout on a real node (anvil) tells the merchant and the operator what happened to the
 * money: `payout.processing`, then `payout.completed` or `payout.failed` (the debit returned),
 * each carrying the withdrawal as /v1 shows it, and one `info` log line when it is sent, with
 * its txHash, never the node's URL or the hot wallet's key.
 */

let node: Anvil;
beforeAll(async () => {
  node = await startAnvil();
}, 60_000);
afterAll(() => node.stop());

async function harness(lines: Array<{ message: string; details: unknown[] }>): Promise<Harness> {
  const record =
    (level: string) =>
    (message: string, ...details: unknown[]) =>
      void lines.push({ message: `${level} ${message}`, details });
  return liveHarness([ethChain(node)], { logger: { info: record("info"), warn: record("warn"), error: record("error") } });
}

const live = (h: Harness) => ({ merchantId: h.merchant.id, mode: "live" as const });
const eventsOf = async (h: Harness, id: string) => (await h.router.storage.listEvents(live(h), { invoiceId: id })).map(({ type, data }) => ({ type, data }));

/** Gives the merchant 1 ETH (less the fee) to pay out: a live ETH payment paid on chain to PAID. */
async function fundWithPaidEth(h: Harness): Promise<void> {
  const funding = await livePayment(h, { amount: "1", currency: "ETH", chain: "ETH" });
  await payNative(node, funding.address, "1");
  await node.mine(12);
  await settle(h);
  expect((await payment(h, funding.id)).status).toBe("PAID");
}

describe("events and log lines of live payouts", () => {
  it("sends payout.processing and payout.completed for a payout the chain confirms, and logs it once with its txHash", async () => {
    const lines: Array<{ message: string; details: unknown[] }> = [];
    const h = await harness(lines);
    await fundWithPaidEth(h);

    const to = node.account(42).address;
    const created = await h.post("/v1/withdrawals", { currency: "ETH", chain: "ETH", amount: "0.25", address: to }, h.liveKey);
    expect(created.status, created.text).toBe(200);
    const { id, txHash } = created.body as { id: string; txHash: string };
    expect((await node.public.getTransaction({ hash: txHash as `0x${string}` })).to?.toLowerCase()).toBe(to.toLowerCase());
    await node.mine(12);
    await settle(h);
    const completed = (await get(h, `/v1/withdrawals/${id}`, h.liveKey)).body;
    expect(completed.status).toBe("COMPLETED");
    expect(await eventsOf(h, id)).toEqual([
      { type: "payout.processing", data: { ...created.body, txHash: null } },
      { type: "payout.completed", data: completed },
    ]);

    const sent = lines.filter((line) => line.message.startsWith("info payout"));
    expect(sent).toEqual([
      {
        message: `info payout ${id} sent`,
        details: [expect.objectContaining({ payoutId: id, coin: "ETH", network: "ETH", amount: "0.25", address: to, txHash })],
      },
    ]);
    const logged = JSON.stringify(lines);
    expect(logged).not.toContain(node.rpcUrl);
    expect(logged).not.toContain(node.privateKey(HOT).slice(2));
  });

  it("sends payout.failed for a payout that reverts on chain, the debit returned", async () => {
    const lines: Array<{ message: string; details: unknown[] }> = [];
    const h = await harness(lines);
    await fundWithPaidEth(h);
    const reverting: Address = await deploy(node, revertingReceiverAbi, revertingReceiverBytecode);
    const created = await h.post("/v1/withdrawals", { currency: "ETH", chain: "ETH", amount: "0.1", address: reverting }, h.liveKey);
    expect(created.status, created.text).toBe(200);
    await node.mine(12);
    await settle(h);
    const failed = (await get(h, `/v1/withdrawals/${created.body.id}`, h.liveKey)).body;
    expect(failed.status).toBe("FAILED");
    expect((await eventsOf(h, created.body.id)).map((event) => event.type)).toEqual(["payout.processing", "payout.failed"]);
    expect((await eventsOf(h, created.body.id))[1]!.data).toEqual(failed);
  });
});
