import type { ChainSyncStatus } from "./ports/chain";

/** How far a chain's scanner stands behind its node's head: in blocks, and in seconds of chain time. */
export interface ScannerLag {
  blocks: number;
  seconds: number;
}

/**
 * The scanner's lag from one sync status, or null before its first scan. The seconds come
 * from the two blocks' own timestamps (the head's less the last scanned block's) when the
 * adapter reports them: six regtest blocks mined in a second are a second behind, and two
 * quick Bitcoin blocks are not twenty minutes. A scanner at the head is 0 s behind, whatever
 * the timestamps (Bitcoin's may even run backwards by a block). Only an adapter that reports
 * no block times has its lag estimated as blocks x `blockSeconds`.
 */
export function scannerLag(status: ChainSyncStatus, scannedHeight: number | null = status.scannedHeight): ScannerLag | null {
  if (scannedHeight === null) return null;
  const blocks = Math.max(0, status.nodeHeight - scannedHeight);
  if (blocks === 0) return { blocks, seconds: 0 };
  // A scanned time is of the adapter's own scanned height: an operator's stored cursor (another
  // height) falls back to the estimate.
  const timed = scannedHeight === status.scannedHeight && status.nodeBlockTime && status.scannedBlockTime;
  const seconds = timed ? Math.max(0, Math.round((status.nodeBlockTime!.getTime() - status.scannedBlockTime!.getTime()) / 1000)) : blocks * status.blockSeconds;
  return { blocks, seconds };
}
