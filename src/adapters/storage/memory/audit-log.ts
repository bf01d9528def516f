import type { AuditEntryRecord } from "../../../core/audit/records";
import type { AuditLogReads, AuditLogStore } from "../../../core/ports/storage/index";
import { copy } from "./copy";
import { conflict, type Run, setIn, type Tables, type Undo, type Writes } from "./tables";

/** Newest first: by time, then id, both descending. */
const newestFirst = (a: AuditEntryRecord, b: AuditEntryRecord): number => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** The audit log: reads. A scan of the whole log per page: fine for the reference adapter. */
export function auditLogReads(t: Tables, run: Run): AuditLogReads {
  return {
    listAuditLog: (query) =>
      run("listAuditLog", () => {
        let entries = [...t.auditLog.values()].filter((entry) => query.merchantId === undefined || entry.merchantId === query.merchantId).sort(newestFirst);
        if (query.after) {
          const last = t.auditLog.get(query.after);
          if (!last) return [];
          entries = entries.filter((entry) => newestFirst(last, entry) < 0);
        }
        return entries.slice(0, Math.max(0, query.limit)).map(copy);
      }),
  };
}

/** The audit log: writes (append only). */
export function auditLogWrites(t: Tables, run: Run, undo: Undo[]): Writes<AuditLogStore, AuditLogReads> {
  return {
    insertAuditEntry: (entry) =>
      run("insertAuditEntry", () => {
        if (t.auditLog.has(entry.id)) conflict(`audit entry ${entry.id}`);
        setIn(t.auditLog, entry.id, copy(entry), undo);
      }),
  };
}
