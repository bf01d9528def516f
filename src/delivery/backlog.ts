import type { WebhookDeliveryRecord } from "../core/ports/records";

/** What health shows of webhook delivery, as this process has seen it. */
export interface DeliveryBacklogSnapshot {
  /** Deliveries this process attempted that wait for a retry, due now or later. */
  retrying: number;
  /** Of those, the ones whose next attempt is due now. */
  due: number;
  /** How long the oldest due one has been due, in ms (0 when none is). */
  oldestDueMs: number;
  /** Endpoints whose last attempt from this process failed (their ids are merchant data, so only a count). */
  failingEndpoints: number;
}

/**
 * The webhook sender's outcomes, kept in memory for health checks: the storage has no read of
 * the whole outbox across merchants, so each process reports what its own sender attempted.
 * Bounded by the deliveries waiting for a retry and the endpoints seen.
 */
export class DeliveryBacklog {
  private readonly retrying = new Map<string, number>();
  private readonly endpointFailing = new Map<string, boolean>();

  /** Records where one attempted delivery stands after its attempt. */
  observe(delivery: Pick<WebhookDeliveryRecord, "id" | "endpointId">, outcome: { status: string; nextAttemptAt?: number | null }, delivered: boolean): void {
    if (outcome.status === "pending" && typeof outcome.nextAttemptAt === "number") this.retrying.set(delivery.id, outcome.nextAttemptAt);
    else this.retrying.delete(delivery.id);
    this.endpointFailing.set(delivery.endpointId, !delivered);
  }

  /** The backlog as of `now` (epoch ms). */
  snapshot(now: number): DeliveryBacklogSnapshot {
    let due = 0;
    let oldest = now;
    for (const at of this.retrying.values()) {
      if (at > now) continue;
      due++;
      oldest = Math.min(oldest, at);
    }
    const failingEndpoints = [...this.endpointFailing.values()].filter(Boolean).length;
    return { retrying: this.retrying.size, due, oldestDueMs: now - oldest, failingEndpoints };
  }
}
