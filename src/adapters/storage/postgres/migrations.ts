import type { SqlClient } from "./sql-client";
import { INITIAL_MIGRATIONS } from "./migrations-initial";
import { V1_API_MIGRATIONS } from "./migrations-v1-api";
import { MONEY_CONTROLS_MIGRATIONS } from "./migrations-money-controls";
import { SEARCH_MIGRATIONS } from "./migrations-search";
import { REFUND_CLAIM_MIGRATIONS } from "./migrations-refund-claims";
import { SUBSCRIPTION_MIGRATIONS } from "./migrations-subscriptions";
import { FEED_MIGRATIONS } from "./migrations-feed";
import { PAYOUT_PENDING_MIGRATIONS } from "./migrations-payout-pending";

/** One step of the schema: applied once, in order, recorded in `schema_migrations`. */
export interface Migration {
  version: number;
  name: string;
  /** Statements run with the adapter's schema first on the search_path (names unqualified). */
  sql: string;
}

/**
 * The schema, as an ordered list of steps. Never edit a released step: add the next one.
 *
 * Choices that hold the money invariants in the database itself, whatever the code above does:
 * - amounts are `numeric(78,0)` (whole smallest units, up to 2^256), never floating point;
 * - times are epoch milliseconds in `bigint`;
 * - a deposit's chain identity (mode, network, tx_hash, output_index) is unique, so is a
 *   ledger entry's `cause_key` (a cause is credited or debited once), an API key's hash, and
 *   an idempotency key per (merchant, mode);
 * - a balance row could not go below zero (a CHECK, until step 7: a credit taken back after a
 *   deep reorg may overdraw it; ordinary debits still test the balance in the statement);
 * - `seq` (bigserial) keeps insertion order where the contract lists "in the order stored";
 * - ids and symbols compare bytewise (COLLATE "C"), like JavaScript string comparison, so
 *   (createdAt, id) cursors page the same way on every engine.
 */
export const MIGRATIONS: readonly Migration[] = [
  ...INITIAL_MIGRATIONS,
  ...V1_API_MIGRATIONS,
  ...MONEY_CONTROLS_MIGRATIONS,
  ...SEARCH_MIGRATIONS,
  ...REFUND_CLAIM_MIGRATIONS,
  ...SUBSCRIPTION_MIGRATIONS,
  ...FEED_MIGRATIONS,
  ...PAYOUT_PENDING_MIGRATIONS,
];

/** Quotes an identifier for SQL ("my schema" -> "\"my schema\""). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Arbitrary constant for the first half of the advisory lock key: "ecp" in ASCII. */
const LOCK_CLASS = 0x656370;

/**
 * Brings the schema up to date. Safe when several instances start at once: the whole check and
 * every step run in one transaction under a transaction-scoped advisory lock on the schema's
 * name, so one instance migrates and the others, once they get the lock, find nothing to do.
 * A database migrated further by a newer version is left alone (steps only ever add).
 */
export async function migrate(client: SqlClient, schema: string | undefined, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  return client.transaction(async (sql) => {
    const target = schema ?? ((await sql.query("SELECT current_schema() AS name")).rows[0]?.name as string | null);
    if (!target) throw new Error("postgresStorage: the connection has no current schema (empty search_path); pass the `schema` option");
    await sql.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [LOCK_CLASS, target]);
    if (schema !== undefined) {
      const exists = await sql.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
      if (exists.rowCount === 0) await sql.exec(`CREATE SCHEMA ${quoteIdent(schema)}`);
    }
    // Unqualified names below land in `target`, for this transaction only.
    await sql.exec(`SET LOCAL search_path TO ${quoteIdent(target)}`);
    await sql.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const done = new Set((await sql.query("SELECT version FROM schema_migrations")).rows.map((row) => Number(row.version)));
    const applied: number[] = [];
    for (const step of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(step.version)) continue;
      await sql.exec(step.sql);
      await sql.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [step.version, step.name]);
      applied.push(step.version);
    }
    return applied;
  });
}
