import { hex } from "@scure/base";
import { p2wpkh, Transaction } from "@scure/btc-signer";
import type { HDKey } from "@scure/bip32";
import type { ChainHost, ChainPayoutStatus, ChainStateView } from "../../../core/ports/chain";
import { perAccountKey, readPerAccount, type StateAccount } from "./account-state";
import { COIN_PAGE, type Coin, type CoinNode, CoinOwner, outpointKey, parseCoins, unspentScripts } from "./coins";
import { derive, deriveAddress } from "./keys";
import type { AddressParams } from "./params";
import { OutageLog } from "../../../outage-log";

/** How the log names the re-broadcasts of one payout transaction. */
const rebroadcastName = (txid: string) => `re-broadcast of payout transaction ${txid}`;

/** A signed payout, as stored before it is broadcast. */
interface StoredPayout {
  txid: string;
  hex: string;
  /** Index of the change output, when there is one. */
  change: number | null;
  /** The miner fee in sats (inputs less outputs). Absent on payouts signed before it was kept. */
  fee?: string;
}

/** Where a transaction of ours was mined, as the block scan saw it. */
interface Mined {
  height: number;
  hash: string;
}

/** The node calls the wallet makes. */
export interface WalletNode extends CoinNode {
  blockCount(): Promise<number>;
  blockHashes(heights: readonly number[]): Promise<string[]>;
  /** Whether the transaction is in the node's mempool. */
  inMempool(txid: string): Promise<boolean>;
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
  /** The account's public key (the xpub): which outputs are the current account's. */
  accountKey: HDKey;
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
 *
 * Each coin names the account whose key spends it: after the operator rotates to another account,
 * the wallet spends (and counts in its balance) only the current account's coins; the previous
 * account's stay listed, for holdings, until the operator moves them with that account's key.
 */
export class BitcoinWallet {
  /** Which coins are the current account's. */
  readonly owner: CoinOwner;
  /** The current account, for the values kept per account (the change counter). */
  private readonly stateAccount: StateAccount;
  /** Failed re-broadcasts, per payout: logged as an outage (its error once, a line a check, a line when it goes through). */
  private readonly rebroadcasts: OutageLog;

  constructor(private readonly settings: WalletSettings) {
    this.owner = new CoinOwner(settings.accountKey);
    this.stateAccount = { id: this.owner.id, firstReceive: async () => deriveAddress(settings.accountKey, 0, 0, await settings.params()) };
    this.rebroadcasts = new OutageLog(settings.host.logger, { try: "status check" });
  }

  private key(name: string): string {
    return `${this.settings.namespace}:${name}`;
  }

  /**
   * The address that names the hot wallet (the current account's first change address, 1/0):
   * where the operator tops it up. Outputs to it are followed by the scan and taken as coins.
   */
  async address(): Promise<string> {
    return deriveAddress(this.settings.accountKey, 1, 0, await this.settings.params());
  }

