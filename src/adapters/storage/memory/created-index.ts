/** Ids of one scope's records in (createdAt, id) order, so a newest-first page is a walk from the end. */
interface Entry {
  createdAt: number;
  id: string;
}

const before = (a: Entry, b: Entry): boolean => a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.id < b.id);

/**
 * An ordered index per scope for the memory adapter's paged lists: a page costs the records it
 * reads, not a sort of the whole table. New records are nearly always the newest, so inserting
 * is a search plus an append.
 */
export class CreatedIndex {
  private readonly byScope = new Map<string, Entry[]>();

  /** Adds a record; returns how to take it out again (for a rolled-back transaction). */
  add(scope: string, entry: Entry): () => void {
    let list = this.byScope.get(scope);
    if (!list) {
      list = [];
      this.byScope.set(scope, list);
    }
    list.splice(this.position(list, entry), 0, { createdAt: entry.createdAt, id: entry.id });
    const owner = list;
    return () => {
      const at = owner.findIndex((item) => item.id === entry.id);
      if (at !== -1) owner.splice(at, 1);
    };
  }

  /**
   * Newest first, after `cursor` when given: each id is offered to `take`, which returns the
   * record to include or null to skip it, until `limit` records were taken.
   */
  page<T>(scope: string, cursor: Entry | null, limit: number, take: (id: string) => T | null): T[] {
    const list = this.byScope.get(scope) ?? [];
    const out: T[] = [];
    for (let i = (cursor ? this.position(list, cursor) : list.length) - 1; i >= 0 && out.length < limit; i--) {
      const record = take(list[i]!.id);
      if (record !== null) out.push(record);
    }
    return out;
  }

  /** Index of the first entry not before `entry` (binary search). */
  private position(list: Entry[], entry: Entry): number {
    let low = 0;
    let high = list.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (before(list[middle]!, entry)) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
