import type { Storage } from "../../core/ports/storage/index";

/** What each part of the conformance suite gets: the storage of the running test. */
export interface SuiteContext {
  /** The fresh storage `createAdapter` made for the running test. */
  storage(): Storage;
  /** How many transactions the concurrency tests run at once. */
  parallelism: number;
}
