/** One filter of a paged list: its condition, with `?` standing for its parameter (if any). */
export type Condition = { sql: string; value?: unknown };

/**
 * A newest-first page of `table` in one scope, with the filters given. Each combination of
 * filters gets its own statement text (a few dozen at most, each prepared once), so each plan
 * has only the conditions it uses and can walk the (merchant_id, mode, created_at DESC, id DESC)
 * index, rather than one generic plan full of `$n IS NULL OR ...`.
 */
export function pagedQuery(
  select: string,
  table: string,
  scope: { merchantId: string; mode: string },
  conditions: Condition[],
  page: { limit: number; after?: string | null },
): { text: string; params: unknown[] } {
  const params: unknown[] = [scope.merchantId, scope.mode, Math.max(0, page.limit)];
  const where = ["merchant_id = $1", "mode = $2"];
  for (const condition of conditions) {
    if ("value" in condition) {
      params.push(condition.value);
      where.push(condition.sql.replace("?", `$${params.length}`));
    } else {
      where.push(condition.sql);
    }
  }
  if (page.after) {
    params.push(page.after);
    // An `after` that names no record leaves the comparison null: an empty page.
    where.push(`(created_at, id) < (SELECT created_at, id FROM ${table} WHERE id = $${params.length})`);
  }
  const text = [`SELECT ${select}`, `FROM ${table}`, `WHERE ${where.join("\n  AND ")}`, "ORDER BY created_at DESC, id DESC", "LIMIT $3"].join("\n");
  return { text, params };
}
