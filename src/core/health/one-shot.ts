import { ChainMismatchError, type ChainAdapter, type ChainSyncStatus } from "../ports/chain";
import type { CoreContext } from "../context";

/**
 * The parts of a one-shot health report (`payments.health({ oneShot: true })`): for a process
 * that runs no background work, such as the operator's command line, what the background work
 * would have known is read from the node and the storage instead.
 */

/** How one probe of a chain's node ended. */
export interface ChainProbe {
  /** The node serves another network than configured. */
  refused: boolean;
  /** Why the node could not be reached (scrubbed by the adapter), or null. */
  failure: string | null;
  sync: ChainSyncStatus | null;
  /** The height the stored cursor of the chain's feed has read to, or null. */
  storedHeight: number | null;
}

/** Runs `work` for at most `ms`. */
export type Within = <T>(ms: number, work: () => Promise<T>) => Promise<T>;

/** Checks the node (network, keys), reads its head, and reads how far the stored cursor got. */
export async function probeChain(context: CoreContext, chain: ChainAdapter, timeoutMs: number, within: Within): Promise<ChainProbe> {
  const storedHeight = await storedCursorHeight(context, chain, timeoutMs, within);
  try {
    await within(timeoutMs, async () => chain.ready?.());
    // The stored cursor's height stands for the scan this process never ran, block time included.
    const sync = chain.syncStatus
      ? await within(timeoutMs, () => chain.syncStatus!(storedHeight === null ? undefined : { scannedHeight: storedHeight }))
      : null;
    return { refused: false, failure: null, sync, storedHeight };
  } catch (error) {
    const refused = error instanceof ChainMismatchError || (error instanceof Error && error.name === "ChainMismatchError");
    return { refused, failure: refused ? null : error instanceof Error ? error.message : String(error), sync: null, storedHeight };
  }
}

async function storedCursorHeight(context: CoreContext, chain: ChainAdapter, timeoutMs: number, within: Within): Promise<number | null> {
  if (!chain.cursorHeight) return null;
  try {
    // The key the deposit sync keeps the live feed's cursor under (core/deposits/deposits.ts).
    const cursor = await within(timeoutMs, () => context.storage.getCursor(`deposits:live:${chain.feedId ?? chain.name}`));
    return cursor === null ? null : chain.cursorHeight(cursor);
  } catch {
    return null;
  }
}
