import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "../../helpers";
import { balances } from "../../http/v1/support";
import { startAnvil, type Anvil } from "../../adapters/chain/evm/anvil";
import { ltcChain, ltcPayment, newAccount, payment as ltcInvoice } from "../../adapters/chain/bitcoin/support";
import { ethChain, liveHarness, livePayment, payment, payNative, settle } from "../../adapters/chain/evm/support";
import { startLitecoind, type Litecoind } from "../../adapters/chain/bitcoin/litecoind";

/**
 * A chain's `confirmations` option sets when a deposit is credited, below or above the currency
 * list's minConfirm (ETH 12, LTC 6), on both families; the currency list a live key reads shows
 * that number.
 */

let anvil: Anvil;
let litecoind: Litecoind;
const open: Harness[] = [];

beforeAll(async () => {
  [anvil, litecoind] = await Promise.all([startAnvil(), startLitecoind()]);
  await litecoind.fund();
}, 120_000);
afterAll(async () => {
  await Promise.all([anvil?.stop(), litecoind?.stop()]);
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.router.close();
});

/** minConfirm of `coin` on `network` in the currency list that `key` reads. */
async function listedConfirmations(h: Harness, key: string, coin: string, network: string): Promise<number> {
  const res = await h.post("/api/v1/currencies", {}, key);
  expect(res.status, res.text).toBe(200);
  const currency = (res.body as Array<{ symbol: string; networks: Array<{ network: string; minConfirm: number }> }>).find((entry) => entry.symbol === coin);
  return currency!.networks.find((entry) => entry.network === network)!.minConfirm;
}

describe("evmChain({ confirmations })", () => {
  it.each([
    { confirmations: 3, label: "below" },
    { confirmations: 15, label: "above" },
  ])("credits at $confirmations confirmations ($label ETH's minConfirm of 12)", async ({ confirmations }) => {
    const h = await liveHarness([ethChain(anvil, { confirmations })]);
    open.push(h);
    expect(await listedConfirmations(h, h.liveKey, "ETH", "ETH")).toBe(confirmations);
    expect(await listedConfirmations(h, h.testKey, "ETH", "ETH")).toBe(12); // test mode: the sandbox, the list's number
    const created = await livePayment(h, { amount: "0.05", currency: "ETH", chain: "ETH" });
    await payNative(anvil, created.address, "0.05"); // mined at once: its first confirmation
    await anvil.mine(confirmations - 2);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");
    await anvil.mine(1);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("PAID");
    expect((await balances(h, h.liveKey)).ETH?.available).toBe("0.04975");
  });
});

describe("bitcoinChain({ confirmations })", () => {
  it.each([
    { confirmations: 2, label: "below" },
    { confirmations: 8, label: "above" },
  ])("credits at $confirmations confirmations ($label LTC's minConfirm of 6)", async ({ confirmations }) => {
    const h = await liveHarness([ltcChain(litecoind, newAccount(), { confirmations })]);
    open.push(h);
    expect(await listedConfirmations(h, h.liveKey, "LTC", "LTC")).toBe(confirmations);
    expect(await listedConfirmations(h, h.testKey, "LTC", "LTC")).toBe(6);
    const created = await ltcPayment(h, "0.5");
    await litecoind.pay(created.address, "0.5");
    await litecoind.mine(confirmations - 1);
    await settle(h);
    expect((await ltcInvoice(h, created.id)).status).toBe("CONFIRMING");
    await litecoind.mine(1);
    await settle(h);
    expect((await ltcInvoice(h, created.id)).status).toBe("PAID");
    expect((await balances(h, h.liveKey)).LTC?.available).toBe("0.4975");
  });
});
