import { postgresStorage, type PostgresStorage } from "./postgres/index";

/** Where `createPaymentRouter()` keeps its data when given no `storage`: `./.data` under the working directory. */
export const DEFAULT_DATA_DIR = ".data";

/**
 * The embedded default: PostgreSQL (PGlite, in process) on a data directory, so that merchants,
 * keys, invoices, balances and pending webhook deliveries survive a restart. It opens lazily,
 * so the router stays synchronous to create; one process at a time may use a directory.
 */
export function embeddedStorage(dataDir: string = DEFAULT_DATA_DIR): PostgresStorage {
  return postgresStorage({ dataDir });
}
