import { newId } from "../../ids";
import { requireStoragePart } from "../ports/storage/index";
import type { CoreContext } from "../context";
import type { AuditEntryRecord } from "./records";

/** The largest page `listAuditLog` answers. */
export const AUDIT_LOG_MAX_LIMIT = 500;

/** An entry of the audit log as the admin API shows it: the stored record, its time in ISO 8601. */
export interface AuditEntry extends Omit<AuditEntryRecord, "at"> {
  /** When, ISO 8601. */
  at: string;
}

/** One page of the audit log; `nextCursor` asks for the next one, null on the last. */
export interface AuditLogPage {
  /** Newest first. */
  entries: AuditEntry[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** A new entry stamped with the router's clock, for `tx.insertAuditEntry` in the transaction of the change it records. */
export function auditEntry(context: CoreContext, entry: Omit<AuditEntryRecord, "id" | "at">): AuditEntryRecord {
  return { id: newId("aud"), at: context.now(), ...entry };
}

/**
 * The audit log, newest first, one page of `limit` (1 to 500, default 50) entries; `cursor` is
 * the `nextCursor` of the page before. With `merchantId`, that merchant's entries only.
 */
export async function listAuditLog(context: CoreContext, options: { merchantId?: string; limit?: number; cursor?: string | null } = {}): Promise<AuditLogPage> {
  const limit = options.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_LOG_MAX_LIMIT)
    throw new TypeError(`listAuditLog: limit must be a whole number from 1 to ${AUDIT_LOG_MAX_LIMIT}`);
  if (options.merchantId !== undefined && typeof options.merchantId !== "string") throw new TypeError("listAuditLog: merchantId must be a string");
  if (options.cursor != null && typeof options.cursor !== "string") throw new TypeError("listAuditLog: cursor must be the nextCursor of a page");
  // One more than asked tells whether a next page exists without a second read.
  const rows = await requireStoragePart(context.storage, "auditLog", "Listing the audit log").listAuditLog({
    merchantId: options.merchantId,
    limit: limit + 1,
    after: options.cursor ?? null,
  });
  const entries = rows.slice(0, limit).map((row) => ({ ...row, at: new Date(row.at).toISOString() }));
  return { entries, nextCursor: rows.length > limit ? entries.at(-1)!.id : null };
}
