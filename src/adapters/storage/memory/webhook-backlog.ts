import type { WebhookBacklog, WebhookBacklogReads } from "../../../core/ports/storage/index";
import type { Run, Tables } from "./tables";

/** The backlog across every merchant: a walk over pending deliveries only (the delivery log's settled ones are never visited). */
export function webhookBacklogReads(t: Tables, run: Run): WebhookBacklogReads {
  return {
    webhookBacklog: (now, limit) =>
      run("webhookBacklog", () => {
        const backlog: WebhookBacklog = { due: 0, oldestDueAt: null, retrying: 0, failingEndpoints: 0 };
        for (const [endpointId, ids] of t.pendingByEndpoint) {
          let failing = false;
          for (const id of ids) {
            const delivery = t.deliveries.get(id)?.record;
            if (delivery?.status !== "pending" || delivery.nextAttemptAt === null) continue;
            if (delivery.attempts > 0) {
              failing = true;
              backlog.retrying++;
            }
            const held = delivery.leaseUntil !== null && delivery.leaseUntil > now;
            if (delivery.nextAttemptAt > now || held) continue;
            backlog.due++;
            if (backlog.oldestDueAt === null || delivery.nextAttemptAt < backlog.oldestDueAt) backlog.oldestDueAt = delivery.nextAttemptAt;
          }
          // Failing while its latest attempt did not succeed: one success counts it healthy again.
          if (failing && t.endpointOutcomes.get(endpointId)?.succeeded !== true) backlog.failingEndpoints++;
        }
        return {
          ...backlog,
          due: Math.min(backlog.due, limit),
          retrying: Math.min(backlog.retrying, limit),
          failingEndpoints: Math.min(backlog.failingEndpoints, limit),
        };
      }),
  };
}