  /**
   * Takes outputs that just became final as coins, each with the account that issued its
   * address: deposits, and top-ups sent to the wallet's {@link address}.
   */
  async receive(outputs: ReadonlyArray<{ txid: string; vout: number; sats: string; address: string }>): Promise<void> {
    const wallet = this.settings.account ? await this.address() : null;
    await this.settings.host.state.withLock(this.key("coins"), async (state) => {
      const coins = await this.coins(state);
      for (const output of outputs) {
        if (coins.some((coin) => coin.txid === output.txid && coin.vout === output.vout)) continue;
        const stored = await state.get(this.key(`addr:${output.address}`));
        // A deposit address has its path stored; the wallet's own address is where the operator tops it up.
        const path = stored ?? (output.address === wallet ? JSON.stringify({ branch: 1, index: 0, account: this.owner.id }) : null);
        if (!path) continue;
        // An address issued before addresses named their account has none: its coin is told by its script.
        const { branch, index, account } = JSON.parse(path) as { branch: 0 | 1; index: number; account?: string };
        coins.push({ txid: output.txid, vout: output.vout, sats: output.sats, branch, index, ...(account ? { account } : {}), confirmed: true, spentBy: null });
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

  /** Signs (once per payout id), stores, then broadcasts a payout; returns its txid. Its fee is counted once it is out. */
  async send(payoutId: string, to: string, sats: bigint): Promise<string> {
    const stored = (await this.stored(payoutId)) ?? (await this.sign(payoutId, to, sats));
    await this.settings.node.broadcast(stored.hex);
    await this.countFee(payoutId, stored);
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
      await this.settle(payoutId, stored);
      return { status: "confirmed" };
    }
    const minedText = await this.settings.host.state.get(this.key(`mined:${stored.txid}`));
    if (minedText) {
      const mined = JSON.parse(minedText) as Mined;
      const [hash] = await this.settings.node.blockHashes([mined.height]).catch(() => [null]);
      if (hash === mined.hash) {
        const confirmations = (await this.settings.node.blockCount()) - mined.height + 1;
        if (confirmations < this.settings.confirmations) return { status: "pending" };
        await this.settle(payoutId, stored);
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
   * What the wallet may still spend, in sats: the current account's coins not spent by a payout
   * of its own (unconfirmed change included: it is ours once its payout confirms), each asked of
   * the node (`gettxout`, mempool included, in batches), so a coin spent by anything else is not
   * counted. A previous account's coins are not: this wallet cannot sign for them.
   */
  async balance(): Promise<bigint> {
    const coins = parseCoins(await this.settings.host.state.get(this.key("coins"))).filter((coin) => coin.spentBy === null);
    const scripts = await unspentScripts(this.settings.node, coins);
    return coins.reduce((sum, coin, i) => (scripts[i] != null && this.owner.owns(coin, scripts[i]!) ? sum + BigInt(coin.sats) : sum), 0n);
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
    return parseCoins(await state.get(this.key("coins")));
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
    // Only the current account's coins are candidates; those stored before coins named their
    // account are told by their script, which the node's answer below brings.
    const spendableOf = (coins: Coin[]) =>
      coins
        .filter((coin) => coin.spentBy === null && coin.confirmed && (coin.account === undefined || coin.account === this.owner.id))
        .sort((a, b) => (BigInt(b.sats) > BigInt(a.sats) ? 1 : -1));
    // The node is asked which coins are still unspent before the lock is taken: a node call under
    // it would hold a storage transaction (on memory or PGlite storage, every other one too) for
    // as long as a hung node takes. Only a coin this read did not cover is asked under the lock.
    const scripts = new Map<string, string | null>();
    const candidates = spendableOf(parseCoins(await this.settings.host.state.get(this.key("coins"))));
    let covered = 0n;
    let count = 0;
    for (let i = 0; i < candidates.length && covered < amount + feeRate * vbytes(Math.max(count, 1), 2); i += COIN_PAGE) {
      const page = candidates.slice(i, i + COIN_PAGE);
      const answers = await unspentScripts(node, page);
      page.forEach((coin, j) => {
        scripts.set(outpointKey(coin), answers[j]!);
        if (answers[j] !== null && this.owner.owns(coin, answers[j]!)) [covered, count] = [covered + BigInt(coin.sats), count + 1];
      });
    }
    return this.settings.host.state.withLock(this.key("coins"), async (state) => {
      const again = await state.get(this.key(`payout:${payoutId}`));
      if (again) return JSON.parse(again) as StoredPayout; // Another caller signed it meanwhile.
      const coins = await this.coins(state);
      const chosen: Coin[] = [];
      let total = 0n;
      let fee = 0n;
      for (const coin of spendableOf(coins)) {
        const script = scripts.has(outpointKey(coin)) ? scripts.get(outpointKey(coin))! : (await unspentScripts(node, [coin]))[0]!;
        // A coin spent by something we do not know of (a reorg, another wallet on the same key) is skipped.
        if (script === null) {
          coin.spentBy = "unknown";
          continue;
        }
        if (!this.owner.owns(coin, script)) continue; // A previous account's: its key is not ours.
        coin.account = this.owner.id;
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
        const counter = perAccountKey(this.settings.namespace, "next-change", this.stateAccount);
        const index = Number((await readPerAccount((key) => state.get(key), this.settings.namespace, "next-change", this.stateAccount)) ?? "0");
        await state.set(counter, String(index + 1));
        tx.addOutputAddress(deriveAddress(account, 1, index, params), change, params);
        changeOutput = 1;
        changeCoin = { txid: "", vout: 1, sats: String(change), branch: 1, index, account: this.owner.id, confirmed: false, spentBy: null };
      } else {
        change = 0n; // Dust goes to the fee.
      }
      for (const [i, key] of keys.entries()) tx.signIdx(key.privateKey!, i);
      tx.finalize();
      // Inputs less outputs, exactly: what the network keeps (dust change included).
      const stored: StoredPayout = { txid: tx.id, hex: tx.hex, change: changeOutput, fee: String(total - amount - change) };
      for (const coin of chosen) coin.spentBy = payoutId;
      if (changeCoin) coins.push({ ...changeCoin, txid: tx.id });
      await state.set(this.key("coins"), JSON.stringify(coins));
      await state.set(this.key(`payout:${payoutId}`), JSON.stringify(stored));
      const watch = JSON.parse((await state.get(this.key("watch"))) ?? "[]") as string[];
      await state.set(this.key("watch"), JSON.stringify([...watch, tx.id]));
      return stored;
    });
  }

  /**
   * Adds a broadcast payout's miner fee to the durable total `holdings` reports, once per payout
   * (a marker under the same lock makes a repeated send, from any instance, count nothing).
   *
   * Counted at broadcast, not at confirmation: the records count a payout as sent once it has a
   * txHash, which core stores after `sendPayout` returns, so the fee is in the total before the
   * payout is in the records' `sent`, and the hot wallet (read from the node, mempool included)
   * is without the payout's inputs from the same moment. Counting at confirmation would show
   * every payout in flight as a difference of its fee.
   */
  private async countFee(payoutId: string, stored: StoredPayout): Promise<void> {
    const total = this.key("network-fees");
    const fee = stored.fee ?? (await this.feeOfEarlierPayout(payoutId, stored));
    if (fee === null) return;
    await this.settings.host.state.withLock(total, async (state) => {
      if (await state.get(this.key(`fee-counted:${payoutId}`))) return;
      await state.set(total, String(BigInt((await state.get(total)) ?? "0") + BigInt(fee)));
      await state.set(this.key(`fee-counted:${payoutId}`), stored.txid);
    });
  }

  /**
   * The fee of a payout signed before payouts kept theirs: its inputs (the coins it spends, as
   * stored) less its outputs (decoded from its transaction). Null, with a warning, when its
   * inputs are no longer all listed.
   */
  private async feeOfEarlierPayout(payoutId: string, stored: StoredPayout): Promise<string | null> {
    const tx = Transaction.fromRaw(hex.decode(stored.hex), { allowUnknownOutputs: true });
    const spent = parseCoins(await this.settings.host.state.get(this.key("coins"))).filter((coin) => coin.spentBy === payoutId);
    if (spent.length !== tx.inputsLength) {
      this.settings.host.logger.warn(
        `payout ${payoutId}: its network fee cannot be worked out (its inputs are no longer listed) and is not counted in holdings`,
      );
      return null;
    }
    let outputs = 0n;
    for (let i = 0; i < tx.outputsLength; i++) outputs += tx.getOutput(i).amount ?? 0n;
    return String(spent.reduce((sum, coin) => sum + BigInt(coin.sats), 0n) - outputs);
  }

  /**
   * A payout confirmed: its change becomes spendable, its txid is no longer watched, and the
   * coins it spent leave the list (they are spent for good: the list stays as long as what the
   * wallet holds, not as long as its history).
   */
  private async settle(payoutId: string, stored: StoredPayout): Promise<void> {
    this.rebroadcasts.forget(rebroadcastName(stored.txid));
    await this.settings.host.state.withLock(this.key("coins"), async (state) => {
      const coins = (await this.coins(state)).filter((coin) => coin.spentBy !== payoutId);
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
