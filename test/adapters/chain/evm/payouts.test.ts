import { PGlite } from "@electric-sql/pglite";
import { getAddress, parseEther, parseUnits, type Address } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { postgresStorage } from "../../../../src/postgres";
import { DATABASE_URL, dropSchema, uniqueSchema } from "../../storage/sql-fixtures";
import { revertingReceiverAbi, revertingReceiverBytecode, testTokenAbi } from "../../../fixtures/contracts/artifacts";
import type { Harness } from "../../../helpers";
import { balances, expectError, get } from "../../../http/v1/support";
import { startAnvil, type Anvil } from "./anvil";
import { startRpcProxy } from "../rpc-proxy";
import { deploy, deployToken, ethChain, HOT, liveHarness, livePayment, mine, payment, payNative, payToken, restart, settle, mintToken } from "./support";
import { describeIf, NO_DATABASE_URL } from "../../../support/skips";

/**
 * Live payouts (withdrawals) on a real node through the public HTTP API: one nonce queue per hot
 * wallet, sign -> store -> broadcast, completion after confirmations, refunds on revert; and
 * destinations that cannot receive (token contracts) refused before anything is debited.
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
  // The hot wallet pays token payouts from its own float.
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

const tokens = () => ({ USDT: { address: usdt, decimals: 6 } });

async function harness(options: { rpcUrl?: string; schema?: string; withUsdc?: boolean } = {}): Promise<Harness> {
  const storage = postgresStorage({ pglite, schema: options.schema ?? `payouts_${++schemas}` });
  const served = options.withUsdc ? { ...tokens(), USDC: { address: usdc, decimals: 6 } } : tokens();
  const h = await liveHarness([ethChain(node, { tokens: served, ...(options.rpcUrl ? { rpcUrl: options.rpcUrl } : {}) })], { storage });
  open.push(h);
  return h;
}

/** Credits the merchant's live balance by paying an invoice of `amount` in `coin` on chain. */
async function fund(h: Harness, coin: "ETH" | "USDT", amount: string): Promise<void> {
  const created = await livePayment(h, { amount, currency: coin, chain: "ETH" });
  if (coin === "ETH") await payNative(node, created.address, amount);
  else await payToken(node, usdt, 6, created.address, amount);
  await node.mine(12);
  await settle(h);
  expect((await payment(h, created.id)).status).toBe("PAID");
}

async function withdraw(h: Harness, body: Record<string, unknown>) {
  const res = await h.post("/v1/withdrawals", { chain: "ETH", ...body }, h.liveKey);
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; status: string; txHash: string | null };
}

async function withdrawal(h: Harness, id: string) {
  const res = await get(h, `/v1/withdrawals/${id}`, h.liveKey);
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; status: string; txHash: string | null; failureReason?: string | null };
}

