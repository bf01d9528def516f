import { describe, expect, it } from "vitest";
import { expectErrorObject, setup } from "../helpers";

/**
 * POST /api/v1/sandbox/deposit/create with `coin`: test mode can send a coin other than the one
 * the address was issued for (ETH to a USDT invoice's address), as a payer's mistake would on a
 * real chain. The sandbox chain reports it under the coin sent, like any live adapter.
 */

const CREATE_DEPOSIT = "/api/v1/sandbox/deposit/create";

/** A test-mode USDT invoice on ETH, and its deposit address. */
async function usdtOnEth(h: Awaited<ReturnType<typeof setup>>): Promise<string> {
  const res = await h.post("/v1/payments", { amount: "10", currency: "USDT", chain: "ETH" });
  expect(res.status, res.text).toBe(200);
  return res.body.address as string;
}

describe("sandbox deposit/create with coin", () => {
  it("sends another coin of the address's network, in that coin's units, and answers as before", async () => {
    const h = await setup();
    const address = await usdtOnEth(h);
    // Seven decimals: more than USDT has, fine for ETH (18): the amount is read in the coin sent.
    const res = await h.post(CREATE_DEPOSIT, { address, amount: 0.1234567, coin: "eth", confirmations: 2 });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual(["txHash"]);
    expect(h.router.sandbox.getDeposit(res.body.txHash)).toMatchObject({
      coin: "ETH",
      network: "ETH",
      address,
      amount: 123_456_700_000_000_000n,
      confirmations: 2,
      dropped: false,
    });
    const feed = await h.router.sandbox.pollDeposits(null, 100);
    expect(feed.deposits.filter((deposit) => deposit.txHash === res.body.txHash).map((deposit) => deposit.coin)).toEqual(["ETH"]);
  });

  it("sends the address's own coin when coin is left out or names it", async () => {
    const h = await setup();
    const address = await usdtOnEth(h);
    for (const body of [
      { address, amount: 4 },
      { address, amount: 4, coin: "USDT" },
    ]) {
      const res = await h.post(CREATE_DEPOSIT, body);
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body)).toEqual(["txHash"]);
      expect(h.router.sandbox.getDeposit(res.body.txHash)).toMatchObject({ coin: "USDT", network: "ETH", address, amount: 4_000_000n });
    }
    // Without coin the amount is in the address's coin, as before: 7 decimals are too many for USDT.
    expectErrorObject(await h.post(CREATE_DEPOSIT, { address, amount: 0.1234567 }), 400, 40001);
  });

  it("refuses a coin the address's network does not carry, sending nothing", async () => {
    const h = await setup();
    const address = await usdtOnEth(h);
    for (const coin of ["BTC", "NOPE"]) {
      const res = await h.post(CREATE_DEPOSIT, { address, amount: 1, coin });
      expectErrorObject(res, 400, 40005);
      expect(res.body.message).toContain(coin);
    }
    expectErrorObject(await h.post(CREATE_DEPOSIT, { address, amount: 1, coin: 5 }), 400, 40001);
    expect((await h.router.sandbox.pollDeposits(null, 100)).deposits).toEqual([]);
  });
});
