import { randomBytes } from "node:crypto";

/** Anything that runs a parameterised query: a pg Pool or a PGlite instance. */
export interface Queryable {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A schema name no other test run uses: tests of parallel runs share one server. */
export function uniqueSchema(label: string): string {
  return `ecp_${label}_${process.pid}_${randomBytes(4).toString("hex")}`;
}

/**
 * Empties every table of `schema` but the migration log, so the next test starts from nothing.
 * One round trip of plain DELETEs: on tables this small it is far quicker than TRUNCATE, and
 * the order tests rely on comes from `seq` growing, not from where it starts.
 */
export async function truncateAll(db: Queryable, schema: string): Promise<void> {
  if (!/^[a-z0-9_]+$/.test(schema)) throw new Error(`unexpected schema name ${schema}`);
  await db.query(`DO $$ DECLARE t record; BEGIN
    FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = '${schema}' AND tablename <> 'schema_migrations' LOOP
      EXECUTE format('DELETE FROM %I.%I', '${schema}', t.tablename);
    END LOOP;
  END $$`);
}

/** The PostgreSQL server the tests may use, from DATABASE_URL; undefined runs the PGlite tests only. */
export const DATABASE_URL = process.env.DATABASE_URL || undefined;
