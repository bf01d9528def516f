import { expect, it } from "vitest";
import type { PageQuery } from "../../core/ports/storage/index";
import type { SuiteContext } from "./context";
import { gate, seed, sleep, snapshot, merchant, type Tx } from "./fixtures";

/** An insert that a unique key must refuse once the seed is stored, named as the test title names the key. */
export type UniqueCase = [key: string, insert: (tx: Tx) => Promise<unknown>];

/** An update of a record that does not exist, named as the test title names the record. */
export type MissingCase = [record: string, update: (tx: Tx) => Promise<unknown>];

/**
 * A `lock*` method and how to see that it held its record: `lock` takes the lock, `write`
 * changes the record, `lockAndRead` locks it again and reads what the write changes.
 */
export type LockCase = [method: string, lock: (tx: Tx) => Promise<unknown>, write: (tx: Tx) => Promise<void>, lockAndRead: (tx: Tx) => Promise<unknown>];

/** Each insert of `cases` is refused, and the transaction it was part of writes nothing at all. */
export function uniqueTests(ctx: SuiteContext, cases: UniqueCase[]): void {
  it.each(cases)("refuses a second record with the same %s, and the transaction writes nothing", async (_name, insert) => {
    const storage = ctx.full();
    await seed(storage);
    const before = await snapshot(storage);
    await expect(
      storage.transaction(async (tx) => {
        await tx.insertMerchant(merchant({ id: "m_2" }));
        await insert(tx);
      }),
    ).rejects.toThrow();
    expect(await snapshot(storage)).toEqual(before);
  });
}

/** Each update of `cases` throws: an update never creates its record. */
export function missingUpdateTests(ctx: SuiteContext, cases: MissingCase[]): void {
  it.each(cases)("refuses to update a %s that does not exist", async (_name, update) => {
    const storage = ctx.full();
    await expect(storage.transaction(update)).rejects.toThrow();
  });
}

/** Each `lock*` of `cases` holds its record: a second transaction locking it waits for the first to end, then sees its write. */
export function lockTests(ctx: SuiteContext, cases: LockCase[]): void {
  it.each(cases)("%s holds the record: a second transaction locking it waits, then sees the first one's write", async (_name, lock, write, lockAndRead) => {
    const storage = ctx.full();
    await seed(storage);
    const before = await storage.transaction(lockAndRead);
    const hold = gate();
    const locked = gate();
    const log: string[] = [];
    const first = storage.transaction(async (tx) => {
      await lock(tx);
      locked.open();
      await hold.promise;
      await write(tx);
      log.push("first wrote");
    });
    await locked.promise;
    const second = storage.transaction(async (tx) => {
      const value = await lockAndRead(tx);
      log.push("second locked");
      return value;
    });
    await sleep(50);
    expect(log).toEqual([]); // still waiting for the first transaction
    hold.open();
    await first;
    const after = await second;
    expect(log).toEqual(["first wrote", "second locked"]);
    expect(after).not.toEqual(before);
  });
}

/** Walks every page of a newest-first list and returns the ids in the order seen. */
export async function walk(list: (page: PageQuery) => Promise<Array<{ id: string }>>, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let after: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const page = await list({ limit, after });
    seen.push(...page.map((record) => record.id));
    if (page.length < limit) return seen;
    after = page.at(-1)!.id;
  }
  throw new Error("the list never ended");
}
