import { describe, expect, it } from "vitest";
import type { StorageReads } from "../../core/ports/storage/index";
import type { SuiteContext } from "./context";
import { seed, type Tx } from "./fixtures";

/** One read of the contract and a committed write that changes its answer. */
export interface FreshnessCase {
  /** The read, as the test title names it. */
  read: string;
  /** The write, as the test title names it. */
  write: string;
  /** Reads the answer (reduced to what the write changes, where the rest is checked elsewhere). */
  look: (reads: Required<StorageReads>) => Promise<unknown>;
  /** The write, committed in a transaction of its own. */
  change: (tx: Tx) => Promise<unknown>;
  /** The answer once the write committed. */
  after: unknown;
}

/**
 * Reads see the latest commit: an adapter may cache, but a committed write must show in every
 * read that follows it, on the storage and in later transactions. Each test reads first (so a
 * cache holds the old answer, found or not found), commits a write, and reads again. A cache
 * that a write does not refresh would have the service answer invoice/fetch "PENDING" for a
 * payment its own list shows PAID. Each part lists every read of its own that a committed write
 * can change, each with such a write, "not found" answers included: a cache of misses is as
 * stale as a cache of hits.
 */
export function freshnessTests(ctx: SuiteContext, cases: FreshnessCase[]): void {
  describe("reads see the latest commit", () => {
    it.each(cases.map((c) => [`${c.read} after ${c.write}`, c] as const))("%s, read before the commit, answers as committed", async (_title, c) => {
      const storage = ctx.full();
      await seed(storage);
      // Read twice: a cache that fills on the first read answers the second from itself.
      const before = await c.look(storage);
      expect(await c.look(storage)).toEqual(before);
      expect(before, "the write of this test must change the answer").not.toEqual(c.after);
      await storage.transaction(async (tx) => {
        await c.change(tx);
      });
      expect(await c.look(storage)).toEqual(c.after);
      expect(await storage.transaction((tx) => c.look(tx))).toEqual(c.after);
    });
  });
}
