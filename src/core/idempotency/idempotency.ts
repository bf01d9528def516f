import { createHash, randomUUID } from "node:crypto";
import type { Scope, StorageTransaction } from "../ports/storage/index";
import { PaymentError } from "../../errors";
import type { CoreContext } from "../context";
import type { IdempotencyRecord } from "./records";

/** How long a key is remembered (Stripe's rule). */
const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** A complete answer: what is sent, and what a replay sends again byte for byte. */
export interface StoredAnswer {
  status: number;
  body: string;
}

/** JSON with object keys sorted, so the same request hashes the same however it was serialized. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The fingerprint of a request: the same key sent with another request is a conflict. */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash("sha256")
    .update(`${method} ${path}\n${canonical(body ?? {})}`)
    .digest("hex");
}

/**
 * Runs inside the transaction that commits an operation, given what it created: writes that
 * must commit with the operation or not at all (an idempotency key's answer).
 */
export type CommitHook<T> = (tx: StorageTransaction, created: T) => Promise<void>;

/** A claimed `Idempotency-Key`, as the request holding it sees it. */
export interface KeyClaim {
  /**
   * Stores `answer` as the key's, in `tx`: the transaction that commits the request's
   * operation, so the operation and the answer commit together or not at all. Throws (and the
   * operation must roll back) if this request lost the key: its lease lapsed and a retry took
   * it over, and that retry's run is the one that counts.
   */
  commitIn(tx: StorageTransaction, answer: StoredAnswer): Promise<void>;
}

/** How `runIdempotent` holds keys. */
export interface IdempotencyOptions {
  /**
   * How long a started key is held for its request, in ms, on the storage's clock. A request
   * still running past it loses the key to a retry (and its work rolls back); a process that
   * died leaves the key to its retries after this long instead of for the key's 24 hours.
   */
  leaseMs: number;
}

/** The default lease of a started key: a minute. */
export const DEFAULT_KEY_LEASE_MS = 60_000;

/**
 * Runs a creating request at most once per `Idempotency-Key` (Stripe's rules): the first
 * request's answer, success or client error, is stored and replayed for 24 hours to the same
 * key with the same request; the same key with another request is 409; a key whose first
 * request is still running is 409 too. A server error forgets the key so the client can retry.
 *
 * Crashes: a started key is leased to its request for `leaseMs`. An operation stores its answer
 * through `claim.commitIn` in the transaction that commits it, so after a crash the key either
 * holds the committed answer (replayed) or nothing committed, and once the lease lapses a retry
 * takes the key over and runs the operation. Never twice: a request that outlives its lease
 * finds its key taken at commit, and its transaction rolls back. Never stuck: at most `leaseMs`.
 *
 * `work` returns the answer to send now; what `commitIn` stored is what replays get (they may
 * differ: a signing secret is shown once). Work that never calls `commitIn` (a client error,
 * or an operation without a commit hook) has its answer stored after it, in a transaction of
 * its own.
 */
export async function runIdempotent(
  context: CoreContext,
  scope: Scope,
  key: string,
  hash: string,
  work: (claim: KeyClaim) => Promise<StoredAnswer>,
  options: IdempotencyOptions = { leaseMs: DEFAULT_KEY_LEASE_MS },
): Promise<StoredAnswer & { replayed: boolean }> {
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new PaymentError("validation_error", "Invalid request: Idempotency-Key must be 1 to 255 visible ASCII characters.");
  }
  const now = context.now();
  const leaseToken = randomUUID();
  const existing = await context.storage.transaction((tx) => tx.claimIdempotencyKey(startedKey(scope, key, hash, now, leaseToken), options.leaseMs));
  if (existing) {
    if (existing.requestHash !== hash) {
      throw new PaymentError("idempotency_conflict", "This Idempotency-Key was used with a different request; use a new key for a new request.");
    }
    if (existing.state !== "completed") {
      throw new PaymentError("idempotency_conflict", "A request with this Idempotency-Key is still being processed; retry in a moment.");
    }
    return { status: existing.responseStatus!, body: existing.responseBody!, replayed: true };
  }

  let committed: StoredAnswer | null = null;
  const claim: KeyClaim = {
    async commitIn(tx, answer) {
      if (!(await tx.completeIdempotencyKey(scope, key, leaseToken, answer.status, answer.body))) throw lostKey();
      committed = answer;
    },
  };
  let answer: StoredAnswer;
  try {
    answer = await work(claim);
  } catch (error) {
    // The operation committed (with its answer) and something after it failed: the committed
    // answer is the request's answer, as a replay would give it. But the answer was stored
    // inside the operation's transaction, and that transaction may itself have failed at its
    // end (the commit, or writes sent with it): then nothing exists, and answering what was
    // stored would be a 200 for a record that is not there. So the stored key is asked.
    if (committed && (await answerCommitted(context, scope, key, hash, leaseToken, options.leaseMs))) {
      return { ...(committed as StoredAnswer), replayed: false };
    }
    await context.storage.transaction((tx) => tx.deleteIdempotencyKey(scope, key, leaseToken));
    throw error;
  }
  if (!committed) {
    const stored = await context.storage.transaction((tx) => tx.completeIdempotencyKey(scope, key, leaseToken, answer.status, answer.body));
    if (!stored && answer.status < 400) {
      context.logger.warn(
        `a request with Idempotency-Key ${JSON.stringify(key)} outlived its lease and a retry took the key over; raise the idempotency lease if requests take this long`,
      );
    }
  }
  return { ...answer, replayed: false };
}

/**
 * Whether the answer this request (`leaseToken`) stored for `key` was committed: the key is
 * claimed again, which returns the stored record unless there is none to return. A claim that
 * finds nothing (it took the key over, or made a new one) is forgotten again.
 */
async function answerCommitted(context: CoreContext, scope: Scope, key: string, hash: string, leaseToken: string, leaseMs: number): Promise<boolean> {
  const now = context.now();
  const probe = randomUUID();
  const found = await context.storage.transaction((tx) => tx.claimIdempotencyKey(startedKey(scope, key, hash, now, probe), leaseMs));
  if (found === null) {
    await context.storage.transaction((tx) => tx.deleteIdempotencyKey(scope, key, probe));
    return false;
  }
  return found.state === "completed" && found.leaseToken === leaseToken;
}

/** The record of a key a request starts on, held by `leaseToken`. */
function startedKey(scope: Scope, key: string, hash: string, now: number, leaseToken: string): IdempotencyRecord {
  return {
    merchantId: scope.merchantId,
    mode: scope.mode,
    key,
    requestHash: hash,
    state: "started",
    responseStatus: null,
    responseBody: null,
    createdAt: now,
    expiresAt: now + KEY_LIFETIME_MS,
    leaseToken,
  };
}

/** The error of a request whose key a retry took over while it ran. */
function lostKey(): PaymentError {
  return new PaymentError(
    "idempotency_conflict",
    "This request took longer than its Idempotency-Key's lease and a retry took the key over; the retry's result is the one that counts.",
  );
}
