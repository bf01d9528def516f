import type { ChainSyncStatus } from "../ports/chain";

/** How far a chain's scanner stands behind its node's head: in blocks, and in seconds of chain time. */
export interface ScannerLag {
  blocks: number;
  seconds: number;
}

/**
 * The scanner's lag from one sync status, or null before its first scan. The seconds come from
 * the blocks' own timestamps when the adapter reports them: the head's less that of the first
 * block the scanner has not read, i.e. how long (in the chain's time) blocks have waited
 * unread. Six regtest blocks mined in a second are a second behind, two quick Bitcoin blocks
 * are not twenty minutes, and a block that came after an hour's gap is not an hour behind (the
 * gap was before it existed). A scanner at the head is 0 s behind. Only an adapter that
 * reports no block times has its lag estimated as blocks x `blockSeconds`.
 */
export function scannerLag(status: ChainSyncStatus, scannedHeight: number | null = status.scannedHeight): ScannerLag | null {
  if (scannedHeight === null) return null;
  const blocks = Math.max(0, status.nodeHeight - scannedHeight);
  if (blocks === 0) return { blocks, seconds: 0 };
  // The block times are of the adapter's own scanned height: another height (an operator's
  // stored cursor the adapter was not told of) falls back to the estimate.
  const head = status.nodeBlockTime;
  const unscanned = scannedHeight === status.scannedHeight ? status.unscannedBlockTime : undefined;
  const seconds = head && unscanned ? Math.max(0, Math.round((head.getTime() - unscanned.getTime()) / 1000)) : blocks * status.blockSeconds;
  return { blocks, seconds };
}
