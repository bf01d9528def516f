import { parseUnits, type Address } from "viem";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { testTokenAbi } from "../../../fixtures/contracts/artifacts";
import type { Harness } from "../../../helpers";
import { balances } from "../../../http/v1/support";
import { postgresStorage } from "../../../../src/postgres";
import { DATABASE_URL, dropSchema, uniqueSchema } from "../../storage/sql-fixtures";
import { describeIf, NO_DATABASE_URL } from "../../../support/skips";
import { startRpcProxy, type RpcProxy } from "../rpc-proxy";
import { startAnvil, type Anvil } from "./anvil";
import { deployToken, ethChain, HOT, liveHarness, livePayment, mine, payment, payToken, restart, settle } from "./support";

/**
 * Payouts asked for at the same moment, on two instances sharing one PostgreSQL database,
 * whose sum exceeds the hot wallet: the funding check and the payout's acceptance are one step
 * per network, so exactly those that fit together are taken and the others refused with
 * 42203, nothing debited for them. Broadcasts are held back (the proxy cuts them) so that every
 * check reads the same balance and the count is exact; they go out afterwards.
 */

const schema = uniqueSchema("funding");
let node: Anvil;
let proxy: RpcProxy;
let usdt: Address;
const open: Harness[] = [];

beforeAll(async () => {
  node = await startAnvil();
  proxy = await startRpcProxy(node.rpcUrl);
  usdt = await deployToken(node, "USDT", 6);
  // The hot wallet's token float: 50 USDT.
  await mine(
    node,
    node.wallet.writeContract({
      address: usdt,
      abi: testTokenAbi,
      functionName: "mint",
      args: [node.account(HOT).address, parseUnits("50", 6)],
      account: node.account(0),
      chain: null,
    }),
  );
}, 60_000);
afterEach(async () => {
  for (const h of open.splice(0)) await h.router.close();
});
afterAll(async () => {
  await proxy.close();
  await node.stop();
  await dropSchema(schema);
});

describeIf(DATABASE_URL, NO_DATABASE_URL)("the payout funding race (anvil, PostgreSQL server)", () => {
  it("takes exactly the concurrent payouts the hot wallet can fund together, across two instances, and refuses the rest with 42203", async () => {
    const chain = () => ethChain(node, { rpcUrl: proxy.url, tokens: { USDT: { address: usdt, decimals: 6 } }, consolidation: false });
    const first = await liveHarness([chain()], { storage: postgresStorage({ connectionString: DATABASE_URL!, schema }) });
    open.push(first);
    const second = await restart(first, [chain()], postgresStorage({ connectionString: DATABASE_URL!, schema }));
    open.push(second);
    // The merchant holds 300 USDT, left at the deposit address; the hot wallet holds 50.
    const created = await livePayment(first, { amount: "300", currency: "USDT", chain: "ETH" });
    await payToken(node, usdt, 6, created.address, "300");
    await node.mine(12);
    await settle(first);
    expect((await payment(first, created.id)).status).toBe("PAID");
    const before = parseUnits((await balances(first, first.liveKey)).USDT!.available, 6);

    // Six payouts of 20 USDT at once, three through each instance: 120 against 50.
    proxy.refuse.add("eth_sendRawTransaction");
    const to = node.account(40).address;
    const answers = await Promise.all(
      [first, second, first, second, first, second].map((h) =>
        h.post("/v1/withdrawals", { currency: "USDT", chain: "ETH", amount: "20", address: to }, h.liveKey),
      ),
    );
    const taken = answers.filter((res) => res.status === 200);
    const refused = answers.filter((res) => res.status !== 200);
    expect(taken, answers.map((res) => res.text).join("\n")).toHaveLength(2);
    for (const res of refused) {
      expect(res.status, res.text).toBe(422);
      expect(res.body.error).toBe(42203);
    }
    for (const res of taken) expect(res.body.status).toBe("PROCESSING");
    // Only the two taken were debited (amount and fee each).
    const fee = parseUnits(taken[0]!.body.fee as string, 6);
    const after = parseUnits((await balances(first, first.liveKey)).USDT!.available, 6);
    expect(before - after).toBe(2n * (parseUnits("20", 6) + fee));
    expect((await first.router.forMerchant(first.merchant.id, "live").withdrawals.list()).data.map((payout) => payout.id).sort()).toEqual(
      taken.map((res) => res.body.id as string).sort(),
    );

    // The node answers again: both go out, 40 USDT in all, and a third still does not fit.
    proxy.refuse.clear();
    await settle(first);
    await node.mine(12);
    await settle(first);
    expect(await node.public.readContract({ address: usdt, abi: testTokenAbi, functionName: "balanceOf", args: [to] })).toBe(parseUnits("40", 6));
    const third = await second.post("/v1/withdrawals", { currency: "USDT", chain: "ETH", amount: "20", address: to }, second.liveKey);
    expect(third.body.error, third.text).toBe(42203);
  });
});
