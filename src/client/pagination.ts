/**
 * Auto-pagination of list calls, in stripe-node's shape: the value a `list(...)` call returns is
 * the first page when awaited, and iterates over every item of every page with `for await`.
 */

/** The most items `autoPagingToArray` collects: a bound on the memory one call may take. */
export const AUTO_PAGING_MAX = 10_000;

/** A page as list answers carry it: `hasMore` and `nextCursor` are absent on lists that are never split (webhook endpoints). */
export interface PageLike<T> {
  /** The items of this page, newest first. */
  data: T[];
  /** True when another page follows. */
  hasMore?: boolean;
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor?: string | null;
}

/**
 * What a `list(...)` call returns. `await` it for one page (`{ data, hasMore, nextCursor }`);
 * iterate it (`for await (const payment of client.payments.list({ status: "PAID" }))`) for
 * every item, newest first, the next page read only when the loop reaches it; or collect up to
 * a bound with `autoPagingToArray({ limit })`. Nothing is requested until one of them starts.
 */
export interface ListPromise<T, Page extends PageLike<T>> extends Promise<Page>, AsyncIterable<T> {
  /**
   * Every item, following pages, until `limit` items (required, 1 to 10,000) or the last page.
   * The query's own `limit` stays the size of each page read.
   */
  autoPagingToArray(options: { limit: number }): Promise<T[]>;
}

/**
 * A list call: `readPage(cursor)` reads one page, from `start` (the query's own `cursor`) first.
 * The first page is read once and shared by `await` and iteration.
 */
export function listPromise<T, Page extends PageLike<T>>(
  readPage: (cursor: string | undefined) => Promise<Page>,
  start: string | undefined,
): ListPromise<T, Page> {
  let first: Promise<Page> | null = null;
  const firstPage = () => {
    first ??= readPage(start);
    return first;
  };

  async function* items(): AsyncGenerator<T, void, undefined> {
    let page = await firstPage();
    for (;;) {
      yield* page.data;
      // A page that says more follow but gives no cursor would loop on itself: stop instead.
      if (page.hasMore !== true || !page.nextCursor) return;
      page = await readPage(page.nextCursor);
    }
  }

  return {
    [Symbol.toStringTag]: "Promise",
    // biome-ignore lint/suspicious/noThenProperty: this object is awaitable on purpose: awaiting a list call gives its first page.
    then: (onFulfilled, onRejected) => firstPage().then(onFulfilled, onRejected),
    catch: (onRejected) => firstPage().catch(onRejected),
    finally: (onFinally) => firstPage().finally(onFinally),
    [Symbol.asyncIterator]: items,
    autoPagingToArray: async (options) => {
      const limit = options?.limit;
      if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > AUTO_PAGING_MAX) {
        throw new TypeError(`autoPagingToArray: limit must be a whole number from 1 to ${AUTO_PAGING_MAX}, got ${String(limit)}`);
      }
      const collected: T[] = [];
      for await (const item of items()) {
        collected.push(item);
        if (collected.length >= limit) break;
      }
      return collected;
    },
  };
}
