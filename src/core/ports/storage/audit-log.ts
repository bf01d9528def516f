import type { AuditEntryRecord } from "../../audit/records";

/** One page of the audit log, newest first: at most `limit` entries, after the entry `after` (the last id of the previous page). */
export interface AuditLogQuery {
  /** Only this merchant's entries; every merchant's when left out. */
  merchantId?: string;
  /** At most this many entries. */
  limit: number;
  /** The id of the last entry of the previous page; null or absent for the first page. */
  after?: string | null;
}

/**
 * Reads of the audit log: who did what to which record, when. Entries are only ever appended,
 * never changed nor deleted. Optional (the `auditLog` part): only the operator's audit screens
 * read it; entries are written through `AuditLogStore`, which every adapter implements.
 */
export interface AuditLogReads {
  /**
   * Entries newest first by (at, id), one page. An `after` that names no entry gives an empty
   * page (as every newest-first list does).
   */
  listAuditLog(query: AuditLogQuery): Promise<AuditEntryRecord[]>;
}

/**
 * The audit log as a transaction sees it: an entry is appended in the same transaction as the
 * change it records, so there is never one without the other. Required: money actions are
 * audited whether or not the storage can list the log back (`AuditLogReads`).
 */
export interface AuditLogStore {
  /** Appends an entry. Throws if its id exists. */
  insertAuditEntry(entry: AuditEntryRecord): Promise<void>;
}
