import type { z } from "zod";
import type { ChainHost } from "../../core/ports/chain";

/**
 * What the block scanners of every chain family share: finding where the chain forked from the
 * blocks they read, keeping only the blocks of one branch, and reading their stored cursors back.
 */

/** The part of a scanner's cursor that follows the chain: the last block read and the hashes of the newest. */
export interface BlockTrail {
  height: number;
  /** [height, hash] of the newest blocks read, oldest first. */
  hashes: Array<[number, string]>;
}

/**
 * Compares the newest stored block hash with the chain's; on a mismatch walks back to the newest
 * block both agree on (hashes chain, so every block below it agrees too) and rewinds the trail
 * there, logging it. A reorg deeper than the remembered hashes rewinds as far as they go.
 * Returns the fork height, or null when the chain still has the newest block read.
 */
export async function rewindOnReorg(
  trail: BlockTrail,
  head: number,
  hashAt: (height: number) => Promise<string | null>,
  host: ChainHost,
  network: string,
): Promise<number | null> {
  let fork: number | null = null;
  for (let i = trail.hashes.length - 1; i >= 0; i--) {
    const [height, hash] = trail.hashes[i]!;
    if (height <= head && (await hashAt(height)) === hash) {
      if (i < trail.hashes.length - 1) fork = height;
      break;
    }
    if (i === 0) fork = height - 1;
  }
  if (fork === null) return null;
  host.logger.warn(`${network}: reorg below block ${trail.height}; rewinding to ${fork}`);
  trail.hashes = trail.hashes.filter(([height]) => height <= fork);
  trail.height = fork;
  return fork;
}

/** Where a block sits in the chain, as {@link chainedPrefix} reads it. */
export interface BlockLink {
  height: number;
  hash: string;
  /** The hash of its parent; undefined only for a genesis block. */
  parentHash: string | undefined;
}

/**
 * The leading blocks of `blocks` (consecutive heights, oldest first) that chain onto `last`, the
 * newest [height, hash] read before, and onto each other. The read stops at the first block
 * whose parent is not the block before it: the chain changed under the read (a reorg), and the
 * next poll finds the fork through the stored hashes rather than this one mixing two branches.
 * `link` says where a block sits, in whatever shape the chain family's client gives blocks.
 */
export function chainedPrefix<B>(blocks: readonly B[], last: readonly [number, string] | undefined, link: (block: B) => BlockLink): B[] {
  let parent = last;
  const kept: B[] = [];
  for (const block of blocks) {
    const { height, hash, parentHash } = link(block);
    // Only a block right above the one before can be checked; a gap (no hashes stored yet) is not a fork.
    if (parent && parent[0] === height - 1 && parent[1] !== parentHash) break;
    parent = [height, hash];
    kept.push(block);
  }
  return kept;
}

/** A stored cursor read back; throws when it was not written by `adapter` (or is damaged). */
export function decodeStoredCursor<T>(text: string, schema: z.ZodType<T>, adapter: string): T {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new RangeError(`the stored deposit cursor is not JSON; it was not written by ${adapter}`);
  }
  const result = schema.safeParse(parsed);
  if (!result.success) throw new RangeError(`the stored deposit cursor has an unknown shape; it was not written by this version of ${adapter}`);
  return result.data;
}
