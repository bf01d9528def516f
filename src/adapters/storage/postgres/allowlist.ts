import type { AllowlistReads, AllowlistStore } from "../../../core/ports/storage/index";
import type { SqlQueryable } from "./sql-client";
import { allowedAddressColumns } from "./statements/allowlist";
import type { Statements } from "./statements/index";

/** The payout allowlists' reads, over a connection (see `sqlReads`). */
export function sqlAllowlistReads(db: SqlQueryable, s: Statements): AllowlistReads {
  return {
    getAllowedAddress: async (id) => {
      const row = (await db.query(s.getAllowedAddress, [id])).rows[0];
      return row === undefined ? null : allowedAddressColumns.read(row);
    },
    listAllowedAddresses: async (merchantId, mode) => (await db.query(s.listAllowedAddresses, [merchantId, mode ?? null])).rows.map(allowedAddressColumns.read),
    findAllowedAddress: async (scope, network, addressKey) => {
      const row = (await db.query(s.findAllowedAddress, [scope.merchantId, scope.mode, network, addressKey])).rows[0];
      return row === undefined ? null : allowedAddressColumns.read(row);
    },
  };
}

/** The payout allowlists' writes, over one transaction's connection (see `sqlWrites`). */
export function sqlAllowlistWrites(db: SqlQueryable, s: Statements): Omit<AllowlistStore, keyof AllowlistReads> {
  return {
    insertAllowedAddress: async (entry) => {
      if ((await db.query(s.insertAllowedAddress, allowedAddressColumns.params(entry))).rowCount === 0) {
        throw new Error(
          `postgresStorage: payout address ${entry.id} (or ${entry.address} on ${entry.network}, ${entry.mode}) exists already (unique constraint)`,
        );
      }
    },
    lockAllowedAddress: async (id) => {
      const row = (await db.query(s.lockAllowedAddress, [id])).rows[0];
      return row === undefined ? null : allowedAddressColumns.read(row);
    },
    updateAllowedAddress: async (entry) => {
      if ((await db.query(s.updateAllowedAddress, allowedAddressColumns.params(entry))).rowCount === 0) {
        throw new Error(`postgresStorage: cannot update payout address ${entry.id}: no such record`);
      }
    },
    deleteAllowedAddress: async (id) => (await db.query(s.deleteAllowedAddress, [id])).rowCount > 0,
  };
}
