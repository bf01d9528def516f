import { parseEther, type Address } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "../../../helpers";
import { balances, get } from "../../../http/v1/support";
import { startAnvil, type Anvil } from "./anvil";
import { deployToken, ethChain, liveHarness, livePayment, payNative, payToken, settle } from "./support";

/**
 * Stray coins on a real node: ETH sent to the address of a USDT payment, and USDT sent to the
 * address of an ETH payment, are each credited once in the coin received (less the 0.5% fee),
 * listed on the payment as not counting toward it, and can be refunded from the hot wallet by
 * their deposit id.
 */

let node: Anvil;
let usdt: Address;
const open: Harness[] = [];

beforeAll(async () => {
  node = await startAnvil();
  usdt = await deployToken(node, "USDT", 6);
}, 60_000);
afterAll(async () => {
  await node.stop();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.router.close();
});

async function harness(): Promise<Harness> {
  const h = await liveHarness([ethChain(node, { tokens: { USDT: { address: usdt, decimals: 6 } } })]);
  open.push(h);
  return h;
}

async function payment(h: Harness, id: string) {
  const res = await get(h, `/v1/payments/${id}`, h.liveKey);
  expect(res.status, res.text).toBe(200);
  return res.body as { status: string; receivedAmount: string; deposits: Array<Record<string, unknown>> };
}

describe("stray coins on anvil", () => {
  it("credits ETH sent to a USDT payment's address in ETH, once, and refunds it by depositId from the hot wallet", async () => {
    const h = await harness();
    const created = await livePayment(h, { amount: "20", currency: "USDT", chain: "ETH" });
    const txHash = await payNative(node, created.address, "0.1");
    await node.mine(12);
    await settle(h);
    await settle(h);
    const after = await payment(h, created.id);
    expect(after.status).toBe("PENDING");
    expect(after.receivedAmount).toBe("0");
    expect(after.deposits).toMatchObject([
      { txHash, currency: "ETH", chain: "ETH", amount: "0.1", fee: "0.0005", status: "CONFIRMED", countsTowardPayment: false },
    ]);
    expect((await balances(h, h.liveKey)).ETH?.available).toBe("0.0995");
    expect((await balances(h, h.liveKey)).USDT?.available).toBe("0");
    const scope = { merchantId: h.merchant.id, mode: "live" as const };
    expect((await h.router.storage.listEvents(scope, { invoiceId: created.id })).map((event) => event.type)).toEqual([
      "payment.created",
      "payment.unexpected_deposit",
    ]);
    expect((await h.router.admin.operatorReport()).strayDeposits).toEqual([
      expect.objectContaining({ invoiceId: created.id, coin: "ETH", invoiceCoin: "USDT", network: "ETH", amount: "0.1", txHash }),
    ]);

    // Given back from the hot wallet: everything it credited, the network fee included.
    const to = node.account(4).address;
    const before = await node.public.getBalance({ address: to });
    const refund = await h.post("/v1/refunds", { paymentId: created.id, depositId: after.deposits[0]!.id, address: to }, h.liveKey);
    expect(refund.status, refund.text).toBe(200);
    expect(refund.body).toMatchObject({ depositId: after.deposits[0]!.id, currency: "ETH", amount: "0.0985", fee: "0.001" });
    await node.mine(12);
    await settle(h);
    await settle(h);
    expect((await get(h, `/v1/refunds/${refund.body.id}`, h.liveKey)).body.status).toBe("COMPLETED");
    expect((await node.public.getBalance({ address: to })) - before).toBe(parseEther("0.0985"));
    expect((await balances(h, h.liveKey)).ETH?.available).toBe("0");
    const entries = await h.router.storage.listLedgerEntries(scope);
    expect(entries.map((entry) => [entry.asset, entry.kind, entry.amount])).toEqual([
      ["ETH", "deposit", parseEther("0.0995")],
      ["ETH", "payout", -parseEther("0.0995")],
    ]);
  });

  it("credits USDT sent to an ETH payment's address in USDT, once, and the payment is still paid in ETH", async () => {
    const h = await harness();
    const created = await livePayment(h, { amount: "0.05", currency: "ETH", chain: "ETH" });
    const stray = await payToken(node, usdt, 6, created.address, "12.5");
    const paid = await payNative(node, created.address, "0.05");
    await node.mine(12);
    await settle(h);
    await settle(h);
    const after = await payment(h, created.id);
    expect(after.status).toBe("PAID");
    expect(after.receivedAmount).toBe("0.05");
    // Listed in the order the scanner reported them (one poll read both blocks).
    const rows = after.deposits.map((deposit) => [deposit.txHash, deposit.currency, deposit.amount, deposit.countsTowardPayment, deposit.status]);
    expect(rows.sort((a, b) => String(a[1]).localeCompare(String(b[1])))).toEqual([
      [paid, "ETH", "0.05", true, "CONFIRMED"],
      [stray, "USDT", "12.5", false, "CONFIRMED"],
    ]);
    expect((await balances(h, h.liveKey)).USDT?.available).toBe("12.4375");
    expect((await balances(h, h.liveKey)).ETH?.available).toBe("0.04975");
    expect(h.logger.lines.filter((line) => line.startsWith("warn stray deposit"))).toHaveLength(1);
  });
});
