import type * as PromClient from "prom-client";
import type { WebhookBacklog } from "../core/ports/storage/index";
import { CachedRead } from "./chain-gauges";

/** How long one backlog read is reused: a scrape storm (several scrapers, or one retrying) costs the storage one read. */
export const BACKLOG_CACHE_MS = 10_000;

/** What the backlog gauges read: the storage's backlog as of the router's clock. */
export interface BacklogSource {
  read: () => Promise<WebhookBacklog>;
  /** The router's clock (epoch ms), which the deliveries' due times are on. */
  now: () => number;
}

/**
 * The webhook outbox's backlog across every instance (the storage's read, not this process's
 * sender): `webhook_backlog`, deliveries due now that no instance is sending, and
 * `webhook_backlog_oldest_seconds`, how long the oldest of them has waited (0 when none is due).
 * Read at scrape time and reused for `BACKLOG_CACHE_MS`; a read that fails or takes over 2 s
 * leaves both out of that scrape (absent rather than a wrong 0).
 */
export function webhookGauges(
  prom: typeof PromClient,
  { prefix, registers }: { prefix: string; registers: PromClient.Registry[] },
  source: BacklogSource,
): void {
  const backlog = new CachedRead(async () => {
    const readAt = source.now();
    return { readAt, ...(await source.read()) };
  }, BACKLOG_CACHE_MS);
  new prom.Gauge({
    name: `${prefix}webhook_backlog`,
    help: "Webhook deliveries due now that no instance is sending, across every merchant (counted up to 10000).",
    registers,
    async collect() {
      this.reset();
      const seen = await backlog.get();
      if (seen) this.set(seen.due);
    },
  });
  new prom.Gauge({
    name: `${prefix}webhook_backlog_oldest_seconds`,
    help: "How long the oldest due webhook delivery has waited for its attempt, in seconds (0 when none is due).",
    registers,
    async collect() {
      this.reset();
      const seen = await backlog.get();
      if (seen) this.set(seen.oldestDueAt === null ? 0 : Math.max(0, (seen.readAt - seen.oldestDueAt) / 1000));
    },
  });
}