describe("payouts from the hot wallet", () => {
  it("sends 20 payouts in parallel with distinct nonces; all complete after the confirmations", async () => {
    const h = await harness();
    await fund(h, "ETH", "5");
    const destinations = Array.from({ length: 20 }, (_, i) => node.account(20 + i).address);
    const before = await Promise.all(destinations.map((address) => node.public.getBalance({ address })));
    const sent = await Promise.all(destinations.map((address, i) => withdraw(h, { currency: "ETH", amount: `0.01${String(i).padStart(2, "0")}`, address })));
    for (const payout of sent) expect(payout.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const nonces = await Promise.all(sent.map(async (payout) => (await node.public.getTransaction({ hash: payout.txHash as `0x${string}` })).nonce));
    expect(new Set(nonces).size).toBe(20);

    await node.mine(12);
    await settle(h);
    for (const payout of sent) expect((await withdrawal(h, payout.id)).status).toBe("COMPLETED");
    const after = await Promise.all(destinations.map((address) => node.public.getBalance({ address })));
    for (const [i, balance] of after.entries()) expect(balance - before[i]!).toBe(parseEther(`0.01${String(i).padStart(2, "0")}`));
  });

  it("pays a USDT payout from the hot wallet's token float", async () => {
    const h = await harness();
    await fund(h, "USDT", "100");
    const to = node.account(41).address;
    const payout = await withdraw(h, { currency: "USDT", amount: "20", address: to });
    await settle(h);
    expect((await withdrawal(h, payout.id)).status).toBe("PROCESSING"); // 1 confirmation of 12
    await node.mine(10);
    await settle(h);
    expect((await withdrawal(h, payout.id)).status).toBe("PROCESSING");
    await node.mine(1);
    await settle(h);
    expect((await withdrawal(h, payout.id)).status).toBe("COMPLETED");
    expect(await node.public.readContract({ address: usdt, abi: testTokenAbi, functionName: "balanceOf", args: [to] })).toBe(parseUnits("20", 6));
  });

  it("fails a payout that reverts on chain and returns the whole debit to the balance", async () => {
    const h = await harness();
    await fund(h, "ETH", "1");
    const before = (await balances(h, h.liveKey)).ETH!.available;
    const reverting = await deploy(node, revertingReceiverAbi, revertingReceiverBytecode);
    const payout = await withdraw(h, { currency: "ETH", amount: "0.1", address: reverting });
    expect((await balances(h, h.liveKey)).ETH!.available).not.toBe(before);
    const receipt = await node.public.getTransactionReceipt({ hash: payout.txHash as `0x${string}` });
    expect(receipt.status).toBe("reverted");
    await node.mine(12);
    await settle(h);
    const failed = await withdrawal(h, payout.id);
    expect(failed.status).toBe("FAILED");
    expect((await balances(h, h.liveKey)).ETH!.available).toBe(before);
  });

  it("fails a token payout the token refuses (a blocked destination) and refunds it", async () => {
    const h = await harness();
    await fund(h, "USDT", "50");
    const blocked = node.account(42).address;
    await mine(
      node,
      node.wallet.writeContract({ address: usdt, abi: testTokenAbi, functionName: "setBlocked", args: [blocked, true], account: node.account(0), chain: null }),
    );
    const payout = await withdraw(h, { currency: "USDT", amount: "10", address: blocked });
    await node.mine(12);
    await settle(h);
    expect((await withdrawal(h, payout.id)).status).toBe("FAILED");
    expect((await balances(h, h.liveKey)).USDT!.available).toBe("49.75");
  });

  it("does not pay twice when the process dies between signing and broadcasting", async () => {
    const proxy = await startRpcProxy(node.rpcUrl);
    const schema = `payouts_crash_${++schemas}`;
    const first = await harness({ rpcUrl: proxy.url, schema });
    await fund(first, "ETH", "1");
    const to = node.account(43).address;
    const start = await node.public.getBalance({ address: to });
    const hotNonce = await node.public.getTransactionCount({ address: node.account(HOT).address });

    // The node goes away exactly when the signed payout is sent.
    proxy.refuse.add("eth_sendRawTransaction");
    const payout = await withdraw(first, { currency: "ETH", amount: "0.2", address: to });
    expect(payout.status).toBe("PROCESSING");
    expect(payout.txHash).toBeNull();
    expect(proxy.seen.get("eth_sendRawTransaction")).toBeGreaterThan(0);
    expect(await node.public.getTransactionCount({ address: node.account(HOT).address })).toBe(hotNonce);
    await first.router.close();
    open.splice(open.indexOf(first), 1);
    await proxy.close();

    // Restarted on the same database, straight to the node: the stored transaction goes out.
    const second = await restart(first, [ethChain(node, { tokens: tokens() })], postgresStorage({ pglite, schema }));
    open.push(second);
    await settle(second);
    await node.mine(12);
    await settle(second);
    const done = await withdrawal(second, payout.id);
    expect(done.status).toBe("COMPLETED");
    expect(await node.public.getBalance({ address: to })).toBe(start + parseEther("0.2"));
    expect(await node.public.getTransactionCount({ address: node.account(HOT).address })).toBe(hotNonce + 1);
    await settle(second);
    expect(await node.public.getBalance({ address: to })).toBe(start + parseEther("0.2"));
  });
});

/**
 * A token contract is a well-formed address that cannot receive: what is sent to it is lost.
 * With a test USDT and a test USDC served, a withdrawal, an /api/v1 payout and a refund to
 * either contract (in either coin, in either letter case) are refused with 400
 * `token_contract_destination` (40006) naming the token, and nothing is debited, stored or sent.
 */
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
    const h = await harness({ withUsdc: true });
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
    const h = await harness({ withUsdc: true });
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

// Two app instances on one PostgreSQL server (CI sets DATABASE_URL): their payouts share one
// hot wallet, so the nonce queue has to hold across processes' connections, not just in memory.
describeIf(DATABASE_URL, NO_DATABASE_URL)("payouts from two instances on one PostgreSQL server", () => {
  const schema = uniqueSchema("evm_payouts");
  // After the test's afterEach has closed both instances.
  afterAll(() => dropSchema(schema));

  it("gives 2 x 10 parallel payouts from one hot wallet distinct nonces, all completed", async () => {
    const serverStorage = () => postgresStorage({ connectionString: DATABASE_URL!, schema });
    const first = await liveHarness([ethChain(node, { tokens: tokens() })], { storage: serverStorage() });
    open.push(first);
    const second = await restart(first, [ethChain(node, { tokens: tokens() })], serverStorage());
    open.push(second);
    await fund(first, "ETH", "2");
    const destinations = Array.from({ length: 20 }, (_, i) => node.account(60 + i).address);
    const sent = await Promise.all(destinations.map((address, i) => withdraw(i % 2 === 0 ? first : second, { currency: "ETH", amount: "0.01", address })));
    const nonces = await Promise.all(sent.map(async (payout) => (await node.public.getTransaction({ hash: payout.txHash as `0x${string}` })).nonce));
    expect(new Set(nonces).size).toBe(20);
    await node.mine(12);
    await Promise.all([settle(first), settle(second)]);
    for (const payout of sent) expect((await withdrawal(first, payout.id)).status).toBe("COMPLETED");
    expect((await balances(first, first.liveKey)).ETH?.available).toBe("1.77"); // 2 x 0.995 - 20 x (0.01 + 0.001 fee)
  });
});
