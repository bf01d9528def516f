import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "../../helpers";
import { balances, get } from "../../http/v1/support";
import { startAnvil, type Anvil } from "../../adapters/chain/evm/anvil";
import { ltcChain, ltcPayment, newAccount, payment as ltcInvoice } from "../../adapters/chain/bitcoin/support";
import { ethChain, liveHarness, livePayment, payment, payNative, settle } from "../../adapters/chain/evm/support";
import { startLitecoind, type Litecoind } from "../../adapters/chain/bitcoin/litecoind";
import { startRpcProxy, type RpcProxy } from "../../adapters/chain/rpc-proxy";

/**
 * Each chain runs on its own schedule: with anvil frozen (SIGSTOP, every request hangs), the
 * Litecoin chain keeps its rounds and a payment goes PAID, test mode answers, and invoices
 * expire, while the frozen chain is stuck in the one round it started. Asserted by counting the
 * requests each node receives (rounds), never by timing.
 */

let anvil: Anvil;
let litecoind: Litecoind;
let ethProxy: RpcProxy;
let ltcProxy: RpcProxy;
const open: Harness[] = [];

beforeAll(async () => {
  [anvil, litecoind] = await Promise.all([startAnvil(), startLitecoind()]);
  await litecoind.fund();
  ethProxy = await startRpcProxy(anvil.rpcUrl);
  ltcProxy = await startRpcProxy(litecoind.rpcUrl);
}, 120_000);
afterAll(async () => {
  anvil?.resume();
  await ethProxy?.close();
  await ltcProxy?.close();
  await Promise.all([anvil?.stop(), litecoind?.stop()]);
});
afterEach(async () => {
  anvil.resume(); // Before closing: close() waits for the round in progress.
  for (const h of open.splice(0)) await h.router.close();
});

/** The LTC node's URL through its proxy, with the node's credentials. */
function ltcProxyUrl(): string {
  const url = new URL(ltcProxy.url);
  url.username = litecoind.rpcUser;
  url.password = litecoind.rpcPassword;
  return url.toString();
}

/** Requests a proxy has passed on (or is holding), all methods together. */
function requests(proxy: RpcProxy, method?: string): number {
  if (method) return proxy.seen.get(method) ?? 0;
  return [...proxy.seen.values()].reduce((sum, count) => sum + count, 0);
}

/** Reads `read` until `done` says yes; gives up after `attempts` reads (the test then fails). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, attempts = 600): Promise<T> {
  let value = await read();
  for (let i = 0; i < attempts && !done(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

describe("one hung node", () => {
  it("delays only its own chain: a Litecoin payment goes PAID, test mode and expiry go on, while anvil is frozen", async () => {
    // The frozen node's requests hang for its whole timeout: the ETH schedule stays in one round.
    const eth = ethChain(anvil, { rpcUrl: ethProxy.url, timeoutMs: 300_000 });
    const ltc = ltcChain(litecoind, newAccount(), { rpcUrl: ltcProxyUrl() });
    const h = await liveHarness([eth, ltc], { backgroundIntervalMs: 20 });
    open.push(h);
    await h.router.ready();
    const expiring = await livePayment(h, { amount: "0.1", currency: "ETH", chain: "ETH", lifeTime: 10 });
    const ltcPaid = await ltcPayment(h, "0.5");
    // Both schedules have run since the start.
    await until(
      async () => requests(ethProxy, "eth_blockNumber"),
      (count) => count > 0,
    );

    anvil.pause();
    // The ETH schedule's next request reaches the proxy and hangs there: from then on it is stuck.
    const beforeHang = requests(ethProxy);
    expect(
      await until(
        async () => requests(ethProxy),
        (count) => count > beforeHang,
      ),
    ).toBeGreaterThan(beforeHang);
    const ltcPollsAtFreeze = requests(ltcProxy, "getblockcount");

    // Litecoin: paid and confirmed within its own rounds.
    await litecoind.pay(ltcPaid.address, "0.5");
    await litecoind.mine(6);
    const paid = await until(
      () => ltcInvoice(h, ltcPaid.id),
      (invoice) => invoice.status === "PAID",
    );
    expect(paid.status).toBe("PAID");
    expect((await balances(h, h.liveKey)).LTC?.available).toBe("0.4975");
    // The LTC chain goes on with its rounds (three more at least), while the ETH schedule is
    // still in the round it started: no new round, so no more than a round's first requests.
    expect(
      await until(
        async () => requests(ltcProxy, "getblockcount"),
        (count) => count >= ltcPollsAtFreeze + 3,
      ),
    ).toBeGreaterThanOrEqual(ltcPollsAtFreeze + 3);
    const hung = requests(ethProxy);
    expect(hung - beforeHang).toBeLessThanOrEqual(3);

    // Expiry does not wait for the frozen chain, even for that chain's own invoice.
    h.clock.advanceMinutes(11);
    expect(
      (
        await until(
          () => payment(h, expiring.id),
          (invoice) => invoice.status === "EXPIRED",
        )
      ).status,
    ).toBe("EXPIRED");

    // Test mode: the sandbox endpoints answer with their effect, and a test-mode tick returns.
    const test = await h.post("/v1/payments", { amount: "10", currency: "USDT", chain: "TRX" }, h.testKey);
    expect(test.status, test.text).toBe(200);
    const deposit = await h.post(
      "/api/v1/sandbox/deposit/create",
      { address: test.body.address, amount: Number(test.body.payAmount), confirmations: 19 },
      h.testKey,
    );
    expect(deposit.status, deposit.text).toBe(200);
    expect((await get(h, `/v1/payments/${test.body.id}`, h.testKey)).body.status).toBe("PAID");
    const report = await h.router.tick({ mode: "test" });
    expect(report).toMatchObject({ depositsApplied: 0 });
    expect(requests(ethProxy)).toBe(hung);

    // Back: the ETH chain answers the request it held and carries on; a payment made now is PAID.
    anvil.resume();
    const late = await livePayment(h, { amount: "0.02", currency: "ETH", chain: "ETH" });
    await payNative(anvil, late.address, "0.02");
    await anvil.mine(12);
    expect(
      (
        await until(
          () => payment(h, late.id),
          (invoice) => invoice.status === "PAID",
        )
      ).status,
    ).toBe("PAID");
    await settle(h);
  });
});
