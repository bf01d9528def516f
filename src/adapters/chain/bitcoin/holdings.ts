import type { ChainStateStore } from "../../../core/ports/chain";
import { type CoinNode, type CoinOwner, parseCoins, unspentScripts } from "./coins";

/** What a Bitcoin-family account holds for the service, in sats, as one reading of the node. */
export interface BitcoinHoldings {
  /** The node's head when read. */
  height: number;
  /** The current account's unspent outputs: final deposits and change (unconfirmed change of a broadcast payout included). */
  current: bigint;
  /** Unspent outputs of accounts configured before the current one: the service's, not spendable by its hot wallet. */
  previous: bigint;
  /** The miner fees of the service's broadcast payouts, in total. */
  networkFees: bigint;
}

/** What the reading needs. */
export interface HoldingsSource {
  node: CoinNode & { blockCount(): Promise<number> };
  state: ChainStateStore;
  /** The adapter's state namespace ("bitcoin:LTC"). */
  namespace: string;
  owner: CoinOwner;
}

/** Readings taken again when a payout or a deposit changed the coins while the node was asked. */
const ATTEMPTS = 3;

/**
 * Reads what the account holds: every listed coin the node says is unspent (`gettxout` with the
 * mempool, in batches), whoever's payout marked it. The node is the judge: a payout's inputs
 * are out once its transaction is in the mempool, and back in while it was never broadcast (the
 * records do not count it as sent either); its change is in from the moment it is broadcast.
 *
 * No lock is held: the coin list and the fee total are read, the node asked, and both read
 * again; when either changed meanwhile (a payout signed, a deposit final), the reading is taken
 * again, so the fees and the coins are of one moment.
 */
export async function readHoldings(source: HoldingsSource): Promise<BitcoinHoldings> {
  const { state, namespace, owner } = source;
  // The wallet's keys: its coin list and its fee total (see BitcoinWallet).
  const read = async () => [await state.get(`${namespace}:coins`), await state.get(`${namespace}:network-fees`)] as const;
  let before = await read();
  for (let attempt = 1; ; attempt++) {
    const height = await source.node.blockCount();
    const coins = parseCoins(before[0]);
    const scripts = await unspentScripts(source.node, coins);
    let current = 0n;
    let previous = 0n;
    coins.forEach((coin, i) => {
      const script = scripts[i] ?? null;
      if (script === null) return;
      if (owner.owns(coin, script)) current += BigInt(coin.sats);
      else previous += BigInt(coin.sats);
    });
    const after = await read();
    if ((after[0] === before[0] && after[1] === before[1]) || attempt === ATTEMPTS) {
      return { height, current, previous, networkFees: BigInt(before[1] ?? "0") };
    }
    before = after;
  }
}
