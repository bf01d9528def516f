import { z } from "zod";
import { chainedPrefix, decodeStoredCursor, rewindOnReorg } from "../block-cursor";
import { applyRescan, type RescanRequest } from "../rescan-request";
import type { ChainDeposit, ChainHost, DepositFeedPage, IssuedAddress } from "../../../core/ports/chain";
import { toLedgerUnits } from "../units";
import { toSatoshis } from "./rpc";

/** A transaction as `getblock <hash> 2` and `getrawtransaction <txid> true` give it (amounts as exact strings). */
export interface NodeTransaction {
  txid: string;
  vin: Array<{ txid?: string; vout?: number; coinbase?: string }>;
  vout: Array<{ value: string; n: number; scriptPubKey: { hex: string } }>;
}

/** A block as `getblock <hash> 2` gives it. */
export interface NodeBlock {
  hash: string;
  height: number;
  previousblockhash?: string;
  tx: NodeTransaction[];
}

/** The node calls the scanner makes. */
export interface ScannerNode {
  blockCount(): Promise<number>;
  blockHashes(heights: readonly number[]): Promise<string[]>;
  blocks(hashes: readonly string[]): Promise<NodeBlock[]>;
  mempool(): Promise<string[]>;
  /** Mempool transactions by txid; a txid that left the mempool meanwhile is left out. */
  mempoolTransactions(txids: readonly string[]): Promise<NodeTransaction[]>;
}

/** What the scanner needs besides its cursor. */
export interface BitcoinScannerSettings {
  node: ScannerNode;
  coin: string;
  network: string;
  /** The chain the node is on ("main", "test", "regtest"): a cursor of another chain is refused. */
  chain: () => Promise<string>;
  host: ChainHost;
  /**
   * The decoder of output scripts for the node's chain: the address a script pays, or null
   * (non-standard scripts). Asked at each poll (it depends on the chain the node reports).
   */
  addressDecoder: () => Promise<(scriptHex: string) => string | null>;
  confirmations: number;
  blocksPerPoll: number;
  /** Where the very first scan starts; null: a reorg window below the head. */
  startHeight: number | null;
  /** Called with deposits that just became final (the wallet takes their outputs as spendable). */
  onFinal: (deposits: readonly Tracked[]) => Promise<void>;
  /**
   * Addresses of the service's own wallet (where the operator tops the hot wallet up), encoded
   * for the node's chain: outputs to them are followed like deposits and handed to `onFinal`
   * when final, but never reported in the deposit feed (no invoice is behind them).
   */
  walletAddresses?: () => Promise<readonly string[]>;
  /**
   * Called once per poll with the transactions of the blocks it read (oldest first; not called
   * when it read none), so the wallet sees its own payouts mined. One call per poll rather than
   * per block lets the wallet read its list of watched payouts once.
   */
  onBlocks?: (blocks: ReadonlyArray<{ hash: string; height: number; txids: string[] }>) => Promise<void>;
}

const trackedSchema = z.strictObject({
  address: z.string(),
  invoiceId: z.string(),
  txid: z.string(),
  vout: z.int().min(0),
  /** Satoshis (chain units), as a decimal string. */
  sats: z.string().regex(/^\d+$/),
  /** Null while only in the mempool. */
  block: z.int().min(0).nullable(),
  blockHash: z.string().nullable(),
  reported: z.int().min(0),
  /** True once handed to `onFinal`; it is then watched only for a reorg deeper than its confirmations. */
  settled: z.boolean().optional(),
  /** An output to the service's own wallet (`walletAddresses`): followed, never reported. */
  wallet: z.boolean().optional(),
});

/** One output to an issued address, followed until it is final or dropped. */
export type Tracked = z.infer<typeof trackedSchema>;

const cursorSchema = z.strictObject({
  v: z.literal(1),
  chain: z.string(),
  height: z.int().min(-1),
  hashes: z.array(z.tuple([z.int().min(0), z.string()])),
  tracked: z.array(trackedSchema),
  /** The id of the last rescan request applied (see rescan-request.ts). */
  rescan: z.string().optional(),
});

type Cursor = z.infer<typeof cursorSchema>;

/**
 * Follows a Bitcoin Core compatible node without its wallet: blocks from a cursor the service
 * stores (`getblockhash`/`getblock <hash> 2`) and the mempool (`getrawmempool`, then
 * `getrawtransaction <txid> true` for transactions not looked at yet), matching outputs by
 * script against issued addresses (one storage lookup per poll). Works the same on any Bitcoin
 * Core version and needs neither `txindex` nor an imported key.
 *
 * - A mempool transaction to an issued address is reported with 0 confirmations (the invoice
 *   goes CONFIRMING); mined, it is reported with each new confirmation until final.
 * - Reorgs are found from the stored block hashes: deposits of orphaned blocks go back to
 *   unconfirmed (the node puts their transactions back in its mempool), and are found again
 *   when mined again, under the same identity (txid, vout).
 * - A followed unconfirmed deposit that is neither in the mempool nor in any block read up to
 *   the head has been replaced (RBF) or beaten by a conflicting transaction: it is reported
 *   dropped, and never credited.
 */
