import { PGlite } from "@electric-sql/pglite";
import { getAddress, type Address } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { postgresStorage } from "../../../../src/postgres";
import { testTokenAbi } from "../../../fixtures/contracts/artifacts";
import type { Harness } from "../../../helpers";
import { balances, expectError, get } from "../../../http/v1/support";
import { startAnvil, type Anvil } from "./anvil";
import { deployToken, ethChain, HOT, liveHarness, livePayment, mintToken, payment, payToken, settle } from "./support";

/**
 * A token contract is a well-formed address that cannot receive: what is sent to it is lost.
 * On a real node, with a test USDT and a test USDC deployed, a withdrawal, an /api/v1 payout
 * and a refund to either contract (in either coin, in either letter case) are refused with 400
 * `token_contract_destination` (40006) naming the token, and nothing is debited, stored or sent.
 */

let node: Anvil;
let usdt: Address;
let usdc: Address;
let pglite: PGlite;
let schemas = 0;
const open: Harness[] = [];

beforeAll(async () => {
  node = await startAnvil();
  usdt = await deployToken(node, "USDT", 6);
  usdc = await deployToken(node, "USDC", 6);
  await mintToken(node, usdt, node.account(HOT).address, "100000", 6);
  pglite = await PGlite.create();
}, 60_000);
afterAll(async () => {
  await node.stop();
  await pglite.close();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.router.close();
});

async function harness(): Promise<Harness> {
  const storage = postgresStorage({ pglite, schema: `token_dest_${++schemas}` });
  const tokens = { USDT: { address: usdt, decimals: 6 }, USDC: { address: usdc, decimals: 6 } };
  const h = await liveHarness([ethChain(node, { tokens })], { storage });
  open.push(h);
  return h;
}

/** The USDT balance of `address` on chain, in the token's smallest unit. */
const usdtOf = (address: Address) =>
  node.public.readContract({ address: usdt, abi: testTokenAbi, functionName: "balanceOf", args: [address] }) as Promise<bigint>;

/** A live payment of 100 USDT paid on chain and credited. */
async function paidUsdt(h: Harness) {
  const created = await livePayment(h, { amount: "100", currency: "USDT", chain: "ETH" });
  await payToken(node, usdt, 6, created.address, "100");
  await node.mine(12);
  await settle(h);
  expect((await payment(h, created.id)).status).toBe("PAID");
  return created;
}

describe("payouts to a token contract on a real EVM node", () => {
  it("refuses a withdrawal of 10 USDT to the USDT contract with 400 naming it, and leaves the balance as it was", async () => {
    const h = await harness();
    await paidUsdt(h);
    const before = await balances(h, h.liveKey);
    expect(before.USDT!.available).toBe("99.5");
    const contractHeld = await usdtOf(usdt);
    for (const address of [usdt, usdt.toLowerCase(), getAddress(usdt)]) {
      const res = await h.post("/v1/withdrawals", { currency: "USDT", chain: "ETH", amount: "10", address }, h.liveKey);
      expectError(res, 400, 40006, /is the USDT token contract on ETH, not a wallet/i);
    }
    expect(await balances(h, h.liveKey)).toEqual(before);
    const listed = await get(h, "/v1/withdrawals", h.liveKey);
    expect(listed.body.data).toEqual([]);
    await node.mine(1);
    await settle(h);
    expect(await usdtOf(usdt)).toBe(contractHeld);
  });

  it("refuses the other token's contract too, the currency list's contract, an /api/v1 payout and refunds", async () => {
    const h = await harness();
    const paid = await paidUsdt(h);
    const before = await balances(h, h.liveKey);
    expectError(
      await h.post("/v1/withdrawals", { currency: "USDT", chain: "ETH", amount: "10", address: usdc }, h.liveKey),
      400,
      40006,
      /USDC token contract on ETH/,
    );
    expectError(
      await h.post("/api/v1/merchants/payout/create", { currency: "USDT", network: "ETH", amount: 10, address: usdt }, h.liveKey),
      400,
      40006,
      /USDT token contract/,
    );
    expectError(await h.post("/v1/refunds", { paymentId: paid.id, address: usdt }, h.liveKey), 400, 40006, /USDT token contract/);
    expectError(await h.post("/v1/refunds", { paymentId: paid.id, amount: "20", address: usdc.toLowerCase() }, h.liveKey), 400, 40006, /USDC token contract/);
    // The currency list's own contracts on the network count as well (the mainnet USDT one here).
    expectError(
      await h.post("/v1/withdrawals", { currency: "USDT", chain: "ETH", amount: "10", address: "0xdAC17F958D2ee523a2206206994597C13D831ec7" }, h.liveKey),
      400,
      40006,
    );
    expect(await balances(h, h.liveKey)).toEqual(before);
    expect(await h.router.storage.listRefunds(paid.id)).toEqual([]);
    // A wallet address is still paid.
    const ok = await h.post("/v1/withdrawals", { currency: "USDT", chain: "ETH", amount: "10", address: node.account(30).address }, h.liveKey);
    expect(ok.status, ok.text).toBe(200);
  });
});
