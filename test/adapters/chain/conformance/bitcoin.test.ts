import { afterAll, beforeAll } from "vitest";
import { createBitcoinRpc } from "../../../../src/adapters/chain/bitcoin/rpc";
import { DEFAULT_CURRENCIES, type CurrencyConfig } from "../../../../src/currencies";
import { formatDecimal, parseDecimal } from "../../../../src/money";
import { runChainAdapterTests, type ChainTestPair } from "../../../../src/testing/index";
import { ltcChain, newAccount } from "../bitcoin/support";
import { startLitecoind, type Litecoind } from "../bitcoin/litecoind";

/**
 * bitcoinChain on a real Litecoin Core node (regtest): one node for the file, a new account and
 * adapter per test. Its hot wallet pays out of what its own addresses received, so the suite
 * funds it through deposits first (payoutsSpendDeposits). A reorg that drops a transfer is an
 * invalidated block whose transaction a conflicting one then replaces: on a real node an
 * orphaned transaction goes back to the mempool, and only a conflict takes it off for good.
 */

/** LTC final after 3 blocks instead of 6: the confirmation tests stay short. */
const MIN_CONFIRM = 3;
const currencies: CurrencyConfig[] = DEFAULT_CURRENCIES.map((currency) => ({
  ...currency,
  networks: currency.networks.map((network) => (network.network === "LTC" ? { ...network, minConfirm: MIN_CONFIRM } : network)),
}));

let node: Litecoind;
let destinations: string[] = [];

beforeAll(async () => {
  node = await startLitecoind();
  await node.fund();
  await node.mine(100); // coins for many payments
  destinations = await Promise.all(Array.from({ length: 5 }, () => node.newAddress()));
}, 120_000);
afterAll(async () => {
  await node?.stop();
});

/** What the payer's wallet received at `address`, in satoshis, read exactly. */
async function received(address: string): Promise<bigint> {
  const wallet = createBitcoinRpc({ url: `${node.rpcUrl}/wallet/payer` });
  return parseDecimal(await wallet.call<string>("getreceivedbyaddress", [address, 0]), 8);
}

/** One coin on its network: no stray-coin test applies, so none is registered (the suite says so). */
const PAIRS: ChainTestPair[] = [{ coin: "LTC", network: "LTC" }];

runChainAdapterTests({
  name: "bitcoinChain (Litecoin Core regtest)",
  pairs: PAIRS,
  createSubject: () => ({
    adapter: ltcChain(node, newAccount()),
    pairs: PAIRS,
    currencies,
    payoutsSpendDeposits: true,
    validAddresses: { LTC: destinations },
    invalidAddresses: {
      LTC: [
        "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", // Bitcoin mainnet
        "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", // Bitcoin regtest
        "ltc1qg42tkwuuxefutzxezdkdel39gfstuap288mfea", // Litecoin mainnet, not this regtest node
        "rltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kyxxxxx", // bad checksum
      ],
    },
    pay: async (_pair, address, amount) => ({ txHash: await node.pay(address, formatDecimal(amount, 8)) }),
    confirm: async (blocks) => void (await node.mine(blocks)),
    mark: async () => ({ height: await node.height() }),
    async dropSince(mark) {
      const { height } = mark as { height: number };
      const head = await node.height();
      if (head > height) await node.invalidate(await node.blockHash(height + 1));
      // What the orphaned blocks held (and what waited) is replaced by conflicts, mined.
      for (const txid of await node.mempool()) await node.doubleSpend(txid).catch(() => undefined);
      const now = await node.height();
      await node.mine(Math.max(1, head - now + 1));
    },
    balanceOf: (_pair, address) => received(address),
  }),
});