export class BitcoinScanner {
  /** Mempool transactions already looked at in this process (the mempool is mostly the same between polls). */
  private readonly examined = new Set<string>();
  /** The script decoder of the poll in progress. */
  private addressOf: (scriptHex: string) => string | null = () => null;

  constructor(private readonly settings: BitcoinScannerSettings) {}

  private get window(): number {
    return Math.max(32, this.settings.confirmations + 8);
  }

  /** One page of the deposit feed (see `ChainAdapter.pollDeposits`). */
  async poll(cursorText: string | null, rescan: RescanRequest | null = null): Promise<DepositFeedPage> {
    const { node } = this.settings;
    const chain = await this.settings.chain();
    this.addressOf = await this.settings.addressDecoder();
    // The mempool first, then the blocks: a transaction mined in between is then found in a block.
    const mempool = new Set(await node.mempool());
    const head = await node.blockCount();
    const cursor = cursorText === null ? this.initial(chain, head) : decode(cursorText);
    if (cursor.chain !== chain)
      throw new Error(
        `the ${this.settings.network} node is on ${chain}, but the stored deposit cursor was made on ${cursor.chain}; point rpcUrl at the right node`,
      );
    // A recovery rescan not applied yet: read again from there (what is found again is applied idempotently).
    applyRescan(cursor, rescan);
    const reports: ChainDeposit[] = [];
    await this.rewindOnReorg(cursor, head);

    const from = cursor.height;
    const to = Math.min(head, cursor.height + this.settings.blocksPerPoll);
    const minedNow = new Set<string>();
    if (to > cursor.height) await this.scanBlocks(cursor, cursor.height + 1, to, head, reports, minedNow);
    await this.scanMempool(cursor, mempool, reports);
    await this.follow(cursor, head, mempool, minedNow, reports);
    cursor.hashes = cursor.hashes.slice(-this.window);
    return { deposits: reports, cursor: JSON.stringify(cursor), hasMore: cursor.height > from && cursor.height < head };
  }

  private initial(chain: string, head: number): Cursor {
    const start = this.settings.startHeight ?? Math.max(0, head - this.window);
    return { v: 1, chain, height: start - 1, hashes: [], tracked: [] };
  }

  /** Rewinds to the fork after a reorg; deposits of orphaned blocks become unconfirmed (their transactions are back in the mempool). */
  private async rewindOnReorg(cursor: Cursor, head: number): Promise<void> {
    const fork = await rewindOnReorg(
      cursor,
      head,
      async (height) => (await this.settings.node.blockHashes([height]))[0] ?? null,
      this.settings.host,
      this.settings.network,
    );
    if (fork === null) return;
    for (const deposit of cursor.tracked) {
      if (deposit.block !== null && deposit.block > fork) {
        deposit.block = null;
        deposit.blockHash = null;
      }
    }
  }

  private async scanBlocks(cursor: Cursor, from: number, to: number, head: number, reports: ChainDeposit[], minedNow: Set<string>): Promise<void> {
    const { node } = this.settings;
    const heights = Array.from({ length: to - from + 1 }, (_, i) => from + i);
    const blocks = await node.blocks(await node.blockHashes(heights));
    // Keep the blocks that chain onto what was read before (a reorg under the read stops it).
    const read = chainedPrefix(blocks, cursor.hashes.at(-1), (block) => ({ height: block.height, hash: block.hash, parentHash: block.previousblockhash }));
    const found: Array<{ tx: NodeTransaction; block: NodeBlock | null }> = [];
    for (const block of read) for (const tx of block.tx) found.push({ tx, block });
    if (read.length > 0)
      await this.settings.onBlocks?.(read.map((block) => ({ hash: block.hash, height: block.height, txids: block.tx.map((tx) => tx.txid) })));
    await this.match(cursor, found, head, reports, minedNow);
    for (const block of read) cursor.hashes.push([block.height, block.hash]);
    if (read.length > 0) cursor.height = read.at(-1)!.height;
  }

  private async scanMempool(cursor: Cursor, mempool: Set<string>, reports: ChainDeposit[]): Promise<void> {
    for (const txid of this.examined) if (!mempool.has(txid)) this.examined.delete(txid);
    const fresh = [...mempool].filter((txid) => !this.examined.has(txid));
    if (fresh.length === 0) return;
    const found: Array<{ tx: NodeTransaction; block: null }> = [];
    for (let i = 0; i < fresh.length; i += 500) {
      for (const tx of await this.settings.node.mempoolTransactions(fresh.slice(i, i + 500))) found.push({ tx, block: null });
    }
    await this.match(cursor, found, 0, reports, new Set());
    for (const txid of fresh) this.examined.add(txid);
  }

