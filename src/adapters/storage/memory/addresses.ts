import type { AddressRecord } from "../../../core/deposits/records";
import type { AddressReads, AddressStore } from "../../../core/ports/storage/index";
import { copy } from "./copy";
import { pick } from "./query";
import { addressKey, conflict, missing, type Run, setIn, type Tables, type Undo, type Writes } from "./tables";

/** The address book: reads. */
export function addressReads(t: Tables, run: Run): AddressReads {
  return {
    findAddress: (mode, network, address) => run("findAddress", () => pick(t.addresses.get(addressKey(mode, network, address)), copy)),
    findAddresses: (mode, network, addresses) =>
      run("findAddresses", () => {
        const found: AddressRecord[] = [];
        // A Set: an address asked for twice comes back once.
        for (const address of new Set(addresses)) {
          const record = t.addresses.get(addressKey(mode, network, address));
          if (record) found.push(copy(record));
        }
        return found;
      }),
  };
}

/** The address book: writes. */
export function addressWrites(t: Tables, run: Run, undo: Undo[]): Writes<AddressStore, AddressReads> {
  return {
    insertAddress: (address) =>
      run("insertAddress", () => {
        const key = addressKey(address.mode, address.network, address.address);
        if (t.addresses.has(key)) conflict(`address ${address.address} on ${address.network} (${address.mode})`);
        setIn(t.addresses, key, copy(address), undo);
      }),
    updateAddress: (address) =>
      run("updateAddress", () => {
        const key = addressKey(address.mode, address.network, address.address);
        if (!t.addresses.has(key)) missing(`address ${address.address} on ${address.network} (${address.mode})`);
        setIn(t.addresses, key, copy(address), undo);
      }),
  };
}
