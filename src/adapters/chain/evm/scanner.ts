import { getAddress, type Address, type Block, type PublicClient, type Transaction } from "viem";
import type { ChainDeposit, ChainHost, DepositFeedPage, IssuedAddress } from "../../../core/ports/chain";
import { chainedPrefix, rewindOnReorg } from "../block-cursor";
import { applyRescan, type RescanRequest } from "../rescan-request";
import { decodeCursor, encodeCursor, type ScanCursor, type TrackedDeposit, type TrackedUnlisted } from "./cursor";
import { InternalTransferReader } from "./internal-transfers";
import { TransferLogReader, type TransferLog } from "./transfer-logs";
import { toLedgerUnits } from "../units";

/** A coin the adapter watches on its network: the native coin (token null) or an ERC-20. */
export interface WatchedAsset {
  coin: string;
  /** The ERC-20 contract, checksummed; null for the network's native coin. */
  token: Address | null;
  /** Decimals on chain (18 for the native coin, the token's own otherwise). */
  chainDecimals: number;
}

/** What the scanner needs besides its cursor. */
export interface ScannerSettings {
  client: PublicClient;
  chainId: () => Promise<number>;
  network: string;
  assets: readonly WatchedAsset[];
  host: ChainHost;
  /** Confirmations after which a deposit of `coin` is final and no longer followed. */
  confirmations: (coin: string) => number;
  /** Most blocks read by one poll. */
  blocksPerPoll: number;
  /** Where the very first scan starts; null: a reorg window back from the head. */
  startBlock: number | null;
  /** Whether native coin sent by contracts' internal calls is found (debug_traceBlockByHash). */
  internalTransfers: boolean;
  /** Called with deposits that just became final (the consolidation list takes them). */
  onFinal: (deposits: readonly TrackedDeposit[]) => Promise<void>;
}

/**
 * Output indexes: the native coin a transaction itself carries is 0; native coin moved by an
 * internal call is 1 + the frame's position in the call tree; an ERC-20 Transfer log is
 * TOKEN_INDEX + its position among the watched tokens' Transfer logs of its transaction. All
 * three depend on the transaction alone, not on the block it lands in, so a transfer re-mined
 * after a reorg keeps its identity and is credited once.
 */
const TOKEN_INDEX = 1_000_000;

/** One transfer to an issued address found in a block. */
interface Found {
  coin: string;
  issued: IssuedAddress;
  txHash: string;
  index: number;
  /** In ledger units. */
  amount: bigint;
}

/** A transfer before we know whether its recipient is ours. */
interface Candidate {
  asset: WatchedAsset;
  to: Address;
  txHash: string;
  index: number;
  value: bigint;
}

/**
 * Follows the chain block by block from a cursor: finds ERC-20 transfers (one eth_getLogs per
 * poll), native coin in block transactions and, with traces, native coin from internal calls,
 * to addresses the service issued (one storage lookup per poll for all recipients), whatever
 * coin each address was issued for. RPC calls and lookups per block do not grow with the number
 * of open invoices. Reorgs are found by comparing the stored hashes of the blocks read with the
 * chain's: the scanner rewinds to the fork, reports the deposits of orphaned blocks as
 * dropped and reads the new branch, where a re-mined transfer is found again.
 *
 * When the host records unlisted tokens (`ChainHost.reportUnlisted`), the same eth_getLogs
 * asks for the Transfer event of every contract (by its topic alone): a Transfer of a token the
 * chain does not list to an issued address is held in the cursor until final, then reported
 * once. It is never a deposit, so never credited nor swept.
 */
export class EvmScanner {
  private readonly native: WatchedAsset | undefined;
  private readonly tokens: ReadonlyMap<string, WatchedAsset>;
  /** Transfer logs of the watched tokens, or of every contract when the host records unlisted tokens. */
  private readonly transferLogs: TransferLogReader;
  /** Native coin from internal calls; null when not asked for or there is no native coin to watch. */
  private readonly internal: InternalTransferReader | null;

