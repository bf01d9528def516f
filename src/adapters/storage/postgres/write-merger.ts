import { shared } from "./shared";

/**
 * The write merger: consecutive deferred writes (see `SqlQueryable.defer`) sent as few
 * statements instead of one each. One statement instead of several is less work on both ends,
 * and alone (outside BEGIN) it is atomic by itself.
 */

/** Most writes merged into one statement; a longer run is sent as several (keeps the set of texts small). */
const MERGE_MAX = 8;

/** The table a write statement writes, or null when the text is not a plain INSERT, UPDATE or DELETE. */
function targetOf(text: string): string | null {
  const match = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+((?:"[^"]+"\.)?[A-Za-z_][A-Za-z0-9_]*)\s/i.exec(text);
  return match ? match[1]! : null;
}

/** The highest `$n` of a statement: how many values it takes. */
function valueCount(text: string): number {
  let most = 0;
  for (const match of text.matchAll(/\$(\d+)/g)) most = Math.max(most, Number(match[1]));
  return most;
}

/** One statement of a merge plan: writes [from, to) of the run, as `text`. */
interface PlannedStatement {
  text: string;
  from: number;
  to: number;
}

/**
 * How a run of deferred writes is sent: which of them share a statement, and its text. The parts
 * of one statement run in no promised order, so two writes to one table (whose rows keep
 * insertion order in a sequence) never share one, nor does a write whose table is unknown.
 */
function plan(texts: readonly string[]): PlannedStatement[] {
  const statements: PlannedStatement[] = [];
  let from = 0;
  let tables = new Set<string>();
  const close = (to: number) => {
    const parts = texts.slice(from, to);
    let offset = 0;
    const shifted = parts.map((text) => {
      const shift = offset;
      offset += valueCount(text);
      return shift === 0 ? text : text.replace(/\$(\d+)/g, (_match, n: string) => `$${Number(n) + shift}`);
    });
    const text =
      shifted.length === 1
        ? shifted[0]!
        : `WITH ${shifted
            .slice(0, -1)
            .map((part, i) => `w${i + 1} AS (${part})`)
            .join(", ")} ${shifted.at(-1)}`;
    statements.push({ text, from, to });
    from = to;
    tables = new Set();
  };
  texts.forEach((text, i) => {
    const table = targetOf(text);
    if (i > from && (table === null || tables.has(table) || tables.has("") || i - from === MERGE_MAX)) close(i);
    tables.add(table ?? "");
  });
  if (from < texts.length) close(texts.length);
  return statements;
}

/** Plans by the sequence of texts, found by identity (statement texts are constants): no long key is built per call. */
interface PlanNode {
  next: Map<string, PlanNode>;
  statements: PlannedStatement[] | null;
}
const plans = shared("merge-plans", (): PlanNode => ({ next: new Map(), statements: null }));

/**
 * Consecutive deferred writes as few statements: `WITH w1 AS (<write 1>), ... <last write>`,
 * the placeholders of each renumbered after those before it. Sound for deferred writes because
 * none depends on another's effect (the contract of `defer`).
 */
export function mergeWrites(writes: ReadonlyArray<readonly [string, readonly unknown[]]>): Array<[string, unknown[]]> {
  let node = plans;
  for (const [text] of writes) {
    let child = node.next.get(text);
    if (!child) {
      child = { next: new Map(), statements: null };
      node.next.set(text, child);
    }
    node = child;
  }
  node.statements ??= plan(writes.map(([text]) => text));
  return node.statements.map(({ text, from, to }) => {
    const values: unknown[] = [];
    for (let i = from; i < to; i++) values.push(...writes[i]![1]);
    return [text, values];
  });
}
