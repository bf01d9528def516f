import { getAddress, parseUnits, type Address } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { evmChain } from "../../../../src/evm";
import { DEFAULT_CURRENCIES } from "../../../../src/chains";
import type { CurrencyConfig } from "../../../../src/index";
import { testTokenAbi } from "../../../fixtures/contracts/artifacts";
import type { Harness } from "../../../helpers";
import { startAnvil, type Anvil } from "./anvil";
import { deployToken, HOT, liveHarness, livePayment, mintToken, payment, payNative, payToken, settle } from "./support";

/**
 * The rollups of the default currency list (Base, Polygon PoS, Arbitrum One, OP Mainnet), each
 * on a real anvil started with the network's own chain id: `evmChain({ network })` with no
 * `tokens` and no `chainId` serves the native coin and USDC at the contract the currency list
 * names (here a test ERC-20 of 6 decimals put in the list in place of Circle's), and refuses a
 * node on another chain.
 */

const NETWORKS = [
  { network: "BASE", chainId: 8453, native: "ETH" },
  { network: "POLYGON", chainId: 137, native: "POL" },
  { network: "ARBITRUM", chainId: 42161, native: "ETH" },
  { network: "OPTIMISM", chainId: 10, native: "ETH" },
] as const;

const nodes = new Map<string, Anvil>();
const usdc = new Map<string, Address>();
const open: Harness[] = [];

beforeAll(async () => {
  const started = await Promise.all(NETWORKS.map((entry) => startAnvil({ chainId: entry.chainId })));
  for (const [i, entry] of NETWORKS.entries()) nodes.set(entry.network, started[i] as Anvil);
  const tokens = await Promise.all(NETWORKS.map((entry) => deployToken(nodes.get(entry.network) as Anvil, "USDC", 6)));
  for (const [i, entry] of NETWORKS.entries()) usdc.set(entry.network, tokens[i] as Address);
}, 90_000);
afterAll(async () => {
  await Promise.all([...nodes.values()].map((node) => node.stop()));
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.router.close();
});

/** The default list with USDC on `network` at the test token deployed there. */
function listWithTestUsdc(network: string, contract: Address): CurrencyConfig[] {
  return DEFAULT_CURRENCIES.map((currency) =>
    currency.symbol !== "USDC"
      ? currency
      : { ...currency, networks: currency.networks.map((entry) => (entry.network === network ? { ...entry, tokenContract: contract } : entry)) },
  );
}

/** The list's confirmations for `coin` on `network`. */
function minConfirm(coin: string, network: string): number {
  const entry = DEFAULT_CURRENCIES.find((currency) => currency.symbol === coin)?.networks.find((candidate) => candidate.network === network);
  if (!entry) throw new Error(`${coin} on ${network} is not in the default list`);
  return entry.minConfirm;
}

describe("Circle's USDC contracts in the default currency list", () => {
  it("are the EIP-55 checksummed addresses, with 6 decimals and the network's chain id", () => {
    const listed = DEFAULT_CURRENCIES.find((currency) => currency.symbol === "USDC");
    expect(listed?.decimals).toBe(6);
    const expected: Record<string, [number, string]> = {
      BASE: [8453, "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"],
      POLYGON: [137, "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359"],
      ARBITRUM: [42161, "0xaf88d065e77c8cC2239327C5EDb3A432268e5831"],
      OPTIMISM: [10, "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85"],
    };
    expect(listed?.networks.map((entry) => entry.network)).toEqual(Object.keys(expected));
    for (const entry of listed?.networks ?? []) {
      const [chainId, contract] = expected[entry.network] as [number, string];
      expect(entry.chainId).toBe(chainId);
      expect(entry.tokenContract).toBe(contract);
      // getAddress checks the format and returns the EIP-55 form: a wrong checksum would differ.
      expect(getAddress((entry.tokenContract as string).toLowerCase())).toBe(entry.tokenContract);
    }
  });

  it("has each rollup's native coin with no token contract: ETH on Base, Arbitrum and OP Mainnet, POL on Polygon", () => {
    for (const { network, chainId, native } of NETWORKS) {
      const entry = DEFAULT_CURRENCIES.find((currency) => currency.symbol === native)?.networks.find((candidate) => candidate.network === network);
      expect(entry, `${native} on ${network}`).toMatchObject({ chainId });
      expect(entry?.tokenContract).toBeUndefined();
    }
    expect(DEFAULT_CURRENCIES.find((currency) => currency.symbol === "POL")?.decimals).toBe(18);
  });
});

