/**
 * What an answer to a webhook means for its delivery, and when the next attempt is due. Pure:
 * the sender (sender.ts) does the I/O. The rules follow Standard Webhooks and Svix: anything
 * but a 2xx may succeed later and is retried on the message's own schedule, except a 410 (the
 * endpoint is gone) and an answer carrying `webhook-delivery: abort-message` (the receiver
 * asks us to stop retrying this one message).
 */

/** The default retry schedule: Standard Webhooks' 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/**
 * The longest Retry-After honoured, in ms (24 h). A longer one (or a date years ahead, a
 * misconfigured receiver) is taken as this, so a message is never parked out of reach.
 */
export const RETRY_AFTER_MAX_MS = 24 * 60 * 60 * 1000;

/** What one attempt's outcome means for its delivery. */
export type AttemptVerdict =
  | { kind: "delivered" }
  /** Try again on the schedule, no sooner than `retryAfterMs` when the receiver said so. */
  | { kind: "retry"; error: string; retryAfterMs: number | null }
  /** Never again (the receiver aborted the message, or the address is refused). */
  | { kind: "final"; error: string }
  /** 410 Gone: disable the endpoint and fail what is queued for it. */
  | { kind: "gone"; error: string };

/** The answer of a receiver, as far as the verdict goes. */
export interface ReceiverAnswer {
  statusCode: number;
  /** The Retry-After header as ms from now, or null. */
  retryAfterMs: number | null;
  /** The answer carried `webhook-delivery: abort-message`. */
  abortMessage: boolean;
}

/**
 * Judges an HTTP answer: 2xx delivered; 410 gone; `webhook-delivery: abort-message` on any
 * other answer final (on a 2xx it changes nothing, as with Svix); everything else, 3xx and 4xx
 * included, retried. A 4xx is often a receiver that is not ready: webhookHandler's own 409 for a
 * retry overlapping a slow first attempt, a 404 while a deploy rolls out, a 401 while a secret
 * is being rotated. Giving up at once would lose the event.
 */
export function judgeAnswer(answer: ReceiverAnswer): AttemptVerdict {
  const { statusCode } = answer;
  if (statusCode >= 200 && statusCode < 300) return { kind: "delivered" };
  if (statusCode === 410) return { kind: "gone", error: "the endpoint answered 410 Gone and was disabled" };
  if (answer.abortMessage) return { kind: "final", error: `the endpoint answered ${statusCode} with webhook-delivery: abort-message; not retried` };
  return { kind: "retry", error: `the endpoint answered ${statusCode}`, retryAfterMs: answer.retryAfterMs };
}

/** Reads a `webhook-delivery` header: whether one of its comma-separated directives is `abort-message`. */
export function asksToAbort(header: string | string[] | undefined): boolean {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return values.some((value) => value.split(",").some((directive) => directive.trim().toLowerCase() === "abort-message"));
}

/**
 * The wait before the next attempt, once `attempts` attempts were made, or null when the
 * schedule has run out: `schedule[attempts - 1]` spread by +-`jitter`, and never sooner than a
 * Retry-After (capped at RETRY_AFTER_MAX_MS).
 */
export function retryDelay(
  schedule: readonly number[],
  attempts: number,
  jitter: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number | null {
  const base = schedule[attempts - 1];
  if (base === undefined) return null;
  const spread = base * jitter * (random() * 2 - 1);
  return Math.max(Math.round(base + spread), Math.min(retryAfterMs ?? 0, RETRY_AFTER_MAX_MS));
}
