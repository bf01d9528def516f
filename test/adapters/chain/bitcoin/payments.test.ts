import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import type { Harness } from "../../../helpers";
import { closeReceivers, createEndpoint, startReceiver } from "../../../delivery/receiver";
import { balances } from "../../../http/v1/support";
import { liveHarness, settle } from "../evm/support";
import { startLitecoind, type Litecoind } from "./litecoind";
import { ltcChain, ltcPayment, newAccount, payment } from "./support";

/**
 * Live Litecoin payments on a real Litecoin Core node (regtest), through the public HTTP API
 * with a live key: the bitcoinChain adapter finds transfers in the mempool and in blocks, core
 * moves the invoices and credits the ledger.
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
  await closeReceivers();
  for (const h of open.splice(0)) await h.router.close();
});

async function harness(): Promise<Harness> {
  const h = await liveHarness([ltcChain(node, newAccount())]);
  open.push(h);
  return h;
}

describe("LTC on a real node", () => {
  it("goes CONFIRMING on the mempool transaction and PAID after minConfirm blocks, with payment.completed delivered", async () => {
    const h = await harness();
    const receiver = await startReceiver();
    await createEndpoint(h, receiver.url, { key: h.liveKey });
    const created = await ltcPayment(h, "0.5", { metadata: { orderId: "ltc-1" } });
    await node.pay(created.address, "0.5");
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");
    await node.mine(5);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");
    await node.mine(1);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("PAID");
    expect((await balances(h, h.liveKey)).LTC?.available).toBe("0.4975");
    const completed = receiver.events().filter((event) => event.type === "payment.completed");
    expect(completed).toHaveLength(1);
    expect(completed[0]!.data.metadata).toEqual({ orderId: "ltc-1" });
  });

  it("takes a hosted invoice: the payer picks LTC on the page, pays, PAID", async () => {
    const h = await harness();
    const created = await h.post("/api/v1/merchants/invoice/create", { amount: 40 }, h.liveKey);
    expect(created.status, created.text).toBe(200);
    const page = await request(h.app).get(`/pay/${created.body.id}`);
    expect([...page.text.matchAll(/data-option="([^"]+)"/g)].map((match) => match[1])).toEqual(["LTC/LTC"]);
    expect(
      (await request(h.app).post(`/pay/${created.body.id}/method`).set("Sec-Fetch-Site", "same-origin").type("form").send({ coin: "LTC", network: "LTC" }))
        .status,
    ).toBe(303);
    const invoice = await payment(h, created.body.id);
    expect(invoice.payAmount).toBe(0.5); // 40 USD at 80 USD per LTC
    await node.pay(invoice.address, "0.5");
    await node.mine(6);
    await settle(h);
    expect((await payment(h, created.body.id)).status).toBe("PAID");
  });

  it("shows underpaid, overpaid and a payment in two transactions", async () => {
    const h = await harness();
    const under = await ltcPayment(h, "1");
    const over = await ltcPayment(h, "1");
    const twice = await ltcPayment(h, "1");
    await node.pay(under.address, "0.9");
    await node.pay(over.address, "1.2");
    await node.pay(twice.address, "0.3");
    await node.pay(twice.address, "0.7");
    await node.mine(6);
    await settle(h);
    expect((await payment(h, under.id)).status).toBe("UNDER_PAID");
    expect((await payment(h, over.id)).status).toBe("PAID");
    expect((await payment(h, twice.id)).status).toBe("PAID");
    expect((await balances(h, h.liveKey)).LTC?.available).toBe("3.0845"); // every confirmed deposit, 3.1 LTC, less the 0.5% fee
  });

  it("reopens an expired payment paid late", async () => {
    const h = await harness();
    const created = await ltcPayment(h, "0.2", { lifeTime: 10 });
    h.clock.advanceMinutes(11);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("EXPIRED");
    await node.pay(created.address, "0.2");
    await node.mine(6);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("PAID");
  });
});
