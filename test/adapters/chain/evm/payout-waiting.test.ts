import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "../../../helpers";
import { get } from "../../../http/v1/support";
import { startRpcProxy, type RpcProxy } from "../rpc-proxy";
import { startAnvil, type Anvil } from "./anvil";
import { ethChain, liveHarness, livePayment, payNative, settle } from "./support";

/**
 * A payout asked for while its node is down, on a real node (anvil) behind a proxy that cuts
 * the connections: the answer is PROCESSING with why it waits (`pendingReason`), health says
 * the same, the operator reads one log line with no stack, and the payout is sent once the node
 * is back.
 */

let node: Anvil;
let proxy: RpcProxy;
const open: Harness[] = [];

beforeAll(async () => {
  node = await startAnvil();
  proxy = await startRpcProxy(node.rpcUrl);
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await node?.stop();
});
afterEach(async () => {
  proxy.refuse.clear();
  for (const h of open.splice(0)) await h.router.close();
});

/** A logger that keeps each call whole: its level, message and any details (an Error's stack would be one). */
function keepingLogger() {
  const calls: Array<{ level: string; message: string; details: unknown[] }> = [];
  const keep =
    (level: string) =>
    (message: string, ...details: unknown[]) =>
      void calls.push({ level, message, details });
  return { calls, info: keep("info"), warn: keep("warn"), error: keep("error") };
}

/** A live router on the proxied node whose merchant holds 1 ETH. */
async function funded(logger: ReturnType<typeof keepingLogger>): Promise<Harness> {
  const h = await liveHarness([ethChain(node, { rpcUrl: proxy.url, consolidation: false })], { logger });
  open.push(h);
  const paid = await livePayment(h, { amount: "1", currency: "ETH", chain: "ETH" });
  await payNative(node, paid.address, "1");
  await node.mine(12);
  await settle(h);
  return h;
}

describe("a payout while its node is down", () => {
  it("answers PROCESSING with its pendingReason, shows it in health, logs one line without a stack, and is sent once the node is back", async () => {
    const logger = keepingLogger();
    const h = await funded(logger);
    const to = node.account(45).address;
    const before = await node.public.getBalance({ address: to });
    logger.calls.length = 0;

    proxy.refuse.add("*");
    const res = await h.post("/v1/withdrawals", { currency: "ETH", chain: "ETH", amount: "0.1", address: to }, h.liveKey);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: "PROCESSING", txHash: null, pendingReason: expect.stringMatching(/^ETH node\b/) });
    const reason = res.body.pendingReason as string;
    expect(reason).not.toContain(new URL(proxy.url).host);

    // One line for the operator, naming the payout, why it waits, and that the funding check was skipped and why.
    const said = logger.calls.filter((call) => call.level !== "info");
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ level: "warn", details: [] });
    expect(said[0]!.message).toContain(`payout ${res.body.id} could not be sent yet`);
    expect(said[0]!.message).toContain(reason);
    expect(said[0]!.message).toMatch(/taken without the hot wallet's funding check \(the ETH hot wallet could not be read: ETH node\b/);

    expect((await get(h, `/v1/withdrawals/${res.body.id}`, h.liveKey)).body).toMatchObject({ status: "PROCESSING", txHash: null, pendingReason: reason });
    const health = await h.router.health();
    expect(health.chains[0]).toMatchObject({ chain: "evm:ETH", pendingPayouts: 1, payoutsNotSent: { count: 1, reasons: [reason] } });
    expect(health.reasons).toContain(`chain evm:ETH: 1 payout(s) not sent yet (${reason})`);

    proxy.refuse.clear();
    await settle(h);
    const sent = (await get(h, `/v1/withdrawals/${res.body.id}`, h.liveKey)).body;
    expect(sent).toMatchObject({ status: "PROCESSING", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), pendingReason: null });
    expect((await h.router.health()).chains[0]).toMatchObject({ payoutsNotSent: { count: 0, reasons: [] } });
    await node.mine(12);
    await settle(h);
    expect((await get(h, `/v1/withdrawals/${res.body.id}`, h.liveKey)).body).toMatchObject({ status: "COMPLETED", pendingReason: null });
    expect(await node.public.getBalance({ address: to })).toBe(before + 100_000_000_000_000_000n);
  });

  it("scrubs URLs from the reasons of a chain adapter of the host's own: never a key in pendingReason, health or the log", async () => {
    // A host's adapter (here the EVM adapter wrapped) whose errors name its endpoint, key and all.
    const secretUrl = "https://node.example/v3/SECRET-PROJECT-KEY";
    const chain = ethChain(node, { rpcUrl: proxy.url, consolidation: false });
    const leaky = new Proxy(chain, {
      get(target, prop) {
        if (prop === "sendPayout") return async () => Promise.reject(new Error(`upstream ${secretUrl} refused the transaction`));
        if (prop === "hotWalletBalances") return async () => Promise.reject(new Error(`balance read from ${secretUrl} failed`));
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const logger = keepingLogger();
    const h = await liveHarness([leaky], { logger });
    open.push(h);
    const paid = await livePayment(h, { amount: "1", currency: "ETH", chain: "ETH" });
    await payNative(node, paid.address, "1");
    await node.mine(12);
    await settle(h);

    const res = await h.post("/v1/withdrawals", { currency: "ETH", chain: "ETH", amount: "0.1", address: node.account(47).address }, h.liveKey);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: "PROCESSING", txHash: null, pendingReason: "upstream [url] refused the transaction" });
    const health = await h.router.health();
    expect(health.chains[0]).toMatchObject({ payoutsNotSent: { count: 1, reasons: ["upstream [url] refused the transaction"] } });
    await h.router.tick().catch(() => undefined); // the round retries it, and fails again
    const logged = logger.calls.map((call) => [
      call.message,
      ...call.details.map((detail) => (detail instanceof Error ? detail.stack : JSON.stringify(detail))),
    ]);
    const everything = JSON.stringify([logged, health, res.body]);
    expect(everything).not.toContain("SECRET-PROJECT-KEY");
    expect(everything).not.toContain("node.example");
  });

  it("says once, in one line, that a payout went out without the funding check when only the hot wallet's balance could not be read", async () => {
    const logger = keepingLogger();
    const h = await funded(logger);
    logger.calls.length = 0;
    proxy.refuse.add("eth_getBalance");
    const res = await h.post("/v1/withdrawals", { currency: "ETH", chain: "ETH", amount: "0.1", address: node.account(46).address }, h.liveKey);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: "PROCESSING", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), pendingReason: null });
    const said = logger.calls.filter((call) => call.level !== "info");
    expect(said).toEqual([
      {
        level: "warn",
        message: expect.stringMatching(
          new RegExp(`^payout ${res.body.id} sent without the hot wallet's funding check \\(the ETH hot wallet could not be read: ETH node: `),
        ),
        details: [],
      },
    ]);
  });
});