  constructor(private readonly settings: ScannerSettings) {
    this.native = settings.assets.find((asset) => asset.token === null);
    this.tokens = new Map(settings.assets.filter((asset) => asset.token !== null).map((asset) => [asset.token!.toLowerCase(), asset]));
    const unlisted = typeof settings.host.reportUnlisted === "function";
    this.transferLogs = new TransferLogReader(settings.client, unlisted ? null : [...this.tokens.values()].map((asset) => asset.token!));
    this.internal = settings.internalTransfers && this.native ? new InternalTransferReader(settings.client, settings.network, settings.host) : null;
  }

  /** How many block hashes are kept: enough to see a reorg of any deposit not yet final. */
  private get window(): number {
    return Math.max(32, this.finalDepth + 8);
  }

  /** Confirmations after which every watched coin is final; an unlisted-token transfer is reported then. */
  private get finalDepth(): number {
    return Math.max(1, ...this.settings.assets.map((asset) => this.settings.confirmations(asset.coin)));
  }

  /** One page of the deposit feed (see `ChainAdapter.pollDeposits`). */
  async poll(cursorText: string | null, rescan: RescanRequest | null = null): Promise<DepositFeedPage> {
    const { client } = this.settings;
    const chainId = await this.settings.chainId();
    const head = Number(await client.getBlockNumber());
    const cursor = cursorText === null ? this.initial(chainId, head) : decodeCursor(cursorText);
    if (cursor.chainId !== chainId) {
      throw new Error(
        `the ${this.settings.network} node is on chain ${chainId}, but the stored deposit cursor was made on chain ${cursor.chainId}; point rpcUrl at the right network`,
      );
    }
    // A recovery rescan not applied yet: read again from there (what is found again is followed
    // and reported once more, and applied idempotently).
    applyRescan(cursor, rescan);
    const reports: ChainDeposit[] = [];
    await this.rewindOnReorg(cursor, head, reports);

    const from = cursor.height;
    const to = Math.min(head, cursor.height + this.settings.blocksPerPoll);
    if (to > cursor.height) await this.scan(cursor, cursor.height + 1, to, head, reports);
    await this.follow(cursor, head, reports);

    cursor.hashes = cursor.hashes.slice(-this.window);
    // A read cut short by a chain changing under it made no progress: the next round retries,
    // rather than this sync spinning on a node that keeps answering for another branch.
    return { deposits: reports, cursor: encodeCursor(cursor), hasMore: cursor.height > from && cursor.height < head };
  }

  private initial(chainId: number, head: number): ScanCursor {
    const start = this.settings.startBlock ?? Math.max(0, head - this.window);
    return { v: 1, chainId, height: start - 1, hashes: [], tracked: [] };
  }

  /** Rewinds to the fork after a reorg; the deposits of orphaned blocks are reported dropped. */
  private async rewindOnReorg(cursor: ScanCursor, head: number, reports: ChainDeposit[]): Promise<void> {
    const fork = await rewindOnReorg(cursor, head, (height) => this.hashAt(height), this.settings.host, this.settings.network);
    if (fork === null) return;
    const kept: TrackedDeposit[] = [];
    for (const deposit of cursor.tracked) {
      if (deposit.block > fork) reports.push(this.report(deposit, 0, true));
      else kept.push(deposit);
    }
    cursor.tracked = kept;
    // Unlisted transfers are reported only once final: one that a reorg took off is forgotten.
    this.keepUnlisted(
      cursor,
      (cursor.unlisted ?? []).filter((transfer) => transfer.block <= fork),
    );
  }

  private async hashAt(height: number): Promise<string | null> {
    const block = await this.settings.client.getBlock({ blockNumber: BigInt(height) });
    return block.hash;
  }

