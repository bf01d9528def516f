import type { ChainSyncStatus } from "../../core/ports/chain";

/**
 * A sync status with the timestamps of the node's head and of the first block the scanner has
 * not read, read with `blockTime` (seconds since the epoch, as every chain's block header has
 * it): one read when the scan is at the head or has not started, two otherwise. Shared by the
 * chain adapters so that health and the lag gauge measure lag in chain time, not in blocks x a
 * typical block time.
 */
export async function withBlockTimes(status: ChainSyncStatus, blockTime: (height: number) => Promise<number>): Promise<ChainSyncStatus> {
  const { nodeHeight, scannedHeight } = status;
  const head = await blockTime(nodeHeight);
  const nodeBlockTime = new Date(head * 1000);
  // Not started, or at (or past: a node reset or still syncing) the head: nothing waits unread.
  if (scannedHeight === null || scannedHeight >= nodeHeight) return { ...status, nodeBlockTime, unscannedBlockTime: null };
  const next = scannedHeight + 1 === nodeHeight ? head : await blockTime(scannedHeight + 1);
  return { ...status, nodeBlockTime, unscannedBlockTime: new Date(next * 1000) };
}