  /** Finds outputs to issued addresses among transactions, and follows them. */
  private async match(
    cursor: Cursor,
    found: ReadonlyArray<{ tx: NodeTransaction; block: NodeBlock | null }>,
    head: number,
    reports: ChainDeposit[],
    minedNow: Set<string>,
  ): Promise<void> {
    const outputs: Array<{ address: string; tx: NodeTransaction; vout: number; value: string; block: NodeBlock | null }> = [];
    for (const { tx, block } of found) {
      for (const output of tx.vout) {
        const address = this.addressOf(output.scriptPubKey.hex);
        if (address) outputs.push({ address, tx, vout: output.n, value: output.value, block });
      }
    }
    if (outputs.length === 0) return;
    const issued = await this.settings.host.issuedAddresses(this.settings.network, [...new Set(outputs.map((output) => output.address))]);
    const ours = new Map<string, IssuedAddress>(issued.map((entry) => [entry.address, entry]));
    const wallet = new Set(await (this.settings.walletAddresses?.() ?? []));
    for (const output of outputs) {
      const owner = ours.get(output.address) ?? (wallet.has(output.address) ? { address: output.address, coin: this.settings.coin, invoiceId: "" } : undefined);
      if (!owner) continue;
      const sats = toSatoshis(output.value);
      if (sats <= 0n) continue;
      const existing = cursor.tracked.find((entry) => entry.txid === output.tx.txid && entry.vout === output.vout);
      const confirmations = output.block ? head - output.block.height + 1 : 0;
      if (output.block) minedNow.add(output.tx.txid);
      if (existing) {
        // Seen before (in the mempool, or before a rewind): now with its block, or still without.
        if (output.block) {
          existing.block = output.block.height;
          existing.blockHash = output.block.hash;
        }
        if (existing.reported === confirmations && !output.block) continue;
        existing.reported = confirmations;
        this.push(reports, existing, confirmations, false);
        continue;
      }
      const tracked: Tracked = {
        address: owner.address,
        invoiceId: owner.invoiceId,
        txid: output.tx.txid,
        vout: output.vout,
        sats: String(sats),
        block: output.block?.height ?? null,
        blockHash: output.block?.hash ?? null,
        reported: confirmations,
        ...(ours.has(output.address) ? {} : { wallet: true }),
      };
      cursor.tracked.push(tracked);
      this.push(reports, tracked, confirmations, false);
    }
  }

  /**
   * Reports new confirmations until final, and drops unconfirmed ones that left the mempool
   * without being mined (replaced or double-spent) once the read reached the head. A final
   * deposit is handed to `onFinal` once and still watched (silently) while its block is within
   * the remembered hashes: a reorg deeper than its confirmations puts it back to unconfirmed,
   * and if a conflict then replaces it, it is reported dropped. Past the window it is let go.
   */
  private async follow(cursor: Cursor, head: number, mempool: Set<string>, minedNow: Set<string>, reports: ChainDeposit[]): Promise<void> {
    const kept: Tracked[] = [];
    const final: Tracked[] = [];
    const caughtUp = cursor.height >= head;
    for (const deposit of cursor.tracked) {
      if (deposit.block === null) {
        if (!mempool.has(deposit.txid) && !minedNow.has(deposit.txid) && caughtUp) {
          this.push(reports, deposit, 0, true);
          continue;
        }
        if (deposit.reported !== 0) {
          deposit.reported = 0;
          this.push(reports, deposit, 0, false);
        }
        kept.push(deposit);
        continue;
      }
      const required = this.settings.confirmations;
      const confirmations = Math.max(0, head - deposit.block + 1);
      if (confirmations !== deposit.reported && (deposit.reported < required || confirmations < required)) {
        deposit.reported = confirmations;
        this.push(reports, deposit, confirmations, false);
      }
      if (confirmations >= required && !deposit.settled) {
        deposit.settled = true;
        final.push(deposit);
      }
      if (confirmations < required || deposit.block > cursor.height - this.window) kept.push(deposit);
    }
    cursor.tracked = kept;
    if (final.length > 0) await this.settings.onFinal(final);
  }

  /** Adds a deposit's state to the feed's page; an output to the service's own wallet is followed but not reported. */
  private push(reports: ChainDeposit[], deposit: Tracked, confirmations: number, dropped: boolean): void {
    if (!deposit.wallet) reports.push(this.report(deposit, confirmations, dropped));
  }

  private report(deposit: Tracked, confirmations: number, dropped: boolean): ChainDeposit {
    return {
      coin: this.settings.coin,
      network: this.settings.network,
      address: deposit.address,
      txHash: deposit.txid,
      outputIndex: deposit.vout,
      amount: toLedgerUnits(BigInt(deposit.sats), 8, this.settings.host.decimals(this.settings.coin)),
      confirmations,
      dropped,
      // Null while in no block (mempool, or back there after a reorg): a drop of it left the mempool.
      blockHash: deposit.block === null ? null : deposit.blockHash,
    };
  }
}

function decode(text: string): Cursor {
  return decodeStoredCursor(text, cursorSchema, "bitcoinChain()");
}