  /**
   * Reads blocks `from`..`to`. If the chain changes under the read (a block whose parent is not
   * the block read before it, or logs from another block), it stops before that block: the next
   * poll sees the reorg through the stored hashes.
   */
  private async scan(cursor: ScanCursor, from: number, to: number, head: number, reports: ChainDeposit[]): Promise<void> {
    const { client } = this.settings;
    const heights = Array.from({ length: Math.min(to, from + this.transferLogs.maxSpan - 1) - from + 1 }, (_, i) => from + i);
    const [blocks, { logs, to: covered }] = await Promise.all([
      Promise.all(heights.map((height) => client.getBlock({ blockNumber: BigInt(height), includeTransactions: true }))),
      this.transferLogs.read(from, heights.at(-1)!),
    ]);

    // Keep the prefix of blocks that chains onto what was read before (and that the logs cover).
    const read = chainedPrefix(blocks.slice(0, covered - from + 1), cursor.hashes.at(-1), (block) => ({
      height: Number(block.number),
      hash: block.hash!,
      parentHash: block.parentHash,
    }));
    const hashByHeight = new Map(read.map((block) => [Number(block.number), block.hash!]));
    let last = from - 1 + read.length;
    for (const log of logs) {
      const height = Number(log.blockNumber);
      if (height <= last && hashByHeight.get(height) !== log.blockHash) last = Math.min(last, height - 1);
    }
    const candidates: Array<Candidate & { block: Block<bigint, true> }> = [];
    for (const block of read.filter((entry) => Number(entry.number) <= last)) {
      if (this.internal && this.native) {
        const internal = await this.internal.read(block);
        if (internal === null) {
          last = Number(block.number) - 1; // Traces of another block at this height: a reorg under the read.
          break;
        }
        // The index: 1 + the frame's position in the call tree (see TOKEN_INDEX).
        for (const frame of internal)
          candidates.push({ asset: this.native, to: frame.to, txHash: frame.txHash, index: 1 + frame.position, value: frame.value, block });
      }
      for (const candidate of this.nativeTransfers(block.transactions)) candidates.push({ ...candidate, block });
    }
    const kept = read.filter((block) => Number(block.number) <= last);
    if (kept.length === 0) return;
    const blockAt = new Map(kept.map((block) => [Number(block.number), block]));
    const ordinals = new Map<string, number>();
    const unlisted: Array<{ log: TransferLog; to: Address; value: bigint; block: Block<bigint, true> }> = [];
    for (const log of logs) {
      const block = blockAt.get(Number(log.blockNumber));
      if (!block || log.args.to === undefined || log.args.value === undefined || log.transactionHash === null) continue;
      const asset = this.tokens.get(log.address.toLowerCase());
      if (!asset) {
        // Another contract's Transfer: an ERC-20's has three topics (an ERC-721's has four).
        if (log.topics.length === 3 && log.args.value > 0n && log.logIndex !== null)
          unlisted.push({ log, to: getAddress(log.args.to), value: log.args.value, block });
        continue;
      }
      // The position counts the watched tokens' logs only, as it always has: a deposit's
      // identity must not change when another contract's logs share its transaction.
      const position = ordinals.get(log.transactionHash) ?? 0;
      ordinals.set(log.transactionHash, position + 1);
      candidates.push({ asset, to: getAddress(log.args.to), txHash: log.transactionHash, index: TOKEN_INDEX + position, value: log.args.value, block });
    }

    const recipients = new Set([...candidates.map((candidate) => candidate.to), ...unlisted.map((transfer) => transfer.to)]);
    const issued = await this.settings.host.issuedAddresses(this.settings.network, [...recipients]);
    const ours = new Map(issued.map((entry) => [entry.address, entry]));
    const held = [...(cursor.unlisted ?? [])];
    for (const { log, to, value, block } of unlisted) {
      if (!ours.has(to)) continue;
      const transfer: TrackedUnlisted = {
        token: getAddress(log.address),
        address: to,
        txHash: log.transactionHash!,
        logIndex: log.logIndex!,
        amount: String(value),
        block: Number(block.number),
        blockHash: block.hash!,
      };
      // Read again after a rewind: held once.
      if (!held.some((entry) => entry.txHash === transfer.txHash && entry.logIndex === transfer.logIndex)) held.push(transfer);
    }
    this.keepUnlisted(cursor, held);
    for (const candidate of candidates) {
      const owner = ours.get(candidate.to);
      if (!owner) continue;
      const amount = toLedgerUnits(candidate.value, candidate.asset.chainDecimals, this.settings.host.decimals(candidate.asset.coin));
      if (amount === 0n) continue; // Dust below the ledger's smallest unit.
      const found: Found = { coin: candidate.asset.coin, issued: owner, txHash: candidate.txHash, index: candidate.index, amount };
      const height = Number(candidate.block.number);
      const confirmations = head - height + 1;
      const tracked: TrackedDeposit = {
        coin: found.coin,
        address: owner.address,
        invoiceId: owner.invoiceId,
        txHash: found.txHash,
        index: found.index,
        amount: String(found.amount),
        block: height,
        blockHash: candidate.block.hash!,
        reported: confirmations,
      };
      // The same transfer can be found again (a rewind re-reads blocks): follow it once.
      cursor.tracked = cursor.tracked.filter((entry) => !(entry.txHash === tracked.txHash && entry.index === tracked.index));
      cursor.tracked.push(tracked);
      reports.push(this.report(tracked, confirmations, false));
    }
    for (const block of kept) cursor.hashes.push([Number(block.number), block.hash!]);
    cursor.height = last;
  }

