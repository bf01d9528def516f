import type { AddressRecord } from "../../deposits/records";
import type { Mode } from "../../merchants/records";

/**
 * Reads of the address book: every deposit address the service issued, keyed by (mode,
 * network, address) and compared exactly (another case is another address). Chain watchers
 * ask it which of the addresses they see are ours; it is not scoped, as a chain knows no
 * merchant.
 */
export interface AddressReads {
  /** The issued address on `network` in `mode`, or null if this service never issued it. */
  findAddress(mode: Mode, network: string, address: string): Promise<AddressRecord | null>;
  /**
   * The issued addresses among `addresses` on `network` in `mode`, in no promised order (those
   * never issued are left out; a repeated address comes back once). One read however many are
   * asked for: a chain watcher asks for every recipient of a block at once.
   */
  findAddresses(mode: Mode, network: string, addresses: readonly string[]): Promise<AddressRecord[]>;
}

/** The address book, as a transaction sees it: (mode, network, address) is unique. */
export interface AddressStore extends AddressReads {
  /** Stores an issued address. Throws if (mode, network, address) exists. */
  insertAddress(address: AddressRecord): Promise<void>;
  /**
   * Replaces the stored address with the same (mode, network, address), which must exist
   * (throws otherwise): an address handed out again points at its new invoice (and merchant),
   * so that what is sent to it from then on is credited there.
   */
  updateAddress(address: AddressRecord): Promise<void>;
}
