import { sqlLiteral } from "../sql-literal";
import { sql } from "./sql";
import type { Tables } from "./tables";

/**
 * The seed of the hash that names lockCursor's advisory locks. Any fixed value does: it only has
 * to be the same in every instance, and differ from the seed 0 other code hashing names likely uses.
 */
const CURSOR_LOCK_SEED = 7_461_737_431_373_237;

/** Cursors: named values (how far a scanner got), and the lock on a name. */
export function cursorStatements(t: Tables, schema: string | undefined) {
  // The schema the cursors live in, as the tables resolve: the connection's current one by default.
  const lockSpace = schema === undefined ? "coalesce(current_schema(), '')" : sqlLiteral(schema);
  return {
    getCursor: sql`
      SELECT value
      FROM ${t.cursors}
      WHERE key = $1
    `,
    setCursor: sql`
      INSERT INTO ${t.cursors} (key, value)
      VALUES ($1, $2)
      ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
    `,
    // A row lock cannot hold a name nothing is stored under yet, so lockCursor takes a
    // transaction-scoped advisory lock on a 64-bit hash of the schema and the name (released by
    // COMMIT, ROLLBACK or a dropped connection). Two names whose hashes collide (or a key another
    // application locks) only make their transactions wait for each other: harmless. The schema
    // keeps services (or test runs) in schemas of their own on one database from waiting on each
    // other's names; NULL would lock nothing, hence the coalesce.
    lockCursorName: sql`
      SELECT 1 AS locked
      FROM pg_advisory_xact_lock(hashtextextended(${lockSpace} || '.' || $1::text, ${CURSOR_LOCK_SEED}))
    `,
  };
}
