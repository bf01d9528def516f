import { afterAll, beforeAll, expect, it } from "vitest";
import { LitecoindRpcError, startLitecoind, type Litecoind } from "./litecoind";

let node: Litecoind;
beforeAll(async () => {
  node = await startLitecoind();
  await node.fund();
}, 60_000);
afterAll(async () => {
  await node?.stop();
}, 60_000);

it("runs a regtest chain with a funded payer", async () => {
  expect((await node.call<{ chain: string }>("getblockchaininfo")).chain).toBe("regtest");
  expect(await node.height()).toBe(101);
  expect(await node.wallet<number>("getbalance")).toBeGreaterThan(0);
  expect(await node.newAddress()).toMatch(/^rltc1/);
});

it("pays into the mempool, confirms by mining, and unconfirms on invalidateblock", async () => {
  const to = await node.newAddress();
  const txid = await node.pay(to, "0.1");
  expect(await node.mempool()).toContain(txid);

  const [hash] = await node.mine(1);
  expect(await node.mempool()).not.toContain(txid);
  const block = await node.call<{ tx: string[]; height: number }>("getblock", hash, 1);
  expect(block.tx).toContain(txid);
  expect(await node.blockHash(block.height)).toBe(hash);
  expect((await node.wallet<{ confirmations: number }>("gettransaction", txid)).confirmations).toBe(1);
  expect(await node.rawTransaction(txid, hash)).toBe(await node.rawTransaction(txid));

  await node.invalidate(hash!);
  expect(await node.height()).toBe(block.height - 1);
  expect(await node.mempool()).toContain(txid);

  // Mining again (to a fresh address) confirms it in a new block at the same height.
  const [again] = await node.mine(1);
  expect(again).not.toBe(hash);
  expect(await node.mempool()).not.toContain(txid);
  await node.reconsider(hash!);
});

it("double-spends an unconfirmed payment: the original leaves the mempool and its conflict is mined", async () => {
  const txid = await node.pay(await node.newAddress(), "0.25");
  expect(await node.mempool()).toContain(txid);

  // The wallet does not signal RBF: the node refuses the conflict while the original waits.
  const conflict = await node.conflictingTransaction(txid);
  const refused = await node.call("sendrawtransaction", conflict.hex).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(LitecoindRpcError);
  expect((refused as LitecoindRpcError).code).toBe(-26);

  const { txid: winner, blockHash } = await node.doubleSpend(txid);
  expect(await node.mempool()).not.toContain(txid);
  const block = await node.call<{ tx: string[] }>("getblock", blockHash, 1);
  expect(block.tx).toContain(winner);
  expect(block.tx).not.toContain(txid);
  expect(await node.call<string>("getbestblockhash")).toBe(blockHash);
  // A wallet transaction beaten by a mined conflict shows negative confirmations.
  expect((await node.wallet<{ confirmations: number }>("gettransaction", txid)).confirmations).toBe(-1);
});

it("runs every node on its own ports and datadir", async () => {
  const other = await startLitecoind();
  try {
    expect(other.rpcUrl).not.toBe(node.rpcUrl);
    expect(await other.height()).toBe(0);
  } finally {
    await other.stop();
  }
}, 60_000);
