import type { Command } from "../command";
import { ok } from "../output";

/** `migrate`: the storage's schema brought up to date. */
export const migrateCommand: Command = {
  name: "migrate",
  summary: "Bring the storage's schema up to date",
  usage: "migrate",
  help: [
    "Runs the storage's migrations that have not run yet and lists the steps applied (PostgreSQL and",
    "the embedded database; with postgresStorage({ migrate: false }) this is how they run). A storage",
    "without a schema (memoryStorage) has nothing to migrate and says so.",
  ].join("\n"),
  flags: {},
  args: [],
  async run({ payments }) {
    const report = await payments.admin.migrate();
    if (report === null) return ok({ migrated: false, applied: [], version: null }, "this storage has no schema: nothing to migrate");
    const steps = report.applied.map((step) => `  ${step.version}  ${step.name}`);
    const text =
      steps.length === 0
        ? `schema up to date (version ${report.version}): no migration ran`
        : [`applied ${steps.length} migration(s):`, ...steps, `schema at version ${report.version}`].join("\n");
    return ok({ migrated: true, ...report }, text);
  },
};
