import { randomUUID } from "node:crypto";
import type { ChainStateStore } from "../../core/ports/chain";

/**
 * Recovery rescans as the block scanners share them. `rescan(fromHeight)` stores a request
 * under the adapter's key with an id of its own; a poll that sees a request its cursor has not
 * applied yet reads again from its height and writes the request's id into the cursor it
 * returns. The request is never cleared: it counts as done once the service stored a cursor
 * naming it, in the same write as the deposit sync's progress. So a request made while a poll
 * runs (a new id) takes effect at the next poll, and one whose poll failed before its cursor
 * was stored is applied again, never lost.
 */

/** A stored rescan request: read again from block `from`; `id` tells one request from another, even for the same height. */
export interface RescanRequest {
  from: number;
  id: string;
}

/** Stores a new rescan request under `key`, replacing any earlier one (the latest request wins). */
export async function requestRescan(state: ChainStateStore, key: string, fromHeight: number): Promise<void> {
  if (!Number.isSafeInteger(fromHeight) || fromHeight < 0) throw new RangeError("rescan: fromHeight must be a block height");
  await state.withLock(key, (view) => view.set(key, `${fromHeight}:${randomUUID()}`));
}

/**
 * The rescan request stored under `key`, or null. A value of an earlier version (the height
 * alone; "" once consumed) reads as a request whose id is its text.
 */
export async function readRescan(state: ChainStateStore, key: string): Promise<RescanRequest | null> {
  const text = await state.get(key);
  const match = text ? /^(\d+)(?::(.+))?$/.exec(text) : null;
  return match ? { from: Number(match[1]), id: text! } : null;
}

/** The part of a scanner's cursor a rescan moves: the last block read, its stored hashes, and the id of the last request applied. */
export interface RescanTrail {
  height: number;
  hashes: Array<[number, string]>;
  rescan?: string;
}

/**
 * Applies `request` to `cursor` unless the cursor already applied it: reads again from its
 * height (when that is not above the last block read) and records the request's id.
 */
export function applyRescan(cursor: RescanTrail, request: RescanRequest | null): void {
  if (request === null || cursor.rescan === request.id) return;
  if (request.from <= cursor.height) {
    cursor.height = request.from - 1;
    cursor.hashes = cursor.hashes.filter(([height]) => height < request.from);
  }
  cursor.rescan = request.id;
}
