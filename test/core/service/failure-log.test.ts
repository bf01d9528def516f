import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "../../helpers";
import { ltcChain, ltcPayment, newAccount, payment } from "../../adapters/chain/bitcoin/support";
import { ethChain, liveHarness, settle } from "../../adapters/chain/evm/support";
import { startAnvil, type Anvil } from "../../adapters/chain/evm/anvil";
import { startLitecoind, type Litecoind } from "../../adapters/chain/bitcoin/litecoind";
import { startRpcProxy, type RpcProxy } from "../../adapters/chain/rpc-proxy";
import { keepingLogger, type LoggedCall } from "./keeping-logger";

/**
 * A node that stays down fails every background round. The operator's log (the `logger`
 * option) gets the failure with its stack once, then one line per round at most, and one line
 * when the node is back; never the node's URL or credentials, never a key.
 */

let litecoind: Litecoind;
let anvil: Anvil;
let proxy: RpcProxy;
const open: Harness[] = [];

/** Every method the Bitcoin adapter asks: refusing them all is a node that went away. */
const NODE_METHODS = [
  "getblockchaininfo",
  "getblockcount",
  "getblockhash",
  "getblock",
  "getrawmempool",
  "getrawtransaction",
  "getmempoolentry",
  "gettxout",
  "estimatesmartfee",
  "sendrawtransaction",
];

beforeAll(async () => {
  [litecoind, anvil] = await Promise.all([startLitecoind(), startAnvil()]);
  await litecoind.fund();
  proxy = await startRpcProxy(litecoind.rpcUrl);
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await Promise.all([litecoind?.stop(), anvil?.stop()]);
});
afterEach(async () => {
  proxy.refuse.clear();
  for (const h of open.splice(0)) await h.router.close();
});

/** Everything a logger was given, as text: messages, and the stacks and messages of errors. */
function allText(calls: LoggedCall[]): string {
  const describe = (detail: unknown): string =>
    detail instanceof Error
      ? `${detail.stack} ${detail.message} ${(detail as AggregateError).errors?.map(describe).join(" ") ?? ""} ${describe((detail as { cause?: unknown }).cause)}`
      : String(detail);
  return calls.map((call) => `${call.message} ${call.details.map(describe).join(" ")}`).join("\n");
}

describe("a node that stays down", () => {
  it("is logged with its stack once, then one line a round, then one line when it is back", async () => {
    const url = new URL(proxy.url);
    url.username = litecoind.rpcUser;
    url.password = litecoind.rpcPassword;
    const logger = keepingLogger();
    const account = newAccount();
    const eth = ethChain(anvil);
    const h = await liveHarness([ltcChain(litecoind, account, { rpcUrl: url.toString() }), eth], { logger });
    open.push(h);
    await h.router.ready();
    const created = await ltcPayment(h, "0.3");
    await settle(h);
    expect(logger.calls).toEqual([]);

    for (const method of NODE_METHODS) proxy.refuse.add(method);
    await litecoind.pay(created.address, "0.3");
    await litecoind.mine(6);
    const rounds = 4;
    for (let round = 0; round < rounds; round++) await expect(h.router.tick()).rejects.toThrow(AggregateError);

    // The first round: one error, with the node's error and its stack.
    const errors = logger.calls.filter((call) => call.level === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/^live chain bitcoin:LTC failed; .*LTC node/);
    const first = errors[0]!.details[0] as Error;
    expect(first).toBeInstanceOf(Error);
    expect(first.stack).toMatch(/\n\s+at /);
    // Each later round: one line, no details.
    const repeats = logger.calls.filter((call) => call.level === "warn");
    expect(repeats).toHaveLength(rounds - 1);
    for (const [i, call] of repeats.entries()) {
      expect(call.message).toMatch(new RegExp(`^live chain bitcoin:LTC still failing \\(${i + 2} rounds in a row\\): LTC node`));
      expect(call.message).not.toContain("\n");
      expect(call.details).toEqual([]);
    }
    // Nothing of the other chain, the sandbox, expiry: they did not fail.
    expect(logger.calls.every((call) => call.message.startsWith("live chain bitcoin:LTC"))).toBe(true);

    // Back: one line, and the payment made meanwhile is found.
    proxy.refuse.clear();
    await settle(h);
    expect(logger.calls.slice(rounds)).toEqual([{ level: "warn", message: `live chain bitcoin:LTC recovered after ${rounds} failed rounds`, details: [] }]);
    expect((await payment(h, created.id)).status).toBe("PAID");
    await h.router.tick();
    expect(logger.calls).toHaveLength(rounds + 1);

    const text = allText(logger.calls);
    for (const secret of [litecoind.rpcPassword, url.toString(), proxy.url, account.xprv.slice(4, 40), anvil.privateKey(9).slice(2)])
      expect(text).not.toContain(secret);
  });
});
