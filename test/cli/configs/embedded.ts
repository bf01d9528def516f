import { postgresStorage } from "../../../src/postgres";

// A config exporting an async function as its default export: the embedded database in the
// directory the test gives.
export default async () => ({ storage: postgresStorage({ dataDir: process.env.CLI_DATA_DIR! }) });
