import { refuseUnknownOptions } from "../options-error";
import type { NextFunction, Request, Response } from "express";
import getRawBody from "raw-body";
import { BodyTimeoutError, DEFAULT_BODY_TIMEOUT_MS, readWithinDeadline } from "../body-deadline";
import type { Logger } from "../core/ports/logger";
import { EVENT_TYPES } from "../core/webhooks/records";
import { isServiceEventType, type ServiceEventHandlers, type WebhookEvent } from "../schemas/service-event";
import { memoryDedupeStore, type WebhookDedupeStore } from "./dedupe-store";
import { readDeliveryHeaders, type DeliveryHeaders } from "./delivery-headers";
import { WEBHOOK_HANDLER_CODES, WebhookVerificationError } from "../errors";
import type { WebhookSecret } from "../webhook-secret";
import { checkSignature, checkTimestamp, parseEventBody, secretKeys, toleranceOption } from "./verify";

/** What a handler gets besides the event. */
export interface WebhookContext {
  /** The `webhook-id` (or `svix-id`): the same on every retry of one delivery; use it as an idempotency key. */
  id: string;
  /** The `webhook-timestamp` of this attempt, Unix seconds. */
  timestamp: number;
  /** The request, for logging or tracing; its body is the raw bytes. */
  req: Request;
}

/**
 * Handlers by event type, each given the event narrowed to its type (`data.status` is `"PAID"`
 * in a `payment.completed` handler, `"COMPLETED"` in a `payout.completed` one); `"*"` gets every event, types this version does not know
 * included. A handler may be async; its failure makes the answer 500, so the sender retries.
 */
export type WebhookHandlers = ServiceEventHandlers<WebhookContext> & {
  "*"?: (event: WebhookEvent, context: WebhookContext) => unknown;
};

/** Options of webhookHandler. */
export interface WebhookHandlerOptions {
  /** The endpoint's secret (`whsec_...` or key bytes), or several during a rotation. */
  secret: WebhookSecret | readonly WebhookSecret[];
  /** The handlers. At least one. */
  on: WebhookHandlers;
  /** How far `webhook-timestamp` may be from now, either way, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** Largest body, bytes or a string like `"512kb"`. Default `"1mb"`; 413 past it. */
  limit?: string | number;
  /**
   * How long the body may take to arrive in full, in ms: past it the answer is 408 (40801) and
   * the connection is closed, instead of a request held until the server's own timeout.
   * Default 30000.
   */
  bodyTimeoutMs?: number;
  /** Where processed ids are kept. Default: `memoryDedupeStore()`; `false` to run every delivery. */
  dedupe?: WebhookDedupeStore | false;
  /** Gets rejected deliveries (warn) and failures (error). Default `console`. */
  logger?: Logger;
  /** The clock, epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

/**
 * The Express middleware webhookHandler returns. It answers every request itself, except for a
 * failure it has no answer for (a bug, a request stream it cannot read): that goes to `next`,
 * the host's error middleware, on Express 4 as on Express 5. Called without `next`, the
 * returned promise rejects with it instead.
 */
export type WebhookMiddleware = (req: Request, res: Response, next?: NextFunction) => Promise<void>;

type HandlerAnswer = keyof typeof WEBHOOK_HANDLER_CODES;

const OPTION_NAMES = ["secret", "on", "toleranceSeconds", "limit", "bodyTimeoutMs", "dedupe", "logger", "now"];
const HANDLER_NAMES: ReadonlySet<string> = new Set([...EVENT_TYPES, "*"]);
const BYTE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** A limit as bytes; `"1mb"` style strings as body-parser reads them. */
function byteLimit(limit: string | number): number {
  if (typeof limit === "number" && Number.isInteger(limit) && limit > 0) return limit;
  const match = typeof limit === "string" ? /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)\s*$/i.exec(limit) : null;
  const bytes = match ? Math.floor(Number(match[1]) * BYTE_UNITS[match[2]!.toLowerCase()]!) : 0;
  // raw-body treats a limit it cannot parse as no limit at all: refuse it here instead.
  if (bytes <= 0) throw new TypeError(`webhookHandler: limit must be a positive number of bytes or a string like "1mb", got ${JSON.stringify(limit)}`);
  return bytes;
}

