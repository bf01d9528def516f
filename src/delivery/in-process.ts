import type { Mode } from "../core/merchants/records";
import { parseWebhookEvent } from "../schemas/events";
import type { ServiceEventHandlers } from "../schemas/service-event";
import type { AttemptVerdict } from "./delivery-policy";

/**
 * Events delivered to the host's own code (`createPaymentRouter({ on })`) instead of a URL. They
 * go through the same outbox as webhooks: recorded with the state change that caused them, one
 * delivery per event in the delivery log (endpoint `IN_PROCESS_ENDPOINT`), claimed with a lease
 * by one instance, retried on the webhook schedule while the handler throws, and settled once
 * it returns. So a handler runs at least once per event, and once per event when it succeeds;
 * make it idempotent on `context.id` as a webhook receiver would be on `webhook-id`.
 */

const TIMED_OUT = Symbol("timed out");

/** What an in-process handler gets besides the event. */
export interface InProcessEventContext {
  /** The delivery's id (`msg_...`): the same on every retry of this event. */
  id: string;
  /** Which attempt this is, from 1. */
  attempt: number;
  /** The merchant and mode the event belongs to. */
  merchantId: string;
  mode: Mode;
}

/** `createPaymentRouter({ on })`: handlers by event type, each given the event narrowed to its type. */
export type InProcessEventHandlers = ServiceEventHandlers<InProcessEventContext>;

/**
 * Runs the handler of one in-process delivery. Never throws: a throw is an attempt to retry, and
 * so is a handler still running after `timeoutMs` (the delivery's lease assumes an attempt ends
 * by then; the handler is not stopped, so it may finish later and run again on the retry).
 */
export async function runInProcessHandler(
  handlers: InProcessEventHandlers,
  delivery: { id: string; eventType: string; payload: string; attempts: number; merchantId: string; mode: Mode },
  timeoutMs: number,
): Promise<AttemptVerdict> {
  const handler = handlers[delivery.eventType as keyof InProcessEventHandlers] as ((event: unknown, context: InProcessEventContext) => unknown) | undefined;
  // Queued under a handler the host has since removed: nobody is left to take it.
  if (!handler) return { kind: "final", error: `no in-process handler for ${delivery.eventType} any more` };
  try {
    // Checked as a receiver would check it: the handler's types promise this shape.
    const parsed = parseWebhookEvent(JSON.parse(delivery.payload));
    if (!parsed.success) return { kind: "final", error: `the event does not match its schema: ${parsed.error.issues[0]?.message}` };
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(resolve, timeoutMs, TIMED_OUT)));
    const run = Promise.resolve(
      handler(parsed.data, { id: delivery.id, attempt: delivery.attempts + 1, merchantId: delivery.merchantId, mode: delivery.mode }),
    );
    const outcome = await Promise.race([run, timedOut]).finally(() => clearTimeout(timer));
    if (outcome === TIMED_OUT) return { kind: "retry", error: `the in-process handler did not finish within ${timeoutMs} ms`, retryAfterMs: null };
    return { kind: "delivered" };
  } catch (error) {
    // The message only: the delivery log is readable over the API, a stack trace is not for it.
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { kind: "retry", error: `the in-process handler threw ${message}`.slice(0, 500), retryAfterMs: null };
  }
}
