import type { ChainSyncStatus } from "../../core/ports/chain";

/**
 * A sync status with the timestamps of the node's head and of the scanned block, read with
 * `blockTime` (seconds since the epoch, as every chain's block header has it): one read when
 * the scan is at the head or has not started, two otherwise. Shared by the chain adapters so
 * that health and the lag gauge measure lag in chain time, not in blocks x a typical block time.
 */
export async function withBlockTimes(status: ChainSyncStatus, blockTime: (height: number) => Promise<number>): Promise<ChainSyncStatus> {
  const { nodeHeight, scannedHeight } = status;
  const head = await blockTime(nodeHeight);
  const nodeBlockTime = new Date(head * 1000);
  if (scannedHeight === null) return { ...status, nodeBlockTime, scannedBlockTime: null };
  // A scan past the node's head (a node that was reset or is still syncing) is not behind it.
  const scanned = scannedHeight >= nodeHeight ? head : await blockTime(scannedHeight);
  return { ...status, nodeBlockTime, scannedBlockTime: new Date(scanned * 1000) };
}
