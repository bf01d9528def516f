import type { EventLogPage, Scope } from "../../../core/ports/storage/index";
import type { SqlQueryable } from "./sql-client";
import type { Statements } from "./statements/index";
import { eventColumns } from "./statements/events";

/**
 * The event log read forward by position, in commit-safe order (see migration 15). A position
 * is `<txid>_<seq>`: the writing transaction's id and the event's seq, the last event read.
 */

/** The (txid, seq) a position names. A seq alone (a position of an earlier version) is looked up: that event's txid, or 0. */
async function positionOf(db: SqlQueryable, s: Statements, position: string | null): Promise<[string, string]> {
  if (position === null) return ["0", "0"];
  const parts = position.split("_");
  if (parts.length === 2) return [parts[0]!, parts[1]!];
  const row = (await db.query(s.eventLogLegacyPosition, [position])).rows[0];
  return [row === undefined ? "0" : String(row.txid), position];
}

/** Up to `limit` events after `position`, below the oldest running transaction, and the position after them. */
export async function readEventLog(db: SqlQueryable, s: Statements, scope: Scope, position: string | null, limit: number): Promise<EventLogPage> {
  const [txid, seq] = await positionOf(db, s, position);
  const rows = (await db.query(s.readEventLog, [scope.merchantId, scope.mode, txid, seq, Math.max(0, limit)])).rows;
  const last = rows.at(-1);
  return { events: rows.map(eventColumns.read), position: last === undefined ? (position ?? "0_0") : `${last.txid}_${last.seq}` };
}

/** The end of the log as it stands: every event below the oldest running transaction counts as read. */
export async function eventLogEnd(db: SqlQueryable, s: Statements): Promise<string> {
  return `${(await db.query(s.eventLogEnd, [])).rows[0]!.txid}_0`;
}
