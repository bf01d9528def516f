import { describe, expect, it } from "vitest";
import type { ChainAdapter } from "../../../src/core/ports/chain";
import { setup, simulatedLiveChain } from "../../helpers";
import { expectError, get } from "./support";

/**
 * What the service does with an address a chain adapter hands out again (a Bitcoin-family
 * adapter does so to stay within its gap limit): it takes the address over for the new invoice
 * only when the invoice holding it is the same merchant's, was never paid, and expired longer
 * than the late window ago, checked when it records the address, whatever the adapter thought.
 * An adapter here that returns whichever address the test names stands in for a wrong or racing one.
 */

async function world() {
  const chain = simulatedLiveChain();
  let forced: string | null = null;
  let once = false;
  const adapter: ChainAdapter = {
    ...chain,
    feedId: chain.feedId,
    createAddress: async (request) => {
      const address = forced ?? (await chain.createAddress(request));
      if (once) forced = null;
      return address;
    },
  };
  const h = await setup({ liveChain: adapter });
  const otherLiveKey = (await h.router.admin.issueApiKey(h.other.id, { mode: "live" })).key;
  const pay = async (key = h.liveKey) => {
    const res = await h.post("/v1/payments", { amount: "0.01", currency: "BTC", lifeTime: 10 }, key);
    return res;
  };
  const force = (address: string | null, onlyOnce = false) => {
    forced = address;
    once = onlyOnce;
  };
  return { h, chain, otherLiveKey, pay, force };
}

describe("an address handed out again", () => {
  it("is refused while the invoice holding it is open or inside the late window: 503, nothing created", async () => {
    const { h, pay, force } = await world();
    const holder = (await pay()).body;
    force(holder.address);
    const refused = await pay();
    expectError(refused, 503, 50301, /No BTC deposit address is free right now/);
    h.clock.advanceMinutes(11);
    await h.router.tick();
    expect((await get(h, `/v1/payments/${holder.id}`, h.liveKey)).body.status).toBe("EXPIRED");
    expectError(await pay(), 503, 50301); // expired 1 minute ago: a late payment may still come
    expect((await get(h, "/v1/payments", h.liveKey)).body.data).toHaveLength(1);
    expect((await h.router.storage.findAddress("live", "BTC", holder.address))?.invoiceId).toBe(holder.id);
  });

  it("makes the service ask the adapter again when the address it handed out is held: the payment gets the next one", async () => {
    const { h, pay, force } = await world();
    const holder = (await pay()).body;
    force(holder.address, true);
    const next = await pay();
    expect(next.status, next.text).toBe(200);
    expect(next.body.address).not.toBe(holder.address);
    expect((await h.router.storage.findAddress("live", "BTC", next.body.address))?.invoiceId).toBe(next.body.id);
    expect((await h.router.storage.findAddress("live", "BTC", holder.address))?.invoiceId).toBe(holder.id);
  });

  it("is taken over past the late window, and a deposit to it is then credited to the new invoice", async () => {
    const { h, chain, pay, force } = await world();
    const holder = (await pay()).body;
    h.clock.advanceMinutes(10 + 60);
    force(holder.address);
    const taker = await pay();
    expect(taker.status, taker.text).toBe(200);
    expect(taker.body.address).toBe(holder.address);
    expect((await h.router.storage.findAddress("live", "BTC", holder.address))?.invoiceId).toBe(taker.body.id);
    chain.createDeposit({ coin: "BTC", network: "BTC", address: holder.address, amount: 1_000_000n, confirmations: 6 });
    await h.router.tick();
    expect((await get(h, `/v1/payments/${taker.body.id}`, h.liveKey)).body).toMatchObject({ status: "PAID", receivedAmount: "0.01" });
    expect((await get(h, `/v1/payments/${holder.id}`, h.liveKey)).body).toMatchObject({ status: "EXPIRED", receivedAmount: "0" });
  });

  it("is refused when the invoice holding it received anything, or belongs to another merchant", async () => {
    const { h, chain, otherLiveKey, pay, force } = await world();
    const paidLate = (await pay()).body;
    const others = (await pay(otherLiveKey)).body;
    h.clock.advanceMinutes(10 + 61);
    await h.router.tick();
    // A payment after the late window: credited and recorded on the invoice, which stays EXPIRED.
    chain.createDeposit({ coin: "BTC", network: "BTC", address: paidLate.address, amount: 5_000n, confirmations: 6 });
    await h.router.tick();
    expect((await get(h, `/v1/payments/${paidLate.id}`, h.liveKey)).body).toMatchObject({ status: "EXPIRED", receivedAmount: "0.00005" });
    for (const address of [paidLate.address, others.address]) {
      force(address);
      expectError(await pay(), 503, 50301);
    }
    expect((await h.router.storage.findAddress("live", "BTC", others.address))?.merchantId).toBe(h.other.id);
  });
});
