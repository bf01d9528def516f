import { p2wpkh, Transaction } from "@scure/btc-signer";
import type { HDKey } from "@scure/bip32";
import type { ChainHost, ChainPayoutStatus, ChainStateView } from "../../../core/ports/chain";
import { derive, deriveAddress } from "./keys";
import type { AddressParams } from "./params";
import { OutageLog } from "../../../outage-log";

/** How the log names the re-broadcasts of one payout transaction. */
const rebroadcastName = (txid: string) => `re-broadcast of payout transaction ${txid}`;

/** An output the wallet may spend: a final deposit, or change of its own payouts. */
interface Coin {
  txid: string;
  vout: number;
  sats: string;
  branch: 0 | 1;
  index: number;
  /** Change waits for its payout's confirmations before it is spent again. */
  confirmed: boolean;
  /** The payout whose transaction spends it, once signed. */
  spentBy: string | null;
}

/** A signed payout, as stored before it is broadcast. */
interface StoredPayout {
  txid: string;
  hex: string;
  /** Index of the change output, when there is one. */
  change: number | null;
}

/** Where a transaction of ours was mined, as the block scan saw it. */
interface Mined {
  height: number;
  hash: string;
}

/** The node calls the wallet makes. */
export interface WalletNode {
  blockCount(): Promise<number>;
  blockHashes(heights: readonly number[]): Promise<string[]>;
  /** Whether the transaction is in the node's mempool. */
  inMempool(txid: string): Promise<boolean>;
  /** Whether an output is unspent (`gettxout`, mempool included). */
  isUnspent(txid: string, vout: number): Promise<boolean>;
  /** Confirmations of a mined, unspent output (`gettxout` without the mempool), or null. */
  outputConfirmations(txid: string, vout: number): Promise<number | null>;
  /** Fee rate for confirmation within `target` blocks, in sat/vB, or null when the node has no estimate. */
  estimateFeeRate(target: number): Promise<number | null>;
  /** Broadcasts; a transaction the node has already (mempool or chain) counts as sent. */
  broadcast(hex: string): Promise<void>;
}

/** What the wallet needs. */
export interface WalletSettings {
  node: WalletNode;
  host: ChainHost;
  namespace: string;
  /** The account key with its private part (hot wallet), or null when payouts are off. */
  account: HDKey | null;
  /** Address parameters of the node's chain (btc-signer network). */
  params: () => Promise<AddressParams>;
  confirmations: number;
  fee: { fallback: number; ceiling: number; target: number };
}

/** Dust below which change is given to the fee instead (P2WPKH's dust limit at 3 sat/vB). */
const DUST = 294n;

/**
 * Payouts of a Bitcoin-family account from its own outputs. Coins are the outputs of final
 * deposits (taken from the deposit feed) and the change of earlier payouts; they live in the
 * adapter's durable state, so every instance on the same storage sees the same set. Coin
 * selection, signing and storing happen under one lock, so parallel payouts never pick the same
 * output; only then is the transaction broadcast. A retry sends the stored transaction again.
 */
export class BitcoinWallet {
  /** Failed re-broadcasts, per payout: logged as an outage (its error once, a line a check, a line when it goes through). */
  private readonly rebroadcasts: OutageLog;

  constructor(private readonly settings: WalletSettings) {
    this.rebroadcasts = new OutageLog(settings.host.logger, { try: "status check" });
  }

  private key(name: string): string {
    return `${this.settings.namespace}:${name}`;
  }

  /** Takes the outputs of deposits that just became final as spendable coins. */
  async receive(outputs: ReadonlyArray<{ txid: string; vout: number; sats: string; address: string }>): Promise<void> {
    await this.settings.host.state.withLock(this.key("coins"), async (state) => {
      const coins = await this.coins(state);
      for (const output of outputs) {
        if (coins.some((coin) => coin.txid === output.txid && coin.vout === output.vout)) continue;
        const path = await state.get(this.key(`addr:${output.address}`));
        if (!path) continue; // Issued by another key (an earlier xpub): not ours to spend.
        const { branch, index } = JSON.parse(path) as { branch: 0 | 1; index: number };
        coins.push({ txid: output.txid, vout: output.vout, sats: output.sats, branch, index, confirmed: true, spentBy: null });
      }
      await state.set(this.key("coins"), JSON.stringify(coins));
    });
  }

  /**
   * Notes where payout transactions were mined. Called with the blocks of each poll of the scan,
   * oldest first: the list of watched payouts is read once for all of them.
   */
  async sawBlocks(blocks: ReadonlyArray<{ hash: string; height: number; txids: readonly string[] }>): Promise<void> {
    const watched = new Set(JSON.parse((await this.settings.host.state.get(this.key("watch"))) ?? "[]") as string[]);
    if (watched.size === 0) return;
    for (const block of blocks) {
      for (const txid of block.txids) {
        if (!watched.has(txid)) continue;
        await this.settings.host.state.withLock(this.key(`mined:${txid}`), (state) =>
          state.set(this.key(`mined:${txid}`), JSON.stringify({ height: block.height, hash: block.hash } satisfies Mined)),
        );
      }
    }
  }

