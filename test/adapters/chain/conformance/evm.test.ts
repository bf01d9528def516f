import { erc20Abi, type Address } from "viem";
import { afterAll, beforeAll } from "vitest";
import { DEFAULT_CURRENCIES, type CurrencyConfig } from "../../../../src/currencies";
import { evmChain } from "../../../../src/evm";
import { runChainAdapterTests, type ChainTestPair } from "../../../../src/testing/index";
import { testTokenAbi } from "../../../fixtures/contracts/artifacts";
import { startAnvil, type Anvil } from "../evm/anvil";
import { deployToken, HOT, mine, PAYER } from "../evm/support";

/**
 * evmChain on a real node: one anvil for the whole file (every test gets a new adapter and a
 * fresh host storage; the suite's invoice and payout ids never repeat, so tests share the chain).
 * Transactions are mined as sent, so a payment has 1 confirmation when `pay` resolves.
 */

const USDT_DECIMALS = 6;
/** ETH and USDT final after 3 blocks instead of 12: the confirmation tests stay short. */
const MIN_CONFIRM = 3;
const currencies: CurrencyConfig[] = DEFAULT_CURRENCIES.map((currency) => ({
  ...currency,
  networks: currency.networks.map((network) => (network.network === "ETH" ? { ...network, minConfirm: MIN_CONFIRM } : network)),
}));

let node: Anvil;
let usdt: Address;

beforeAll(async () => {
  node = await startAnvil();
  usdt = await deployToken(node, "USDT", USDT_DECIMALS);
  // Token payouts come out of the hot wallet (dev account 9 already holds 10000 ETH for gas).
  await mine(
    node,
    node.wallet.writeContract({
      address: usdt,
      abi: testTokenAbi,
      functionName: "mint",
      args: [node.account(HOT).address, 1_000_000n * 10n ** 6n],
      account: node.account(0),
      chain: null,
    }),
  );
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

/** Ledger units are chain units here (ETH 18 decimals, USDT 6 in both). */
function pay(pair: ChainTestPair, to: string, amount: bigint): Promise<string> {
  const account = node.account(PAYER);
  if (pair.coin === "ETH") return mine(node, node.wallet.sendTransaction({ account, to: to as Address, value: amount, chain: null }));
  return mine(
    node,
    node.wallet.writeContract({ address: usdt, abi: testTokenAbi, functionName: "transfer", args: [to as Address, amount], account, chain: null }),
  );
}

async function balanceOf(pair: ChainTestPair, address: string): Promise<bigint> {
  if (pair.coin === "ETH") return node.public.getBalance({ address: address as Address });
  return node.public.readContract({ address: usdt, abi: erc20Abi, functionName: "balanceOf", args: [address as Address] });
}

/** Two coins on one network: the stray-coin tests run too. */
const PAIRS: ChainTestPair[] = [
  { coin: "ETH", network: "ETH" },
  { coin: "USDT", network: "ETH" },
];

runChainAdapterTests({
  name: "evmChain",
  pairs: PAIRS,
  createSubject: () => ({
    adapter: evmChain({ network: "ETH", rpcUrl: node.rpcUrl, hotWallet: node.privateKey(HOT), tokens: { USDT: { address: usdt, decimals: USDT_DECIMALS } } }),
    pairs: PAIRS,
    currencies,
    validAddresses: {
      ETH: ["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", "0xdbf03b407c01e7cd3cbea99509d93f8dddc8c6fb"],
    },
    invalidAddresses: {
      ETH: [
        "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", // checksum typo
        "0x0000000000000000000000000000000000000000", // burn address
        "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA", // 19 bytes
        "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", // no 0x
        "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7", // TRON
        "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", // Bitcoin
      ],
    },
    pay: async (pair, address, amount) => ({ txHash: await pay(pair, address, amount) }),
    confirm: (blocks) => node.mine(blocks),
    mark: async () => ({ id: await node.test.snapshot(), height: await node.public.getBlockNumber() }),
    async dropSince(mark) {
      const { id, height } = mark as { id: `0x${string}`; height: bigint };
      const head = await node.public.getBlockNumber();
      // Back to the mark (anvil forgets the reverted blocks' transactions), then a branch one
      // block longer than the one it replaces: what a node sees in a reorg.
      await node.test.revert({ id });
      await node.mine(Number(head - height) + 1);
    },
    balanceOf,
  }),
});
