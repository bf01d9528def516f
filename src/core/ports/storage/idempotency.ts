import type { IdempotencyRecord } from "../../idempotency/records";
import type { Scope } from "./scope";

/**
 * Idempotency keys: one live record per (merchantId, mode, key), claimed by exactly one
 * request at a time. Only a transaction uses them, so this part has no reads of its own: the
 * stored record comes back from a claim that finds it.
 */
export interface IdempotencyStore {
  /**
   * Claims an idempotency key for the request holding `record.leaseToken`, with a lease of
   * `leaseMs` measured on the storage's own clock (PostgreSQL: the server's; one clock for every
   * instance sharing the storage, whatever their own clocks say). Stores `record` (null
   * returned) unless a record for the same (merchantId, mode, key) exists whose `expiresAt` is
   * still ahead of `record.createdAt`, and returns that one instead. Two cases replace the
   * existing record all the same: it expired, or it is "started" with the same `requestHash`
   * and its lease has lapsed (its request died before completing; the new claim takes it over).
   * Two transactions claiming one key at once: exactly one gets null, the other the record.
   */
  claimIdempotencyKey(record: IdempotencyRecord, leaseMs: number): Promise<IdempotencyRecord | null>;
  /**
   * Stores the answer of a key claimed with `leaseToken` (state "completed"; the token stays,
   * so the same request may store a later answer, and a completed key is never taken over).
   * Returns false, writing nothing, when that claim does not hold the key (it lapsed and was
   * taken over, or was forgotten): the caller's transaction must then not commit its work.
   */
  completeIdempotencyKey(scope: Scope, key: string, leaseToken: string, responseStatus: number, responseBody: string): Promise<boolean>;
  /** Forgets a key claimed with `leaseToken` (its request failed in a way that may be retried); a key held by another claim, or none, stays as it is. */
  deleteIdempotencyKey(scope: Scope, key: string, leaseToken: string): Promise<void>;
  /** Deletes up to `limit` records whose `expiresAt <= now`, of every merchant; returns how many. */
  deleteExpiredIdempotencyKeys(now: number, limit: number): Promise<number>;
}