  /** Signs (once per payout id), stores, then broadcasts a payout; returns its txid. */
  async send(payoutId: string, to: string, sats: bigint): Promise<string> {
    const stored = (await this.stored(payoutId)) ?? (await this.sign(payoutId, to, sats));
    await this.settings.node.broadcast(stored.hex);
    return stored.txid;
  }

  /** Where a payout stands: confirmed after the confirmations, pending before (re-broadcast when the node lost it). */
  async status(payoutId: string): Promise<ChainPayoutStatus> {
    const stored = await this.stored(payoutId);
    if (!stored) throw new Error(`no payout transaction is stored under "${payoutId}"`);
    // An unspent output of the payout tells its confirmations straight from the chain (no txindex
    // needed); once both are spent, where the block scan saw it mined tells instead.
    for (const vout of stored.change === null ? [0] : [0, stored.change]) {
      const confirmations = await this.settings.node.outputConfirmations(stored.txid, vout);
      if (confirmations === null) continue;
      if (confirmations < this.settings.confirmations) return { status: "pending" };
      await this.settle(stored);
      return { status: "confirmed" };
    }
    const minedText = await this.settings.host.state.get(this.key(`mined:${stored.txid}`));
    if (minedText) {
      const mined = JSON.parse(minedText) as Mined;
      const [hash] = await this.settings.node.blockHashes([mined.height]).catch(() => [null]);
      if (hash === mined.hash) {
        const confirmations = (await this.settings.node.blockCount()) - mined.height + 1;
        if (confirmations < this.settings.confirmations) return { status: "pending" };
        await this.settle(stored);
        return { status: "confirmed" };
      }
    }
    // Not mined (or its block was orphaned): it should be in the mempool; if the node lost it, send it again.
    const rebroadcast = rebroadcastName(stored.txid);
    if (!(await this.settings.node.inMempool(stored.txid))) {
      await this.settings.node.broadcast(stored.hex).then(
        () => this.rebroadcasts.worked(rebroadcast),
        // The node client's errors are scrubbed of its URL and credentials.
        (error: unknown) => this.rebroadcasts.failed(rebroadcast, error),
      );
    } else this.rebroadcasts.worked(rebroadcast);
    return { status: "pending" };
  }

  /**
   * What the wallet holds, in sats: its coins not spent by a payout of its own (unconfirmed
   * change included: it is ours once its payout confirms), each asked of the node (`gettxout`,
   * mempool included), so a coin spent by anything else is not counted.
   */
  async balance(): Promise<bigint> {
    const coins = (JSON.parse((await this.settings.host.state.get(this.key("coins"))) ?? "[]") as Coin[]).filter((coin) => coin.spentBy === null);
    const unspent = await Promise.all(coins.map((coin) => this.settings.node.isUnspent(coin.txid, coin.vout)));
    return coins.reduce((sum, coin, i) => (unspent[i] ? sum + BigInt(coin.sats) : sum), 0n);
  }

  /** The fee of a payout from one coin with change, at the fallback fee rate: what a payout needs beyond its amount. */
  typicalFee(): bigint {
    return BigInt(Math.ceil(this.settings.fee.fallback)) * vbytes(1, 2);
  }

  private async stored(payoutId: string): Promise<StoredPayout | null> {
    const text = await this.settings.host.state.get(this.key(`payout:${payoutId}`));
    return text ? (JSON.parse(text) as StoredPayout) : null;
  }

  private async coins(state: ChainStateView): Promise<Coin[]> {
    return JSON.parse((await state.get(this.key("coins"))) ?? "[]") as Coin[];
  }

