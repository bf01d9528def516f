import type { UnlistedTransferReads, UnlistedTransferStore } from "../../../core/ports/storage/index";
import { copy } from "./copy";
import { chainKey, type Run, setIn, type Tables, type Undo, type Writes } from "./tables";

/** Unlisted-token transfers: reads. */
export function unlistedTransferReads(t: Tables, run: Run): UnlistedTransferReads {
  return {
    listUnlistedTransfers: (mode) =>
      run("listUnlistedTransfers", () => [...t.unlistedTransfers.values()].filter((transfer) => transfer.mode === mode).map(copy)),
  };
}

/** Unlisted-token transfers: writes. */
export function unlistedTransferWrites(t: Tables, run: Run, undo: Undo[]): Writes<UnlistedTransferStore, UnlistedTransferReads> {
  return {
    insertUnlistedTransfer: (transfer) =>
      run("insertUnlistedTransfer", () => {
        const key = chainKey(transfer.mode, transfer.network, transfer.txHash, transfer.logIndex);
        if (t.unlistedTransfers.has(key)) return false;
        setIn(t.unlistedTransfers, key, copy(transfer), undo);
        return true;
      }),
  };
}
