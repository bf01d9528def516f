import type { CompleteStorage, CompleteStorageTransaction, StorageReads } from "../../../core/ports/storage/index";
import { Mutex } from "../mutex";
import { addressReads, addressWrites } from "./addresses";
import { allowlistReads, allowlistWrites } from "./allowlist";
import { auditLogReads, auditLogWrites } from "./audit-log";
import { cursorReads, cursorWrites } from "./cursors";
import { depositReads, depositWrites } from "./deposits";
import { exchangeReads, exchangeWrites } from "./exchanges";
import { exportReads } from "./exports";
import { idempotencyWrites } from "./idempotency";
import { invoiceReads, invoiceWrites } from "./invoices";
import { ledgerReads, ledgerWrites } from "./ledger";
import { merchantReads, merchantWrites } from "./merchants";
import { operatorListReads } from "./operator-lists";
import { paymentLinkReads, paymentLinkWrites } from "./payment-links";
import { payoutReads, payoutWrites } from "./payouts";
import { reconcileReads } from "./reconcile";
import { subscriptionReads, subscriptionWrites } from "./subscriptions";
import { type Run, Tables, type Undo } from "./tables";
import { unlistedTransferReads, unlistedTransferWrites } from "./unlisted-transfers";
import { webhookBacklogReads } from "./webhook-backlog";
import { webhookEndpointReads, webhookEndpointWrites } from "./webhook-endpoints";
import { webhookOutboxReads, webhookOutboxWrites } from "./webhook-outbox";

/** The intersection of the members of a union: what an object assembled from all of them has. */
type All<U> = (U extends unknown ? (part: U) => void : never) extends (part: infer I) => void ? I : never;

/**
 * One object with the methods of every part. Object.assign into one fresh object, not spread:
 * a transaction assembles its tx this way each time, and spreading as many properties
 * dominated its cost.
 */
function assemble<Parts extends object[]>(...parts: Parts): All<Parts[number]> {
  return Object.assign({}, ...parts) as All<Parts[number]>;
}

/** The reads of every part, each made through `run`. */
function reads(t: Tables, run: Run) {
  return [
    merchantReads(t, run),
    invoiceReads(t, run),
    addressReads(t, run),
    depositReads(t, run),
    ledgerReads(t, run),
    payoutReads(t, run),
    exchangeReads(t, run),
    paymentLinkReads(t, run),
    webhookEndpointReads(t, run),
    webhookOutboxReads(t, run),
    webhookBacklogReads(t, run),
    cursorReads(t, run),
    unlistedTransferReads(t, run),
    operatorListReads(t, run),
    reconcileReads(t, run),
    exportReads(t, run),
    auditLogReads(t, run),
    allowlistReads(t, run),
    subscriptionReads(t, run),
  ] as const;
}

/** The writes of every part, each made through `run` and logging its undo in `undo`. */
function writes(t: Tables, run: Run, undo: Undo[]) {
  return [
    merchantWrites(t, run, undo),
    invoiceWrites(t, run, undo),
    addressWrites(t, run, undo),
    depositWrites(t, run, undo),
    ledgerWrites(t, run, undo),
    payoutWrites(t, run, undo),
    exchangeWrites(t, run, undo),
    paymentLinkWrites(t, run, undo),
    webhookEndpointWrites(t, run, undo),
    webhookOutboxWrites(t, run, undo),
    idempotencyWrites(t, run, undo),
    cursorWrites(t, run, undo),
    unlistedTransferWrites(t, run, undo),
    auditLogWrites(t, run, undo),
    allowlistWrites(t, run, undo),
    subscriptionWrites(t, run, undo),
  ] as const;
}

/**
 * Storage kept in process memory: nothing survives a restart. Meant for tests, examples and
 * single-process trials; it is the reference implementation of the `Storage` contract.
 *
 * All transactions run one at a time (a FIFO mutex), which gives every `lock*` its meaning.
 * A transaction writes straight into the tables and keeps an undo log that is replayed if its
 * work throws. Reads made on the storage object itself wait their turn behind a running
 * transaction, so they only ever see committed data.
 *
 * A transaction's work must read and write through its `tx` only: calling the storage object
 * (`transaction` or a read) from inside it would wait for that very transaction. No async
 * context tracks this, because tracking one costs every promise in the process on Node 20.
 */
export function memoryStorage(): CompleteStorage {
  const tables = new Tables();
  const mutex = new Mutex();

  const outsideRead = async <T>(_method: string, read: () => T): Promise<T> => {
    if (mutex.idle) return read();
    await mutex.acquire();
    try {
      return read();
    } finally {
      mutex.release();
    }
  };
  const storageReads: Required<StorageReads> = assemble(...reads(tables, outsideRead));

  return {
    ...storageReads,

    async transaction<T>(work: (tx: CompleteStorageTransaction) => Promise<T>): Promise<T> {
      await mutex.acquire();
      const state = { active: true };
      const undo: Undo[] = [];
      const inTransaction = async <R>(method: string, operation: () => R): Promise<R> => {
        if (!state.active) {
          throw new Error(`memoryStorage: tx.${method}() was called after its transaction ended`);
        }
        return operation();
      };
      const tx: CompleteStorageTransaction = assemble(...reads(tables, inTransaction), ...writes(tables, inTransaction, undo));
      try {
        return await work(tx);
      } catch (error) {
        for (let i = undo.length - 1; i >= 0; i--) undo[i]?.();
        throw error;
      } finally {
        state.active = false;
        mutex.release();
      }
    },

    async close(): Promise<void> {},
  };
}
