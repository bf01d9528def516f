import type { IdempotencyStore } from "../../../core/ports/storage/index";
import { copy } from "./copy";
import { deleteIn, idempotencyKey, type Run, setIn, type Tables, type Undo } from "./tables";

/** Idempotency keys: writes only (a claim answers the stored record). */
export function idempotencyWrites(t: Tables, run: Run, undo: Undo[]): IdempotencyStore {
  return {
    claimIdempotencyKey: (record, leaseMs) =>
      run("claimIdempotencyKey", () => {
        const key = idempotencyKey(record.merchantId, record.mode, record.key);
        const existing = t.idempotency.get(key);
        // One process: its own clock is the clock every user of this storage shares.
        const now = Date.now();
        const lapsed = existing?.state === "started" && existing.requestHash === record.requestHash && (t.leases.get(key) ?? 0) <= now;
        if (existing && existing.expiresAt > record.createdAt && !lapsed) return copy(existing);
        setIn(t.idempotency, key, copy(record), undo);
        setIn(t.leases, key, now + leaseMs, undo);
        return null;
      }),
    completeIdempotencyKey: (scope, key, leaseToken, responseStatus, responseBody) =>
      run("completeIdempotencyKey", () => {
        const id = idempotencyKey(scope.merchantId, scope.mode, key);
        const existing = t.idempotency.get(id);
        if (!existing || existing.leaseToken !== leaseToken) return false;
        setIn(t.idempotency, id, { ...existing, state: "completed", responseStatus, responseBody }, undo);
        return true;
      }),
    deleteIdempotencyKey: (scope, key, leaseToken) =>
      run("deleteIdempotencyKey", () => {
        const id = idempotencyKey(scope.merchantId, scope.mode, key);
        if (t.idempotency.get(id)?.leaseToken !== leaseToken) return;
        deleteIn(t.idempotency, id, undo);
        deleteIn(t.leases, id, undo);
      }),
    deleteExpiredIdempotencyKeys: (now, limit) =>
      run("deleteExpiredIdempotencyKeys", () => {
        let deleted = 0;
        for (const [key, record] of t.idempotency) {
          if (deleted >= limit) break;
          if (record.expiresAt > now) continue;
          deleteIn(t.idempotency, key, undo);
          deleteIn(t.leases, key, undo);
          deleted++;
        }
        return deleted;
      }),
  };
}
