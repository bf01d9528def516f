import type { Mode } from "../../../core/merchants/records";
import type { PageQuery, Scope } from "../../../core/ports/storage/index";
import type { CreatedIndex } from "./created-index";
import { scopeKey } from "./tables";

/** Whether a record belongs to `scope`. */
export const inScope = (record: { merchantId: string; mode: Mode }, scope: Scope): boolean =>
  record.merchantId === scope.merchantId && record.mode === scope.mode;

/** createdAt order (ties in no promised order). */
export const byCreatedAt = (a: { createdAt: number }, b: { createdAt: number }): number => a.createdAt - b.createdAt;

/** (createdAt, id) order: ties on the clock still have one stable order to page through. */
export const compareCreated = (a: { createdAt: number; id: string }, b: { createdAt: number; id: string }): number =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** A copy of the record, or null for none. */
export function pick<T>(record: T | undefined, clone: (record: T) => T): T | null {
  return record === undefined ? null : clone(record);
}

/** A copy of the record if it belongs to `scope`, else null: another scope's record is "not found". */
export function scoped<T extends { merchantId: string; mode: Mode }>(record: T | undefined, scope: Scope, clone: (record: T) => T): T | null {
  return record !== undefined && inScope(record, scope) ? clone(record) : null;
}

/**
 * One newest-first page of a scope's records from its ordered index; `take` filters and
 * copies. A cursor that is not a record of this scope gives an empty page.
 */
export function page<T extends { merchantId: string; mode: Mode; createdAt: number; id: string }>(
  index: CreatedIndex,
  table: Map<string, T>,
  scope: Scope,
  query: PageQuery,
  take: (record: T) => T | null,
): T[] {
  const cursor = query.after ? table.get(query.after) : undefined;
  if (query.after && (!cursor || !inScope(cursor, scope))) return [];
  return index.page(scopeKey(scope.merchantId, scope.mode), cursor ?? null, Math.max(0, query.limit), (id) => take(table.get(id)!));
}
