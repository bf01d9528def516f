import type { CompleteStorage, Storage, StoragePart } from "../../core/ports/storage/index";

/** What each part of the conformance suite gets: the storage of the running test. */
export interface SuiteContext {
  /** The fresh storage `createAdapter` made for the running test. */
  storage(): Storage;
  /**
   * The same storage, typed with every optional part: for the tests of an optional part, which
   * are registered only when the adapter has it (`parts`).
   */
  full(): CompleteStorage;
  /** The optional parts the adapter under test has: their tests are registered, the others' are not. */
  parts: ReadonlySet<StoragePart>;
  /** How many transactions the concurrency tests run at once. */
  parallelism: number;
}
