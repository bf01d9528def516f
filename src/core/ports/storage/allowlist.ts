import type { AllowedAddressRecord } from "../../payouts/records";
import type { Scope } from "./scope";

/**
 * Reads of the merchants' payout allowlists: the addresses payouts may go to while a merchant's
 * allowlist is on, per mode and network.
 */
export interface AllowlistReads {
  /** The address entry with this id, of any merchant and mode, or null (callers check the merchant). */
  getAllowedAddress(id: string): Promise<AllowedAddressRecord | null>;
  /** A merchant's entries, of one mode or both, oldest first by (createdAt, id); empty for an unknown merchant. */
  listAllowedAddresses(merchantId: string, mode?: Scope["mode"]): Promise<AllowedAddressRecord[]>;
  /** The entry of `scope` on `network` whose `addressKey` is exactly this, or null. */
  findAllowedAddress(scope: Scope, network: string, addressKey: string): Promise<AllowedAddressRecord | null>;
}

/**
 * The payout allowlists as a transaction sees them. An entry's id is unique, and so is its
 * (merchantId, mode, network, addressKey). Removing an entry deletes it: the audit log keeps the
 * history.
 */
export interface AllowlistStore extends AllowlistReads {
  /** Stores a new entry. Throws if its id exists, or an entry with its merchant, mode, network and addressKey does. */
  insertAllowedAddress(entry: AllowedAddressRecord): Promise<void>;
  /** The entry with this id, held until the transaction ends (an approval and a removal racing settle one after the other); null when missing. */
  lockAllowedAddress(id: string): Promise<AllowedAddressRecord | null>;
  /** Replaces the stored entry with the same id (which must exist: throws otherwise). */
  updateAllowedAddress(entry: AllowedAddressRecord): Promise<void>;
  /** Deletes the entry; false when no such entry exists. */
  deleteAllowedAddress(id: string): Promise<boolean>;
}
