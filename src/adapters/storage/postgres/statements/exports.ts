import type { ExportQuery } from "../../../../core/ports/storage/index";

/**
 * One page of an export: the rows of `table` whose `time` column falls in [from, to), after the
 * cursor, oldest first by (time, id). Each combination of filters gets its own statement text (a
 * handful per table, each prepared once), so each plan has only the conditions it uses and walks
 * the table's (time, id) index from the cursor on (migration 9).
 */
export function exportPageQuery(select: string, table: string, time: string, query: ExportQuery, extra: string | null): { text: string; params: unknown[] } {
  const params: unknown[] = [query.from, query.to, Math.max(0, query.limit)];
  const where = [`${time} >= $1`, `${time} < $2`];
  if (query.merchantId !== undefined) {
    params.push(query.merchantId);
    where.push(`merchant_id = $${params.length}`);
  }
  if (query.mode !== undefined) {
    params.push(query.mode);
    where.push(`mode = $${params.length}`);
  }
  if (query.after) {
    params.push(query.after.at, query.after.id);
    where.push(`(${time}, id) > ($${params.length - 1}, $${params.length})`);
  }
  if (extra) where.push(extra);
  const text = [`SELECT ${select}`, `FROM ${table}`, `WHERE ${where.join("\n  AND ")}`, `ORDER BY ${time}, id`, "LIMIT $3"].join("\n");
  return { text, params };
}
