/**
 * express-crypto-pay/postgres: the storage adapter for PostgreSQL, on a server (through `pg`)
 * or embedded (PGlite). Both drivers are optional peer dependencies: install the one you use.
 */
export { postgresStorage } from "./adapters/storage/postgres/index";
export type { PostgresStorage, PostgresStorageOptions } from "./adapters/storage/postgres/index";
export { MIGRATIONS, migrate } from "./adapters/storage/postgres/migrations";
export type { Migration } from "./adapters/storage/postgres/migrations";
export { pgClient } from "./adapters/storage/postgres/pg-client";
export type { PgPoolLike, PgPoolClientLike } from "./adapters/storage/postgres/pg-client";
export { pgliteClient } from "./adapters/storage/postgres/pglite-client";
export type { PGliteLike } from "./adapters/storage/postgres/pglite-client";
export type { SqlClient, SqlQueryable, SqlResult } from "./adapters/storage/postgres/sql-client";
