import type { StorageMigrationReport } from "../../../core/ports/storage/index";
import { MIGRATIONS, migrate, quoteIdent } from "./migrations";
import type { SqlClient } from "./sql-client";

/**
 * `postgresStorage().migrate()`: runs what is left of the migrations and reports every step this
 * storage applied (`earlier`: those its open applied) and the version the schema is at.
 */
export async function migrateAndReport(client: SqlClient, schema: string | undefined, earlier: readonly number[]): Promise<StorageMigrationReport> {
  const applied = [...earlier, ...(await migrate(client, schema))];
  const table = schema === undefined ? "schema_migrations" : `${quoteIdent(schema)}.schema_migrations`;
  const version = Number((await client.query(`SELECT coalesce(max(version), 0) AS version FROM ${table}`)).rows[0]?.version ?? 0);
  const named = new Map(MIGRATIONS.map((step) => [step.version, step.name]));
  return { applied: applied.map((step) => ({ version: step, name: named.get(step) ?? "" })), version };
}
