/**
 * The stored answer of an idempotent request.
 * Amounts are bigint smallest units of the record's asset; times are epoch milliseconds.
 * Storage adapters persist these shapes as they are.
 */
import type { Mode } from "../merchants/records";

/** A remembered answer to a creating request sent with an `Idempotency-Key`. */
export interface IdempotencyRecord {
  merchantId: string;
  mode: Mode;
  key: string;
  /** SHA-256 of method, path and body: the same key with another request is a conflict. */
  requestHash: string;
  /** "started" while the first request runs; "completed" with its answer after. */
  state: "started" | "completed";
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: number;
  expiresAt: number;
  /**
   * Which request holds the key: a random token per claim. Only the holder may complete (or
   * later re-answer) or forget the key; a claim made after a started key's lease lapsed takes
   * it over with a token of its own.
   */
  leaseToken: string | null;
}
