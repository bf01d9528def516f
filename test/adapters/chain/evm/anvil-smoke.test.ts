import { afterAll, beforeAll, expect, it } from "vitest";
import { parseEther } from "viem";
import { startAnvil, type Anvil } from "./anvil";
import { mine } from "./support";

let node: Anvil;
beforeAll(async () => {
  node = await startAnvil();
});
afterAll(async () => {
  await node.stop();
});

it("starts anvil, sends, mines", async () => {
  const to = node.account(5).address;
  const before = await node.public.getBalance({ address: to });
  // Automine answers with the hash, and the block may land a moment later: wait for its receipt.
  await mine(node, node.wallet.sendTransaction({ account: node.account(0), to, value: parseEther("1"), chain: null }));
  expect(await node.public.getBalance({ address: to })).toBe(before + parseEther("1"));
  const height = await node.public.getBlockNumber();
  await node.mine(3);
  expect(await node.public.getBlockNumber()).toBe(height + 3n);
  expect(node.privateKey(0)).toBe("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
});
