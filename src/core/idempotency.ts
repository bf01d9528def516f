import { createHash } from "node:crypto";
import type { Scope } from "../adapters/storage/types";
import { PaymentError } from "../errors";
import type { CoreContext } from "./context";

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
  return createHash("sha256").update(`${method} ${path}\n${canonical(body ?? {})}`).digest("hex");
}

/**
 * Runs a creating request at most once per `Idempotency-Key` (Stripe's rules): the first
 * request's answer, success or client error, is stored and replayed for 24 hours to the same
 * key with the same request; the same key with another request is 409; a key whose first
 * request is still running is 409 too. A server error forgets the key so the client can retry.
 *
 * If the process dies between the work and the storing of its answer, the key stays "in
 * progress" (409) until it expires: never a second execution of a request that may have
 * happened.
 */
export async function runIdempotent(
  context: CoreContext,
  scope: Scope,
  key: string,
  hash: string,
  work: () => Promise<StoredAnswer>,
): Promise<StoredAnswer & { replayed: boolean }> {
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new PaymentError("validation_error", "Invalid request: Idempotency-Key must be 1 to 255 visible ASCII characters.");
  }
  const now = context.now();
  const existing = await context.storage.transaction((tx) =>
    tx.claimIdempotencyKey({
      merchantId: scope.merchantId,
      mode: scope.mode,
      key,
      requestHash: hash,
      state: "started",
      responseStatus: null,
      responseBody: null,
      createdAt: now,
      expiresAt: now + KEY_LIFETIME_MS,
    }),
  );
  if (existing) {
    if (existing.requestHash !== hash) {
      throw new PaymentError("idempotency_conflict", "This Idempotency-Key was used with a different request; use a new key for a new request.");
    }
    if (existing.state !== "completed") {
      throw new PaymentError("idempotency_conflict", "A request with this Idempotency-Key is still being processed; retry in a moment.");
    }
    return { status: existing.responseStatus!, body: existing.responseBody!, replayed: true };
  }
  let answer: StoredAnswer;
  try {
    answer = await work();
  } catch (error) {
    await context.storage.transaction((tx) => tx.deleteIdempotencyKey(scope, key));
    throw error;
  }
  await context.storage.transaction((tx) => tx.completeIdempotencyKey(scope, key, answer.status, answer.body));
  return { ...answer, replayed: false };
}
