import type { ChainAdapter, ChainDeposit } from "../../core/ports/chain";
import type { Storage } from "../../core/ports/storage/index";

/** Where a reader keeps its cursor between polls. */
export interface CursorStore {
  get(): Promise<string | null>;
  set(cursor: string): Promise<void>;
}

/** Pages one read may take before the suite calls the feed endless (`hasMore` never false). */
const MAX_PAGES = 1_000;

/** The identity of a transfer in the feed: network, txHash and outputIndex. */
export function transferKey(deposit: Pick<ChainDeposit, "network" | "txHash" | "outputIndex">): string {
  return `${deposit.network}:${deposit.txHash}#${deposit.outputIndex}`;
}

/** The cursor kept where core keeps it: the storage's named values, written after each page. */
export function storedCursor(storage: Storage, key: string): CursorStore {
  return {
    get: () => storage.getCursor(key),
    set: (cursor) => storage.transaction((tx) => tx.setCursor(key, cursor)),
  };
}

/** A cursor kept in memory, starting at `start`. */
export function memoryCursor(start: string | null): CursorStore {
  let cursor = start;
  return {
    get: async () => cursor,
    set: async (next) => void (cursor = next),
  };
}

/**
 * Reads an adapter's deposit feed the way core's deposit sync does: from the stored cursor,
 * storing each page's cursor after taking its deposits, page after page while `hasMore`. Keeps
 * every report in order, and every cursor it was handed, for the tests to judge.
 */
export class FeedReader {
  /** Every report read, in feed order. */
  readonly history: ChainDeposit[] = [];
  /** Every cursor the adapter returned, in order (as returned, whatever their type). */
  readonly cursors: unknown[] = [];

  constructor(
    private readonly adapter: ChainAdapter,
    private readonly cursor: CursorStore,
    private readonly limit = 100,
  ) {}

  /** One round of the deposit sync: every page until `hasMore` is false. Returns what it read. */
  async poll(): Promise<ChainDeposit[]> {
    const read: ChainDeposit[] = [];
    for (let page = 0; ; page++) {
      if (page === MAX_PAGES) throw new Error(`pollDeposits answered hasMore: true on ${MAX_PAGES} pages in a row; the feed never runs out`);
      const result = await this.adapter.pollDeposits(await this.cursor.get(), this.limit);
      read.push(...result.deposits);
      this.cursors.push(result.cursor);
      await this.cursor.set(result.cursor);
      if (!result.hasMore) break;
    }
    this.history.push(...read);
    return read;
  }

  /** The cursor a restarted sync would start from now. */
  stored(): Promise<string | null> {
    return this.cursor.get();
  }

  /** The last state read of each transfer. */
  latest(): Map<string, ChainDeposit> {
    return latestStates(this.history);
  }

  /** The last state read of the transfer `txHash` pays to `address` (the first such transfer), or undefined. */
  latestOf(address: string, txHash: string): ChainDeposit | undefined {
    return [...this.latest().values()].find((deposit) => deposit.address === address && deposit.txHash === txHash);
  }

  /** The last state of every transfer read to `address`. */
  latestTo(address: string): ChainDeposit[] {
    return [...this.latest().values()].filter((deposit) => deposit.address === address);
  }

  /** Every report read about transfers of `txHash`, in feed order. */
  reportsOf(txHash: string): ChainDeposit[] {
    return this.history.filter((deposit) => deposit.txHash === txHash);
  }
}

/** The last state of each transfer among `reports`, by transfer key. */
export function latestStates(reports: readonly ChainDeposit[]): Map<string, ChainDeposit> {
  const latest = new Map<string, ChainDeposit>();
  for (const report of reports) latest.set(transferKey(report), report);
  return latest;
}