describe.each(NETWORKS)("evmChain({ network: $network }) with no tokens option", ({ network, chainId, native }) => {
  const harness = async () => {
    const node = nodes.get(network) as Anvil;
    const token = usdc.get(network) as Address;
    const h = await liveHarness([evmChain({ network, rpcUrl: node.rpcUrl, hotWallet: node.privateKey(HOT) })], {
      currencies: listWithTestUsdc(network, token),
    });
    open.push(h);
    return { h, node, token };
  };

  it(`credits ${native} and USDC exactly, lists them, and pays a USDC and a ${native} payout`, async () => {
    const { h, node, token } = await harness();
    await h.router.ready();
    const currencies = await h.post("/api/v1/currencies", undefined, h.liveKey);
    const served = (currencies.body as Array<{ symbol: string; networks: Array<{ network: string; minConfirm: number }> }>).flatMap((currency) =>
      currency.networks.map((entry) => `${currency.symbol}/${entry.network}/${entry.minConfirm}`),
    );
    expect(served.sort()).toEqual([`${native}/${network}/${minConfirm(native, network)}`, `USDC/${network}/${minConfirm("USDC", network)}`].sort());

    const coin = await livePayment(h, { amount: "3", currency: native, chain: network });
    const stable = await livePayment(h, { amount: "40.5", currency: "USDC", chain: network });
    await payNative(node, coin.address, "3");
    await payToken(node, token, 6, stable.address, "40.5");
    await node.mine(Math.max(minConfirm(native, network), minConfirm("USDC", network)));
    await settle(h);
    expect(await payment(h, coin.id)).toMatchObject({ status: "PAID", receivedAmount: "3" });
    expect(await payment(h, stable.id)).toMatchObject({ status: "PAID", receivedAmount: "40.5" });

    // The hot wallet holds a float of each coin to pay out from before any sweep.
    await mintToken(node, token, node.account(HOT).address, "100", 6);
    const to = node.account(31).address;
    const before = await node.public.getBalance({ address: to });
    const paidUsdc = await h.post("/v1/withdrawals", { currency: "USDC", chain: network, amount: "10.5", address: to }, h.liveKey);
    expect(paidUsdc.status, paidUsdc.text).toBe(200);
    const paidNative = await h.post("/v1/withdrawals", { currency: native, chain: network, amount: "1.5", address: to }, h.liveKey);
    expect(paidNative.status, paidNative.text).toBe(200);
    for (let i = 0; i < 2; i++) {
      await settle(h);
      await node.mine(minConfirm("USDC", network));
    }
    await settle(h);
    for (const id of [paidUsdc.body.id, paidNative.body.id]) {
      expect((await h.post("/api/v1/merchants/payout/fetch", { payoutId: id }, h.liveKey)).body.status).toBe("COMPLETED");
    }
    expect(await node.public.readContract({ address: token, abi: testTokenAbi, functionName: "balanceOf", args: [to] })).toBe(parseUnits("10.5", 6));
    expect((await node.public.getBalance({ address: to })) - before).toBe(parseUnits("1.5", 18));
  });

  it(`refuses a node on another chain in ready(), naming ${chainId} and the node's`, async () => {
    const other = NETWORKS.find((entry) => entry.network !== network) as (typeof NETWORKS)[number];
    const node = nodes.get(other.network) as Anvil;
    const h = await liveHarness([evmChain({ network, rpcUrl: node.rpcUrl, hotWallet: node.privateKey(HOT) })]);
    open.push(h);
    await expect(h.router.ready()).rejects.toThrow(
      new RegExp(`^${network} node is on chain ${other.chainId}, but chainId ${chainId} is the currency list's for ${network}$`),
    );
    // The chain is never scanned: its coins are out of service.
    const refused = await h.post("/v1/payments", { amount: "5", currency: "USDC", chain: network }, h.liveKey);
    expect(refused.status).toBe(503);
    expect(refused.body.error).toBe(50301);
  });
});