  /** Coin selection, signing and storing, under the wallet's lock. */
  private async sign(payoutId: string, to: string, amount: bigint): Promise<StoredPayout> {
    const { account, node } = this.settings;
    if (!account?.privateKey) throw new Error("payouts need the hot wallet (the account's extended private key)");
    const params = await this.settings.params();
    const feeRate = BigInt(
      Math.min(
        this.settings.fee.ceiling,
        Math.max(1, Math.ceil((await node.estimateFeeRate(this.settings.fee.target).catch(() => null)) ?? this.settings.fee.fallback)),
      ),
    );
    const spendableOf = (coins: Coin[]) =>
      coins.filter((coin) => coin.spentBy === null && coin.confirmed).sort((a, b) => (BigInt(b.sats) > BigInt(a.sats) ? 1 : -1));
    // The node is asked which coins are still unspent before the lock is taken: a node call under
    // it would hold a storage transaction (on memory or PGlite storage, every other one too) for
    // as long as a hung node takes. Only a coin this read did not cover is asked under the lock.
    const unspent = new Map<string, boolean>();
    let covered = 0n;
    for (const coin of spendableOf(JSON.parse((await this.settings.host.state.get(this.key("coins"))) ?? "[]") as Coin[])) {
      const ok = await node.isUnspent(coin.txid, coin.vout);
      unspent.set(`${coin.txid}:${coin.vout}`, ok);
      if (ok) covered += BigInt(coin.sats);
      if (covered >= amount + feeRate * vbytes(unspent.size, 2)) break;
    }
    return this.settings.host.state.withLock(this.key("coins"), async (state) => {
      const again = await state.get(this.key(`payout:${payoutId}`));
      if (again) return JSON.parse(again) as StoredPayout; // Another caller signed it meanwhile.
      const coins = await this.coins(state);
      const spendable = spendableOf(coins);
      const chosen: Coin[] = [];
      let total = 0n;
      let fee = 0n;
      for (const coin of spendable) {
        // A coin spent by something we do not know of (a reorg, another wallet on the same key) is skipped.
        if (!(unspent.get(`${coin.txid}:${coin.vout}`) ?? (await node.isUnspent(coin.txid, coin.vout)))) {
          coin.spentBy = "unknown";
          continue;
        }
        chosen.push(coin);
        total += BigInt(coin.sats);
        fee = feeRate * vbytes(chosen.length, 2);
        if (total >= amount + fee) break;
      }
      if (total < amount + fee) {
        await state.set(this.key("coins"), JSON.stringify(coins));
        throw new Error(`the hot wallet's spendable ${total} sats do not cover ${amount} sats plus a fee of ${fee} sats; it waits for more confirmed deposits`);
      }
      const tx = new Transaction();
      // Each input's key is derived once: its public half makes the script the input commits to,
      // its private half signs it below.
      const keys = chosen.map((coin) => derive(account, coin.branch, coin.index));
      chosen.forEach((coin, i) => {
        tx.addInput({ txid: coin.txid, index: coin.vout, witnessUtxo: { script: p2wpkh(keys[i]!.publicKey!, params).script, amount: BigInt(coin.sats) } });
      });
      tx.addOutputAddress(to, amount, params);
      let change = total - amount - fee;
      let changeOutput: number | null = null;
      let changeCoin: Coin | null = null;
      if (change >= DUST) {
        const index = Number((await state.get(this.key("next-change"))) ?? "0");
        await state.set(this.key("next-change"), String(index + 1));
        tx.addOutputAddress(deriveAddress(account, 1, index, params), change, params);
        changeOutput = 1;
        changeCoin = { txid: "", vout: 1, sats: String(change), branch: 1, index, confirmed: false, spentBy: null };
      } else {
        change = 0n; // Dust goes to the fee.
      }
      for (const [i, key] of keys.entries()) tx.signIdx(key.privateKey!, i);
      tx.finalize();
      const stored: StoredPayout = { txid: tx.id, hex: tx.hex, change: changeOutput };
      for (const coin of chosen) coin.spentBy = payoutId;
      if (changeCoin) coins.push({ ...changeCoin, txid: tx.id });
      await state.set(this.key("coins"), JSON.stringify(coins));
      await state.set(this.key(`payout:${payoutId}`), JSON.stringify(stored));
      const watch = JSON.parse((await state.get(this.key("watch"))) ?? "[]") as string[];
      await state.set(this.key("watch"), JSON.stringify([...watch, tx.id]));
      return stored;
    });
  }

  /** A payout confirmed: its change becomes spendable and its txid is no longer watched. */
  private async settle(stored: StoredPayout): Promise<void> {
    this.rebroadcasts.forget(rebroadcastName(stored.txid));
    await this.settings.host.state.withLock(this.key("coins"), async (state) => {
      const coins = await this.coins(state);
      for (const coin of coins) if (coin.txid === stored.txid && coin.vout === stored.change) coin.confirmed = true;
      await state.set(this.key("coins"), JSON.stringify(coins));
      const watch = (JSON.parse((await state.get(this.key("watch"))) ?? "[]") as string[]).filter((txid) => txid !== stored.txid);
      await state.set(this.key("watch"), JSON.stringify(watch));
    });
  }
}

/** Virtual size of a P2WPKH transaction with `inputs` inputs and `outputs` P2WPKH outputs (rounded up). */
function vbytes(inputs: number, outputs: number): bigint {
  // 10.5 vB of overhead, 68 per input (witness discounted), 31 per output.
  return BigInt(Math.ceil(10.5 + 68 * inputs + 31 * outputs));
}
