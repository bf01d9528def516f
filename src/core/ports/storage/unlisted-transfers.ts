import type { Mode } from "../../merchants/records";
import type { UnlistedTransferRecord } from "../../deposits/records";

/**
 * Reads of unlisted-token transfers (tokens sent to an issued address that the service does not
 * list). Optional: part of the `operatorReport` part (with `NotableDepositReads`), which only the
 * operator report reads; the chain scan stores them through `UnlistedTransferStore` either way.
 */
export interface UnlistedTransferReads {
  /** Every unlisted-token transfer stored in `mode`, whatever the merchant, in the order stored. */
  listUnlistedTransfers(mode: Mode): Promise<UnlistedTransferRecord[]>;
}

/**
 * Unlisted-token transfers, as a transaction sees them: stored once per chain identity
 * (mode, network, txHash, logIndex), never credited, kept for the operator report.
 */
export interface UnlistedTransferStore {
  /**
   * Stores an unlisted-token transfer unless one with the same (mode, network, txHash,
   * logIndex) is stored already. Returns true when it stored it, false for a repeat (the stored
   * one is kept as it was): a chain adapter may report a transfer more than once.
   */
  insertUnlistedTransfer(transfer: UnlistedTransferRecord): Promise<boolean>;
}
