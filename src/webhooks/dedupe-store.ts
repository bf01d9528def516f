/**
 * Exactly-once processing of webhook deliveries, keyed by `webhook-id` (the same on every
 * retry of one delivery). The store is pluggable so that several app instances can share it.
 */

/** A value or a promise of it: an in-process store answers synchronously, a shared one cannot. */
export type Awaitable<T> = T | Promise<T>;

/** The answer to a claim. */
export type DedupeClaim =
  /** The caller owns the id now: run the handler, then complete() or release() with the token. */
  | { status: "claimed"; token: string }
  /** Another claim of the id holds an unexpired lease: a concurrent duplicate. */
  | { status: "in_progress" }
  /** The id was processed already. */
  | { status: "done" };

/**
 * Where webhookHandler records which deliveries it is processing and which it has processed.
 *
 * The contract is written for a store shared by every instance of the app (Redis, SQL): each
 * method is a single atomic step there. Sketches: Redis `SET whk:<id> claimed:<token> NX PX
 * <lease>` for claim, a short Lua script comparing the token for complete and release; SQL an
 * `INSERT ... ON CONFLICT DO NOTHING` for a new id plus an `UPDATE ... WHERE lease_until < now`
 * to take over a lapsed claim. test/webhooks/dedupe-store-conformance.ts in this repository is
 * the suite a store must pass; it takes a factory and runs against any implementation.
 */
export interface WebhookDedupeStore {
  /**
   * Atomically claims `id` for processing. Returns `{ status: "claimed", token }` when there is
   * no record of `id`, when its done record has expired, or when a previous claim's lease has
   * run out (a receiver crashed or hung mid-handler, so the work is up for grabs again);
   * `{ status: "in_progress" }` while another claim's lease runs; `{ status: "done" }` when
   * complete() was recorded and has not expired. Of any number of concurrent claims of one id,
   * from any process sharing the store, at most one gets "claimed".
   */
  claim(id: string): Awaitable<DedupeClaim>;

  /**
   * Records `id` as processed, for the store's retention time, after its handler succeeded.
   * Applies when `token` still holds the claim or when the claim has lapsed and nobody took it
   * over (the work did succeed); does nothing when another claim holds `id` now.
   */
  complete(id: string, token: string): Awaitable<void>;

  /**
   * Drops the claim after its handler failed, so that the sender's retry can claim `id` again.
   * Does nothing when `token` no longer holds the claim (it lapsed and another took over) or
   * when `id` is done.
   */
  release(id: string, token: string): Awaitable<void>;
}

/** Options of memoryDedupeStore. */
export interface MemoryDedupeStoreOptions {
  /**
   * How long a processed id is remembered, in ms. Default 24 hours. Keep it longer than the
   * sender's retry schedule: a retry after the id is forgotten runs the handler again.
   */
  ttlMs?: number;
  /**
   * How long a claim holds before another delivery of the id may take over, in ms. Default 5
   * minutes. Keep it longer than the slowest handler, or a retry may run alongside it.
   */
  leaseMs?: number;
  /** Most ids kept; past it the oldest are forgotten first. Default 100000 (a few MB). */
  maxEntries?: number;
  /** The clock, epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** The in-memory store: synchronous, with a view of its size for monitoring and tests. */
export interface MemoryDedupeStore extends WebhookDedupeStore {
  claim(id: string): DedupeClaim;
  complete(id: string, token: string): void;
  release(id: string, token: string): void;
  /** Ids currently remembered (claims and done records), expired ones possibly included. */
  readonly size: number;
}

interface Entry {
  state: "claimed" | "done";
  token: string;
  expiresAt: number;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new TypeError(`memoryDedupeStore: ${name} must be a positive number, got ${String(value)}`);
  }
  return value;
}

/**
 * The default store: one process, memory bounded by `maxEntries`, synchronous (so a claim is
 * atomic by construction on the single JS thread). Several app instances need a shared store
 * instead; with this one each instance dedupes only what it receives itself.
 */
export function memoryDedupeStore(options: MemoryDedupeStoreOptions = {}): MemoryDedupeStore {
  const ttlMs = positive("ttlMs", options.ttlMs, 24 * 60 * 60 * 1000);
  const leaseMs = positive("leaseMs", options.leaseMs, 5 * 60 * 1000);
  const maxEntries = Math.floor(positive("maxEntries", options.maxEntries, 100_000));
  const now = options.now ?? Date.now;
  if (typeof now !== "function") throw new TypeError("memoryDedupeStore: now must be a function returning epoch milliseconds");
  // A Map iterates in insertion order and every write re-inserts, so the front holds the oldest
  // writes: expiry sweeps and capacity evictions only ever look at the front.
  const entries = new Map<string, Entry>();
  let sequence = 0;

  const put = (id: string, entry: Entry): void => {
    entries.delete(id);
    entries.set(id, entry);
    while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
  };

  const sweep = (at: number): void => {
    for (const [id, entry] of entries) {
      if (entry.expiresAt > at) break;
      entries.delete(id);
    }
  };

  return {
    get size() {
      return entries.size;
    },
    claim(id) {
      const at = now();
      sweep(at);
      const existing = entries.get(id);
      if (existing !== undefined && existing.expiresAt > at) return existing.state === "done" ? { status: "done" } : { status: "in_progress" };
      const token = String(++sequence);
      put(id, { state: "claimed", token, expiresAt: at + leaseMs });
      return { status: "claimed", token };
    },
    complete(id, token) {
      const existing = entries.get(id);
      if (existing !== undefined && existing.token !== token && existing.expiresAt > now()) return;
      put(id, { state: "done", token, expiresAt: now() + ttlMs });
    },
    release(id, token) {
      const existing = entries.get(id);
      if (existing !== undefined && existing.state === "claimed" && existing.token === token) entries.delete(id);
    },
  };
}
