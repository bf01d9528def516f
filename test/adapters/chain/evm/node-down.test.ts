import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "../../../helpers";
import { balances, get } from "../../../http/v1/support";
import { freePort, startAnvil, type Anvil } from "./anvil";
import { startRpcProxy, type RpcProxy } from "../rpc-proxy";
import { deployPayer, ethChain, HOT, liveHarness, livePayment, payment, payNative, payThroughContract, settle } from "./support";

/**
 * What a merchant sees while the node is down: live payments are still created (deposit
 * addresses need no node), the background round reports the failure without the node's URL or
 * credentials, test mode is untouched, and everything catches up when the node is back.
 */

let node: Anvil;
let proxy: RpcProxy;
const open: Harness[] = [];

beforeAll(async () => {
  node = await startAnvil();
  proxy = await startRpcProxy(node.rpcUrl);
}, 60_000);
afterAll(async () => {
  await proxy.close();
  await node.stop();
});
afterEach(async () => {
  proxy.refuse.clear();
  proxy.unsupported.clear();
  for (const h of open.splice(0)) await h.router.close();
});

describe("a live node that is down", () => {
  it("keeps creating payments, reports the outage without secrets, and catches up when the node is back", async () => {
    // Credentials in the URL, as hosted RPC providers hand them out: they must never show.
    const url = new URL(proxy.url);
    url.username = "shop";
    url.password = "s3cret-pass";
    url.pathname = "/v3/apikey0123456789";
    const h = await liveHarness([ethChain(node, { rpcUrl: url.toString() })]);
    open.push(h);
    const created = await livePayment(h, { amount: "0.05", currency: "ETH", chain: "ETH" });
    await payNative(node, created.address, "0.05");
    await node.mine(11);

    // Every method fails, as from a node that went away.
    for (const method of ["eth_blockNumber", "eth_chainId", "eth_getBlockByNumber", "eth_getLogs", "trace_block"]) proxy.refuse.add(method);
    const during = await livePayment(h, { amount: "0.01", currency: "ETH", chain: "ETH" });
    expect(during.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const failure = await h.router.tick().then(
      () => null,
      (error: unknown) => error as Error,
    );
    expect(failure).toBeInstanceOf(Error);
    const text = `${failure!.message} ${JSON.stringify(failure)} ${String((failure as AggregateError).errors?.map((e: Error) => e.message))}`;
    expect(text).toMatch(/ETH node/);
    expect(text).not.toContain("s3cret-pass");
    expect(text).not.toContain("apikey0123456789");
    expect(text).not.toContain(node.privateKey(HOT).slice(2));
    expect((await payment(h, created.id)).status).toBe("PENDING");

    // Test mode does not depend on the live node.
    const testPayment = await h.post("/v1/payments", { amount: "5", currency: "USDT", chain: "TRX" }, h.testKey);
    expect(testPayment.status).toBe(200);
    expect((await get(h, "/v1/balances", h.liveKey)).status).toBe(200);

    proxy.refuse.clear();
    await settle(h);
    expect(await payment(h, created.id)).toMatchObject({ status: "PAID", receivedAmount: "0.05" });
    expect((await balances(h, h.liveKey)).ETH?.available).toBe("0.04975");
  });

  it("answers a live payout with PROCESSING while the node is unreachable, and sends it once the node is back", async () => {
    const h = await liveHarness([ethChain(node, { rpcUrl: proxy.url })]);
    open.push(h);
    const funding = await livePayment(h, { amount: "1", currency: "ETH", chain: "ETH" });
    await payNative(node, funding.address, "1");
    await node.mine(12);
    await settle(h);
    const to = node.account(44).address;
    const before = await node.public.getBalance({ address: to });

    proxy.refuse.add("eth_estimateGas");
    proxy.refuse.add("eth_sendRawTransaction");
    const res = await h.post("/v1/withdrawals", { currency: "ETH", chain: "ETH", amount: "0.1", address: to }, h.liveKey);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: "PROCESSING", txHash: null });
    expect(h.logger.lines.some((line) => line.includes("could not be sent yet"))).toBe(true);

    proxy.refuse.clear();
    await settle(h);
    await node.mine(12);
    await settle(h);
    const done = await get(h, `/v1/withdrawals/${res.body.id}`, h.liveKey);
    expect(done.body.status).toBe("COMPLETED");
    expect(await node.public.getBalance({ address: to })).toBe(before + 100_000_000_000_000_000n);
  });

  it("answers a live payment for a node that never existed: the address is issued, the sync fails loudly", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const h = await liveHarness([ethChain(node, { rpcUrl: closed })]);
    open.push(h);
    const created = await livePayment(h, { amount: "0.05", currency: "ETH", chain: "ETH" });
    expect(created.status).toBe("PENDING");
    const failure = (await h.router.tick().catch((error: unknown) => error)) as AggregateError;
    expect(failure).toBeInstanceOf(AggregateError);
    expect(failure.errors.map((error: Error) => error.message).join("\n")).toMatch(/^ETH node/m);
  });
});

describe("nodes with other trace APIs", () => {
  it("finds ETH from an internal call through geth's debug_traceBlockByHash when trace_block is not offered", async () => {
    proxy.unsupported.add("trace_block");
    const h = await liveHarness([ethChain(node, { rpcUrl: proxy.url })]);
    open.push(h);
    const payer = await deployPayer(node);
    const created = await livePayment(h, { amount: "0.07", currency: "ETH", chain: "ETH" });
    await payThroughContract(node, payer, created.address, "0.07");
    await node.mine(11);
    await settle(h);
    expect(await payment(h, created.id)).toMatchObject({ status: "PAID", receivedAmount: "0.07" });
    expect(proxy.seen.get("debug_traceBlockByHash")).toBeGreaterThan(0);
    expect(h.logger.lines).toEqual([]);
  });

  it("still credits plain transfers from a node with no trace API, and says once that internal calls go unseen", async () => {
    proxy.unsupported.add("trace_block");
    proxy.unsupported.add("debug_traceBlockByHash");
    const h = await liveHarness([ethChain(node, { rpcUrl: proxy.url })]);
    open.push(h);
    const payer = await deployPayer(node);
    const direct = await livePayment(h, { amount: "0.03", currency: "ETH", chain: "ETH" });
    const internal = await livePayment(h, { amount: "0.04", currency: "ETH", chain: "ETH" });
    await payNative(node, direct.address, "0.03");
    await payThroughContract(node, payer, internal.address, "0.04");
    await node.mine(11);
    await settle(h);
    expect((await payment(h, direct.id)).status).toBe("PAID");
    expect((await payment(h, internal.id)).status).toBe("PENDING");
    expect(h.logger.lines.filter((line) => line.includes("internal calls"))).toHaveLength(1);
  });
});