  /** Stores the unlisted transfers held, leaving the cursor as it was when there are none. */
  private keepUnlisted(cursor: ScanCursor, held: TrackedUnlisted[]): void {
    if (held.length > 0) cursor.unlisted = held;
    else delete cursor.unlisted;
  }

  /** Native coin carried by the block's transactions themselves (index 0). */
  private nativeTransfers(transactions: readonly Transaction[]): Candidate[] {
    if (!this.native) return [];
    const found: Candidate[] = [];
    for (const tx of transactions) {
      // A value transfer to an address without code cannot fail, and deposit addresses never keep code.
      if (tx.to && tx.value > 0n) found.push({ asset: this.native, to: getAddress(tx.to), txHash: tx.hash, index: 0, value: tx.value });
    }
    return found;
  }

  /**
   * Reports changed confirmations of followed deposits until they are final. A final deposit is
   * handed to `onFinal` once, and then still watched (silently) while its block is within the
   * remembered hashes: a reorg deeper than its confirmations is then reported as a drop, so the
   * service can take its credit back. Past the window it is let go.
   */
  private async follow(cursor: ScanCursor, head: number, reports: ChainDeposit[]): Promise<void> {
    const kept: TrackedDeposit[] = [];
    const final: TrackedDeposit[] = [];
    for (const deposit of cursor.tracked) {
      const required = this.settings.confirmations(deposit.coin);
      const confirmations = Math.max(0, head - deposit.block + 1);
      if (confirmations !== deposit.reported && (deposit.reported < required || confirmations < required)) {
        deposit.reported = confirmations;
        reports.push(this.report(deposit, confirmations, false));
      }
      if (confirmations >= required && !deposit.settled) {
        deposit.settled = true;
        final.push(deposit);
      }
      if (confirmations < required || deposit.block > cursor.height - this.window) kept.push(deposit);
    }
    cursor.tracked = kept;
    if (final.length > 0) await this.settings.onFinal(final);

    // Before the cursor that forgets them is stored: a report repeated after a crash is a no-op.
    const held: TrackedUnlisted[] = [];
    for (const transfer of cursor.unlisted ?? []) {
      if (head - transfer.block + 1 < this.finalDepth) {
        held.push(transfer);
        continue;
      }
      await this.settings.host.reportUnlisted?.({
        network: this.settings.network,
        token: transfer.token,
        address: transfer.address,
        txHash: transfer.txHash,
        logIndex: transfer.logIndex,
        amount: BigInt(transfer.amount),
        blockNumber: transfer.block,
      });
    }
    this.keepUnlisted(cursor, held);
  }

  private report(deposit: TrackedDeposit, confirmations: number, dropped: boolean): ChainDeposit {
    return {
      coin: deposit.coin,
      network: this.settings.network,
      address: deposit.address,
      txHash: deposit.txHash,
      outputIndex: deposit.index,
      amount: BigInt(deposit.amount),
      confirmations,
      dropped,
      // The block it was found in; for a drop, the orphaned block it left.
      blockHash: deposit.blockHash,
    };
  }
}
