import type { AllowedAddressRecord } from "../../../core/payouts/records";
import type { AllowlistReads, AllowlistStore } from "../../../core/ports/storage/index";
import { copy } from "./copy";
import { pick } from "./query";
import { conflict, deleteIn, missing, type Run, type Tables, type Undo, type Writes } from "./tables";

/** Oldest first: by creation time, then id. */
const oldestFirst = (a: AllowedAddressRecord, b: AllowedAddressRecord): number => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Whether two entries hold the same address of the same merchant, mode and network (the unique key). */
const sameAddress = (a: AllowedAddressRecord, b: Pick<AllowedAddressRecord, "merchantId" | "mode" | "network" | "addressKey">): boolean =>
  a.merchantId === b.merchantId && a.mode === b.mode && a.network === b.network && a.addressKey === b.addressKey;

/** The payout allowlists: reads. Scans of a few entries per merchant: fine for the reference adapter. */
export function allowlistReads(t: Tables, run: Run): AllowlistReads {
  return {
    getAllowedAddress: (id) => run("getAllowedAddress", () => pick(t.allowedAddresses.get(id), copy)),
    listAllowedAddresses: (merchantId, mode) =>
      run("listAllowedAddresses", () =>
        [...t.allowedAddresses.values()]
          .filter((entry) => entry.merchantId === merchantId && (mode === undefined || entry.mode === mode))
          .sort(oldestFirst)
          .map(copy),
      ),
    findAllowedAddress: (scope, network, addressKey) =>
      run("findAllowedAddress", () =>
        pick(
          [...t.allowedAddresses.values()].find((entry) => sameAddress(entry, { ...scope, network, addressKey })),
          copy,
        ),
      ),
  };
}

/** The payout allowlists: writes. */
export function allowlistWrites(t: Tables, run: Run, undo: Undo[]): Writes<AllowlistStore, AllowlistReads> {
  return {
    insertAllowedAddress: (entry) =>
      run("insertAllowedAddress", () => {
        if (t.allowedAddresses.has(entry.id)) conflict(`payout address ${entry.id}`);
        for (const other of t.allowedAddresses.values()) {
          if (sameAddress(other, entry)) conflict(`payout address ${entry.address} on ${entry.network} (${entry.mode}) of merchant ${entry.merchantId}`);
        }
        t.allowedAddresses.set(entry.id, copy(entry));
        undo.push(() => void t.allowedAddresses.delete(entry.id));
      }),
    // Transactions run one at a time here: the read is the lock.
    lockAllowedAddress: (id) => run("lockAllowedAddress", () => pick(t.allowedAddresses.get(id), copy)),
    updateAllowedAddress: (entry) =>
      run("updateAllowedAddress", () => {
        const current = t.allowedAddresses.get(entry.id);
        if (!current) missing(`payout address ${entry.id}`);
        for (const other of t.allowedAddresses.values()) {
          if (other.id !== entry.id && sameAddress(other, entry)) conflict(`payout address ${entry.address} on ${entry.network} (${entry.mode})`);
        }
        t.allowedAddresses.set(entry.id, copy(entry));
        undo.push(() => void t.allowedAddresses.set(entry.id, current));
      }),
    deleteAllowedAddress: (id) =>
      run("deleteAllowedAddress", () => {
        if (!t.allowedAddresses.has(id)) return false;
        deleteIn(t.allowedAddresses, id, undo);
        return true;
      }),
  };
}