function validated(options: WebhookHandlerOptions) {
  if (typeof options !== "object" || options === null) throw new TypeError("webhookHandler: pass an options object: { secret, on }");
  refuseUnknownOptions("webhookHandler", options, OPTION_NAMES);
  if (options.secret === undefined) throw new TypeError("webhookHandler: `secret` is required: the endpoint's whsec_... secret as the sender shows it");
  const keys = secretKeys(options.secret);
  const on = options.on as Record<string, unknown> | undefined;
  if (typeof on !== "object" || on === null) throw new TypeError('webhookHandler: `on` is required: { "payment.completed": (event) => ... }');
  for (const [name, handler] of Object.entries(on)) {
    if (!HANDLER_NAMES.has(name)) throw new TypeError(`webhookHandler: on["${name}"] is not an event type; known: ${[...HANDLER_NAMES].join(", ")}`);
    if (typeof handler !== "function") throw new TypeError(`webhookHandler: on["${name}"] must be a function`);
  }
  if (Object.keys(on).length === 0) throw new TypeError("webhookHandler: `on` has no handlers, so every event would be acknowledged unprocessed");
  const dedupe = options.dedupe === undefined ? memoryDedupeStore() : options.dedupe;
  if (
    dedupe !== false &&
    (typeof dedupe !== "object" ||
      dedupe === null ||
      ["claim", "complete", "release"].some((m) => typeof (dedupe as unknown as Record<string, unknown>)[m] !== "function"))
  ) {
    throw new TypeError("webhookHandler: `dedupe` must be a WebhookDedupeStore (claim, complete, release) or false");
  }
  const logger = options.logger ?? console;
  if (typeof logger?.warn !== "function" || typeof logger.error !== "function") throw new TypeError("webhookHandler: `logger` needs warn and error methods");
  const now = options.now ?? Date.now;
  if (typeof now !== "function") throw new TypeError("webhookHandler: `now` must be a function returning epoch milliseconds");
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  if (!Number.isInteger(bodyTimeoutMs) || bodyTimeoutMs < 1 || bodyTimeoutMs > 600_000) {
    throw new TypeError(`webhookHandler: bodyTimeoutMs must be a whole number of milliseconds from 1 to 600000, got ${JSON.stringify(bodyTimeoutMs)}`);
  }
  return {
    keys,
    on: on as Record<string, ((event: WebhookEvent, context: WebhookContext) => unknown) | undefined>,
    toleranceSeconds: toleranceOption(options.toleranceSeconds),
    limit: byteLimit(options.limit ?? "1mb"),
    bodyTimeoutMs,
    dedupe,
    logger,
    now,
  };
}

// Pre-serialised: the success answer is the same bytes every time.
const RECEIVED = JSON.stringify({ received: true });
const RECEIVED_DUPLICATE = JSON.stringify({ received: true, duplicate: true });

function send(res: Response, status: number, body: string): void {
  // Plain node:http writes: no ETag hashing or content negotiation for a fixed tiny answer.
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(body);
}

function fail(res: Response, answer: HandlerAnswer, message: string): void {
  const { status, code } = WEBHOOK_HANDLER_CODES[answer];
  send(res, status, JSON.stringify({ error: code, message }));
}

const ALREADY_PARSED =
  "the payload was parsed into %s before webhookHandler saw it; signature verification needs the raw bytes: mount webhookHandler before express.json(), or use express.raw({ type: 'application/json' }) on this route";

/**
 * The raw body: from express.raw() (a Buffer req.body), from a body-parser `verify` hook
 * (req.rawBody), or read from the stream. Undefined when it has answered already.
 */
async function rawBody(req: Request, res: Response, limit: number, timeoutMs: number, logger: Logger): Promise<Buffer | string | undefined> {
  const parsed: unknown = req.body;
  if (Buffer.isBuffer(parsed)) return parsed;
  const saved = (req as { rawBody?: unknown }).rawBody;
  if (Buffer.isBuffer(saved) || typeof saved === "string") return saved;
  if (parsed !== undefined || req.readableEnded) {
    const what = parsed === undefined ? "nothing (the stream was read by an earlier middleware)" : typeof parsed === "string" ? "a string" : "an object";
    const message = `webhookHandler: ${ALREADY_PARSED.replace("%s", what)}.`;
    logger.error(message);
    fail(res, "body_already_parsed", message);
    return undefined;
  }
  try {
    return await readWithinDeadline(req, res, timeoutMs, getRawBody(req, { length: req.headers["content-length"] ?? null, limit }));
  } catch (error) {
    if (error instanceof BodyTimeoutError) {
      fail(res, "request_timeout", error.message);
      return undefined;
    }
    const status = (error as { status?: number }).status;
    const type = (error as { type?: string }).type;
    if (type === "request.aborted") return undefined; // the sender hung up: nobody to answer
    if (status === 413)
      fail(res, "payload_too_large", `The body is larger than this endpoint's limit of ${limit} bytes (the webhookHandler \`limit\` option).`);
    else if (status === 400) fail(res, "unreadable_body", `The body could not be read: ${(error as Error).message}.`);
    else throw error;
    return undefined;
  }
}

