import { afterAll, beforeAll, vi } from "vitest";
import { runChainAdapterTests, type ChainTestPair } from "../../../../src/testing/index";
import { parseMoneroAddress } from "../../../../src/adapters/chain/monero/address";
import { startMonerod, type Monerod } from "../monero/monerod";
import { currencies, withPrefix, xmrChain } from "../monero/support";

/**
 * moneroChain on a real monerod (regtest) with its wallet RPCs: one node for the file, a new
 * adapter (and view-only wallet) per test. The hot wallet holds coins of its own (mined to it).
 * A reorg that drops a transfer pops the blocks since the mark, empties the pool (what the
 * popped blocks held went back there) and mines a longer chain without it.
 */

// Mining is the slow part on this node (about 0.1 s a block, more with transactions): a test
// that mines its confirmations takes seconds.
vi.setConfig({ testTimeout: 60_000 });

let node: Monerod;
let destinations: string[] = [];

beforeAll(async () => {
  node = await startMonerod();
  destinations = [];
  for (let i = 0; i < 5; i++) destinations.push(await node.destination());
}, 300_000);
afterAll(async () => {
  await node?.stop();
});

const PAIRS: ChainTestPair[] = [{ coin: "XMR", network: "XMR" }];

runChainAdapterTests({
  name: "moneroChain (monerod regtest)",
  pairs: PAIRS,
  createSubject: () => {
    const keys = parseMoneroAddress(node.merchant.address)!;
    const sameKeys = { spend: keys.publicSpendKey, view: keys.publicViewKey };
    const valid = node.merchant.address;
    return {
      // One view-only wallet for the file: its subaddresses go on from test to test, as a
      // service's do from invoice to invoice (a new wallet would count from 1 again).
      adapter: xmrChain(node, { walletName: "service-view" }),
      pairs: PAIRS,
      currencies,
      validAddresses: { XMR: destinations },
      invalidAddresses: {
        XMR: [
          withPrefix(sameKeys, 24), // stagenet, same keys
          withPrefix(sameKeys, 53), // testnet, same keys
          `${valid.slice(0, 94)}${valid.at(-1) === "1" ? "2" : "1"}`, // bad checksum
          valid.slice(0, 94), // too short
        ],
      },
      pay: async (_pair, address, amount) => ({ txHash: await node.pay(address, amount) }),
      confirm: (blocks) => node.mine(blocks),
      mark: async () => ({ height: await node.height() }),
      async dropSince(mark) {
        const { height } = mark as { height: number };
        const popped = (await node.height()) - height;
        if (popped > 0) await node.popBlocks(popped);
        await node.flushPool();
        await node.mine(popped + 1);
      },
      balanceOf: (_pair, address) => node.received(address),
    };
  },
});
