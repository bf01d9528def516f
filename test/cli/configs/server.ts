import { postgresStorage } from "../../../src/postgres";

// A config exporting the options object as `options`: a PostgreSQL server schema that only the
// CLI's `migrate` migrates.
export const options = {
  storage: postgresStorage({ connectionString: process.env.DATABASE_URL!, schema: process.env.CLI_SCHEMA!, migrate: false }),
};