/** Runs every handler; one failure is rethrown as it is, several as one AggregateError. */
async function runAll(
  handlers: ReadonlyArray<(event: WebhookEvent, context: WebhookContext) => unknown>,
  event: WebhookEvent,
  context: WebhookContext,
): Promise<void> {
  if (handlers.length === 1) {
    await handlers[0]!(event, context);
    return;
  }
  const results = await Promise.allSettled(handlers.map(async (handler) => handler(event, context)));
  const errors = results.flatMap((result) => (result.status === "rejected" ? [result.reason as unknown] : []));
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} handlers of ${event.type} failed`);
}

/**
 * Express middleware that receives signed webhooks: `app.post("/hooks/pay", webhookHandler({
 * secret, on: { "payment.completed": (event) => markPaid(event.data.metadata?.orderId) } }))`.
 *
 * Reads the raw body itself (so mount it before, or instead of, express.json()), verifies it
 * with verifyWebhook's rules (`webhook-*` or Svix's `svix-*` headers), and calls the handlers
 * of the event's type and `"*"`. Answers 200 `{ received: true }` only after every handler
 * succeeded; 400/401 for a delivery that fails verification, 413 past `limit`, 408 for a body
 * that has not arrived in full after `bodyTimeoutMs` (the connection is closed), 500 when a
 * handler threw (the sender retries), 200 for an event type without handlers. Each
 * `webhook-id` (or `svix-id`) is processed once: a duplicate of a
 * processed id gets 200 without running anything, one still being processed gets 409 (the
 * sender retries later), and a failed handler leaves the id free for the retry.
 *
 * Options are checked here: a bad secret or an unknown event name throws at start-up.
 */
export function webhookHandler(options: WebhookHandlerOptions): WebhookMiddleware {
  const { keys, on, toleranceSeconds, limit, bodyTimeoutMs, dedupe, logger, now } = validated(options);
  const catchAll = on["*"];
  // Each type's handler list, built once: dispatch is one map lookup.
  const byType = new Map<string, Array<(event: WebhookEvent, context: WebhookContext) => unknown>>();
  for (const type of EVENT_TYPES) {
    const list = [on[type], catchAll].filter((handler) => handler !== undefined);
    byType.set(type, list);
  }
  const forUnknownTypes = catchAll ? [catchAll] : [];

  const reject = (res: Response, error: unknown, id?: string): void => {
    if (!(error instanceof WebhookVerificationError)) throw error;
    logger.warn(`webhookHandler: rejected a delivery${id ? ` (webhook-id ${id})` : ""}: ${error.reason}: ${error.message}`);
    send(res, error.status, JSON.stringify(error));
  };

  const receive = async (req: Request, res: Response): Promise<void> => {
    // Header and clock checks first: a forged or replayed request is turned away before its
    // body is read.
    let delivery: DeliveryHeaders;
    try {
      delivery = readDeliveryHeaders(req.headers);
      checkTimestamp(delivery.timestamp, toleranceSeconds, now());
    } catch (error) {
      return reject(res, error);
    }
    const body = await rawBody(req, res, limit, bodyTimeoutMs, logger);
    if (body === undefined) return;
    let event: WebhookEvent;
    try {
      checkSignature(keys, delivery, body);
      event = parseEventBody(body);
    } catch (error) {
      return reject(res, error, delivery.id);
    }

    const handlers = isServiceEventType(event.type) ? byType.get(event.type)! : forUnknownTypes;
    // Forward compatible: a type with no handler (one this version does not know, say) is
    // acknowledged, so the sender does not retry what will never be handled.
    if (handlers.length === 0) return send(res, 200, RECEIVED);
    const context: WebhookContext = { id: delivery.id, timestamp: delivery.timestamp, req };

    let token: string | undefined;
    if (dedupe) {
      try {
        const claim = await dedupe.claim(delivery.id);
        if (claim.status === "done") return send(res, 200, RECEIVED_DUPLICATE);
        if (claim.status === "in_progress") {
          res.setHeader("Retry-After", "5");
          return fail(res, "in_progress", `A delivery with webhook-id ${delivery.id} is being processed now; retry later.`);
        }
        token = claim.token;
      } catch (error) {
        logger.error(`webhookHandler: the dedupe store failed to claim webhook-id ${delivery.id}; answered 500 so the sender retries`, error);
        return fail(res, "dedupe_unavailable", "The receiver could not record this delivery; retry later.");
      }
    }

    try {
      await runAll(handlers, event, context);
    } catch (error) {
      logger.error(`webhookHandler: the ${event.type} handler failed for webhook-id ${delivery.id}; answered 500 so the sender retries`, error);
      if (dedupe && token !== undefined) {
        try {
          await dedupe.release(delivery.id, token);
        } catch (releaseError) {
          logger.error(`webhookHandler: the dedupe store failed to release webhook-id ${delivery.id}; retries wait for the lease to run out`, releaseError);
        }
      }
      return fail(res, "handler_failed", `The ${event.type} handler failed; the delivery should be retried.`);
    }

    if (dedupe && token !== undefined) {
      try {
        await dedupe.complete(delivery.id, token);
      } catch (error) {
        // The work is done: a 500 here would make the sender retry it. Answer 200 and say so.
        logger.error(`webhookHandler: the dedupe store failed to mark webhook-id ${delivery.id} done; a retry of it would run again`, error);
      }
    }
    send(res, 200, RECEIVED);
  };

  // Express 4 ignores a handler's promise: without the catch, a rejection would never reach the
  // host's error middleware and would leave an unhandled rejection behind.
  return function receiveWebhook(req: Request, res: Response, next?: NextFunction): Promise<void> {
    const received = receive(req, res);
    return next ? received.catch(next) : received;
  };
}
