/**
 * The webhook outbox's backlog across every merchant and mode, as one bounded read: what an
 * operator watches (health, metrics) whichever instance sent or queued the deliveries.
 */
export interface WebhookBacklog {
  /** Pending deliveries due now (`nextAttemptAt <= now`) that no worker holds (no live lease), counted up to the read's `limit`. */
  due: number;
  /** The `nextAttemptAt` of the earliest of those (epoch ms), or null when none is due. */
  oldestDueAt: number | null;
  /** Pending deliveries attempted at least once (their last attempt failed), due now or later, counted up to `limit`. */
  retrying: number;
  /**
   * Endpoints with at least one such delivery whose latest attempt, of any of their deliveries
   * (the one recorded with the latest outcome time, see `recordWebhookAttempt`), did not
   * succeed. An endpoint counts as healthy again from its first success after a failure, while
   * its older deliveries still wait for their retries. Counted up to `limit`.
   */
  failingEndpoints: number;
}

/**
 * The backlog read. Not scoped: it answers counts only, never a merchant's ids. Cheap on a large
 * outbox (an adapter answers it from indexes over pending deliveries, never by scanning the
 * delivery log), and bounded by `limit`. Optional (the `webhookBacklog` part): without it health
 * reports the backlog unknown (`webhooks: null`) and the metrics leave its gauges out.
 */
export interface WebhookBacklogReads {
  /** The backlog as of `now` (epoch ms), each count stopping at `limit`. */
  webhookBacklog(now: number, limit: number): Promise<WebhookBacklog>;
}
