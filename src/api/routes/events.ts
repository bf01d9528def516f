import type { CoreContext } from "../../core/context";
import type { EventRecord } from "../../core/webhooks/records";
import * as resources from "../../schemas/resources";
import * as schemas from "../../schemas/webhooks";
import type { RouteTable } from "../route-table";

/** An event as GET /v1/events lists it. */
const eventView = (event: EventRecord) => ({
  id: event.id,
  object: "event" as const,
  livemode: event.mode === "live",
  type: event.type,
  createdAt: new Date(event.createdAt).toISOString(),
  data: event.data,
});

/**
 * The event log under /v1: what a client that cannot receive webhooks (a developer's machine
 * behind NAT, `express-crypto-pay listen`) polls instead. It reads forward from a position, so
 * polling costs one indexed page however long the log is.
 */
export function eventRoutes(routes: RouteTable, context: CoreContext): void {
  routes.get(
    "/events",
    schemas.eventListQuery,
    async (query, { scope }) => {
      if (query.after === "now") return { data: [], nextCursor: await context.storage.eventLogEnd(scope) };
      const page = await context.storage.readEventLog(scope, query.after ?? null, query.limit);
      return { data: page.events.map(eventView), nextCursor: page.position };
    },
    {
      docs: {
        summary: "Read the event log",
        description:
          "The events of this key's merchant and mode, oldest first, as their webhooks carry them, `limit` at a time (1 to 100, default 20), after `after`: a `nextCursor` of an earlier answer, or `now` (no events, and the cursor of the end of the log as it stands). Every event is listed whether or not a webhook endpoint subscribes to it; test events sent with `POST /v1/webhook-endpoints/:id/test` are not in the log. To follow the log, keep the last `nextCursor` and ask again: fewer than `limit` events means none more for now. Events are listed oldest first in a commit-safe order: a reader that follows `nextCursor` sees every event once, even when two transactions commit in another order than they recorded their events (on a PostgreSQL server an event is listed once no older transaction is still running, which may delay it by that transaction's length, never skip it).",
        response: resources.serviceEventPage,
        tags: ["Event log"],
      },
    },
  );
}
