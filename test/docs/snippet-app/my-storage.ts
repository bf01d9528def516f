import { memoryStorage, type Storage } from "../../../src/index";

/**
 * A reader's own storage adapter, as the documentation's conformance snippet imports it
 * (`./my-storage`): here it is the in-memory one, so the snippet compiles against a real type.
 */
export function myStorage(options: { database: string }): Storage {
  void options.database;
  return memoryStorage();
}

/** An empty database for one test, as a reader's test helpers would make it. */
export async function freshDatabase(): Promise<string> {
  return `db_${Math.random().toString(36).slice(2)}`;
}
