import { setTimeout as sleep } from "node:timers/promises";
import type { CoreContext } from "../core/context";
import { IN_PROCESS_ENDPOINT } from "../core/ports/fan-out";
import { newId } from "../ids";
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from "../core/webhooks/records";
import type { WebhookAttemptOutcome } from "../core/ports/telemetry";
import { DEFAULT_RETRY_SCHEDULE, judgeAnswer, retryDelay, type AttemptVerdict } from "./delivery-policy";
import { postWebhook } from "./http-post";
import { runInProcessHandler, type InProcessEventHandlers } from "./in-process";
import { webhookHeaders } from "../webhooks/sign";
import { BlockedAddressError, resolveWebhookTarget, type WebhookAddressOptions } from "./url-guard";
import { OutageLog } from "../outage-log";

/** How the log names the sender's background passes (claim due deliveries, start them). */
const PASS = "webhook delivery pass";

export { DEFAULT_RETRY_SCHEDULE } from "./delivery-policy";

/** How the service delivers webhooks. Every field has a default. */
export interface WebhookDeliveryOptions extends WebhookAddressOptions {
  /**
   * Delays before each retry, in ms: after attempt k fails, attempt k+1 waits `retrySchedule[k-1]`
   * (with jitter, and never less than a Retry-After). When the list runs out the delivery fails
   * (it stays in the log and can be redelivered). Each message has its own: a failing one delays
   * nothing else. Default, Standard Webhooks': 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8
   * attempts over about 28 hours).
   */
  retrySchedule?: number[];
  /** Each attempt's time limit, in ms. Default 15000. */
  timeoutMs?: number;
  /** Random spread of each delay, as a fraction (0.1 = +-10%). Default 0.1. */
  jitter?: number;
  /**
   * Retries whose delay is at most this are waited for in process, the delivery keeping its slot
   * and its lease; longer ones are stored and picked up when due (by any instance). Default 0:
   * every retry is stored, so a failing receiver holds no slot while it waits.
   */
  inProcessRetryMaxMs?: number;
  /** Deliveries in flight at once in this instance, all endpoints together. Default 100. */
  concurrency?: number;
  /**
   * Deliveries in flight at once to one endpoint, counted across every instance sharing the
   * storage. Default 10. A slow or hanging receiver holds at most this many of the instance's
   * `concurrency` slots, each for at most `timeoutMs`.
   */
  concurrencyPerEndpoint?: number;
  /**
   * How long an instance holds a delivery it claimed. An instance that dies (kill -9, a lost
   * machine) leaves its deliveries to other instances once their leases run out: this is the
   * bound on that takeover. It must cover one attempt (and in-process retries, if any). Default
   * `timeoutMs` plus in-process retries plus 10 s (25 s with the defaults).
   */
  leaseMs?: number;
  /** How often the sender looks for due deliveries, in ms, or false for `tick()` only. Default 1000. */
  intervalMs?: number | false;
}

const USER_AGENT = "express-crypto-pay-webhooks/1";

/** Least time between two delivery passes started by kicks (the polling interval aside). */
const KICK_GAP_MS = 10;

/** Margin of a default lease beyond the attempts it covers: recording the outcome, clock skew between instances. */
const LEASE_MARGIN_MS = 10_000;

/** One HTTP attempt as it is logged, and what it means. */
interface AttemptResult {
  at: number;
  statusCode: number | null;
  durationMs: number;
  verdict: AttemptVerdict;
}

/** What becomes of a delivery after an attempt. */
type Settlement =
  | { status: "succeeded" }
  | { status: "failed"; error: string }
  /** Due again at `nextAttemptAt`; `keepLease` while this instance waits for it in process. */
  | { status: "pending"; nextAttemptAt: number; keepLease?: boolean };

/**
 * Delivers recorded webhooks. Each delivery is a message on its own schedule: a failing one
 * waits for its own retry and holds nothing else back, and up to `concurrencyPerEndpoint`
 * deliveries go to one endpoint at once, so events reach a receiver in no promised order
 * (their `timestamp` and the payment's state in `data` tell it the order).
 *
 * Work is claimed from storage with a lease, so any number of senders (one per app instance)
 * can run against one database without sending anything twice at once, and a sender that dies
 * mid-delivery leaves its leases to run out (`leaseMs`) and be taken over.
 */
export class WebhookSender {
  private readonly schedule: readonly number[];
  private readonly timeoutMs: number;
  private readonly jitter: number;
  private readonly inProcessMax: number;
  private readonly concurrency: number;
  private readonly perEndpoint: number;
  /** How long a claim holds a delivery (see leaseMs). */
  readonly leaseMs: number;
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  /** The pass a kick scheduled, not started yet: later kicks join it. */
  private kicked: NodeJS.Timeout | null = null;
  private lastKickedPass = 0;
  /** A background pass is claiming now; `passAgain` asks for another once it is done. */
  private passRunning = false;
  private passAgain = false;
  private stopped = false;
  /** Aborted by stop(): in-flight requests and retry waits end at once instead of running out. */
  private readonly abort = new AbortController();
  /** A storage that cannot be reached fails every pass: its error once, a line a pass, a line when it works again. */
  private readonly outages: OutageLog;

  constructor(
    private readonly context: CoreContext,
    private readonly options: WebhookDeliveryOptions = {},
    /** The host's own handlers (`createPaymentRouter({ on })`), for deliveries to IN_PROCESS_ENDPOINT. */
    private readonly handlers: InProcessEventHandlers = {},
  ) {
    this.outages = new OutageLog(context.logger, { try: "pass" });
    this.schedule = options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE;
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.jitter = options.jitter ?? 0.1;
    this.inProcessMax = options.inProcessRetryMaxMs ?? 0;
    this.concurrency = options.concurrency ?? 100;
    this.perEndpoint = options.concurrencyPerEndpoint ?? 10;
    // The longest one claim can keep a delivery busy: its attempts, in-process waits included.
    const inProcess = this.schedule.filter((delay) => delay <= this.inProcessMax);
    const busy = Math.ceil((inProcess.length + 1) * this.timeoutMs + inProcess.reduce((sum, delay) => sum + delay * (1 + this.jitter), 0));
    this.leaseMs = options.leaseMs ?? busy + LEASE_MARGIN_MS;
    if (this.leaseMs <= busy) {
      throw new TypeError(
        `createPaymentRouter: webhooks.leaseMs (${this.leaseMs}) must be longer than one claim can keep a delivery busy (${busy} ms: timeoutMs for each attempt, with in-process retries and their waits), or another instance would take deliveries over while they are still being sent`,
      );
    }
  }

  /** Starts the polling loop (the timer never keeps the process alive). */
  start(): void {
    const interval = this.options.intervalMs ?? 1000;
    if (interval === false || this.timer) return;
    this.stopped = false;
    this.timer = setInterval(() => this.pass(), interval);
    this.timer.unref();
  }

  /**
   * Looks for due work soon: called after a unit of work that may have queued deliveries
   * committed. Every payment's state change kicks, so kicks are coalesced: at most one pass per
   * KICK_GAP_MS, or a busy service would send a claim query to the database for each request
   * it serves.
   */
  kick(): void {
    if (this.kicked || this.stopped || !this.timer) return;
    const wait = Math.max(0, this.lastKickedPass + KICK_GAP_MS - Date.now());
    this.kicked = setTimeout(() => {
      this.kicked = null;
      this.lastKickedPass = Date.now();
      this.pass();
    }, wait);
    this.kicked.unref();
  }

  /**
   * Delivers everything due now and waits for it, including what becomes claimable as earlier
   * deliveries finish (an endpoint's slots freeing up). For tests and `tick()`.
   */
  async runOnce(): Promise<number> {
    let sent = 0;
    // Bounded: a queue that keeps refilling (an endpoint failing fast with in-process retries
    // of 0 ms) must not hold a tick forever.
    for (let round = 0; round < 1000; round++) {
      const started = await this.claimAndStart();
      if (started.length === 0) break;
      await Promise.all(started);
      sent += started.length;
    }
    return sent;
  }

  /** Stops the loop and waits for deliveries in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.kicked) clearTimeout(this.kicked);
    this.kicked = null;
    this.abort.abort();
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /**
   * One background claim at a time: a pass asked for while one runs is run right after it, so
   * however many deliveries finish at once, they cost one or two claims, each taking every slot
   * that freed meanwhile.
   */
  private pass(): void {
    if (this.stopped || !this.timer) return;
    if (this.passRunning) {
      this.passAgain = true;
      return;
    }
    this.passRunning = true;
    this.claimAndStart()
      .then(
        () => this.outages.worked(PASS),
        (error: unknown) => this.outages.failed(PASS, error),
      )
      .finally(() => {
        this.passRunning = false;
        if (this.passAgain) {
          this.passAgain = false;
          this.pass();
        }
      });
  }

  private async claimAndStart(): Promise<Array<Promise<void>>> {
    const capacity = this.concurrency - this.inFlight.size;
    if (capacity <= 0) return [];
    const now = this.context.now();
    // One read per endpoint however many of its deliveries the claim took, started as soon as
    // the claim answered: it runs (on the storage itself, so it is not awaited inside the
    // transaction) while the transaction commits, a round trip less before the first request.
    const endpoints = new Map<string, Promise<WebhookEndpointRecord | null>>();
    const claimed = await this.context.storage.transaction(async (tx) => {
      const taken = await tx.claimWebhookDeliveries(now, capacity, this.leaseMs, this.perEndpoint);
      for (const { endpointId, merchantId, mode } of taken) {
        if (endpoints.has(endpointId) || endpointId === IN_PROCESS_ENDPOINT) continue;
        const read = this.context.storage.getWebhookEndpoint({ merchantId, mode }, endpointId);
        read.catch(() => undefined); // awaited by the deliveries; never an unhandled rejection if the commit fails
        endpoints.set(endpointId, read);
      }
      return taken;
    });
    return claimed.map((delivery) => {
      const task = (endpoints.get(delivery.endpointId) ?? Promise.resolve(null))
        .then((endpoint) => this.deliver(delivery, endpoint))
        .catch((error) => this.context.logger.error(`webhook delivery ${delivery.id} failed unexpectedly; its lease will expire and it will be retried`, error))
        .finally(() => {
          this.inFlight.delete(delivery.id);
          // Its slots are free (the instance's and its endpoint's): whatever waited for them goes
          // now, not at the next poll. Passes coalesce, so a burst of completions costs one or two.
          this.pass();
        });
      this.inFlight.set(delivery.id, task);
      return task;
    });
  }

  /** Attempts a claimed delivery, with in-process retries if configured, and records each attempt. */
  private async deliver(delivery: WebhookDeliveryRecord, endpoint: WebhookEndpointRecord | null): Promise<void> {
    const inProcess = delivery.endpointId === IN_PROCESS_ENDPOINT;
    if (!inProcess && endpoint?.status !== "enabled") {
      return this.record(delivery, null, { status: "failed", error: endpoint ? "the endpoint is disabled" : "the endpoint was deleted" });
    }
    let attempts = delivery.attempts;
    for (;;) {
      const once = () => (inProcess ? this.attemptInProcess({ ...delivery, attempts }) : this.attempt(delivery, endpoint!));
      const telemetry = this.context.telemetry;
      const result = telemetry ? await telemetry.span("webhook attempt", { in_process: inProcess ? "yes" : "no" }, once) : await once();
      attempts++;
      if (this.abort.signal.aborted) {
        // Stopping: hand the delivery back, due now, instead of leaving it leased for a while.
        return this.record(delivery, result, { status: "pending", nextAttemptAt: this.context.now() });
      }
      const { verdict } = result;
      telemetry?.webhookAttempt(attemptOutcome(verdict, this.schedule, attempts), result.durationMs / 1000);
      if (verdict.kind === "delivered") return this.record(delivery, result, { status: "succeeded" });
      if (verdict.kind === "gone") return this.record(delivery, result, { status: "failed", error: verdict.error }, endpoint ?? undefined);
      if (verdict.kind === "final") return this.record(delivery, result, { status: "failed", error: verdict.error });
      const delay = retryDelay(this.schedule, attempts, this.jitter, verdict.retryAfterMs);
      if (delay === null) return this.record(delivery, result, { status: "failed", error: verdict.error });
      if (delay > this.inProcessMax) return this.record(delivery, result, { status: "pending", nextAttemptAt: this.context.now() + delay });
      // A short wait, configured to happen here: the delivery keeps its slot and its lease.
      await this.record(delivery, result, { status: "pending", nextAttemptAt: this.context.now() + delay, keepLease: true });
      try {
        await sleep(delay, undefined, { signal: this.abort.signal });
      } catch {
        return this.record(delivery, null, { status: "pending", nextAttemptAt: this.context.now() });
      }
    }
  }

  /** One call of the host's handler, logged like an HTTP attempt (without a status code). */
  private async attemptInProcess(delivery: WebhookDeliveryRecord): Promise<AttemptResult> {
    const at = this.context.now();
    const started = Date.now();
    const verdict = await runInProcessHandler(this.handlers, delivery, this.timeoutMs);
    return { at, statusCode: null, durationMs: Date.now() - started, verdict };
  }

  /** One HTTP attempt. Never throws: a network error, a timeout or a refused address is an outcome like an answer. */
  private async attempt(delivery: WebhookDeliveryRecord, endpoint: WebhookEndpointRecord): Promise<AttemptResult> {
    const url = new URL(endpoint.url);
    const now = this.context.now();
    const secrets = endpoint.secrets.filter((secret) => secret.expiresAt === null || secret.expiresAt > now).map((secret) => secret.secret);
    const headers = {
      ...webhookHeaders({ id: delivery.id, timestamp: Math.floor(now / 1000), body: delivery.payload }, secrets),
      "content-type": "application/json",
      "user-agent": USER_AGENT,
    };
    const started = Date.now();
    let verdict: AttemptVerdict;
    let statusCode: number | null = null;
    try {
      // Resolved once and checked in both modes; the connection goes only to the addresses checked.
      const target = await resolveWebhookTarget(url, this.options);
      const result = await postWebhook(url, delivery.payload, headers, {
        timeoutMs: this.timeoutMs,
        signal: this.abort.signal,
        now: this.context.now,
        target,
      });
      statusCode = result.statusCode;
      verdict = judgeAnswer(result);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      verdict = error instanceof BlockedAddressError ? { kind: "final", error: message } : { kind: "retry", error: message, retryAfterMs: null };
    }
    return { at: now, statusCode, durationMs: Date.now() - started, verdict };
  }

  /**
   * Logs an attempt (if one was made) and settles the delivery, in one unit of work; with
   * `goneEndpoint`, also disables that endpoint and fails what is queued for it (a 410). The
   * settlement applies only while this claim still holds the delivery: if its lease ran out and
   * another instance took it over, or its endpoint was deleted meanwhile, the attempt is logged
   * and the delivery left to whoever holds it, except that a success always marks it succeeded
   * (the message did arrive).
   */
  private async record(
    delivery: WebhookDeliveryRecord,
    result: AttemptResult | null,
    outcome: Settlement,
    goneEndpoint?: WebhookEndpointRecord,
  ): Promise<void> {
    const now = this.context.now();
    await this.context.storage.transaction(async (tx) => {
      if (result) {
        // The usual case, one statement: the storage checks that this claim still holds it.
        const error = result.verdict.kind === "delivered" ? null : result.verdict.error;
        const next = settled({ ...delivery, lastStatusCode: result.statusCode, lastError: error }, outcome, now);
        const { status, nextAttemptAt, leaseUntil, lastStatusCode, lastError, updatedAt } = next;
        await tx.recordWebhookAttempt(
          { id: newId("att"), deliveryId: delivery.id, at: result.at, statusCode: result.statusCode, durationMs: result.durationMs, error },
          delivery.leaseUntil!,
          { status, nextAttemptAt, leaseUntil, lastStatusCode, lastError, updatedAt },
        );
      } else {
        const current = await tx.lockWebhookDelivery(delivery.id);
        if (current && owns(current, delivery)) await tx.updateWebhookDelivery(settled(current, outcome, now));
      }
      if (goneEndpoint) {
        const endpoint = await tx.lockWebhookEndpoint(goneEndpoint.id);
        if (endpoint && endpoint.status === "enabled") {
          await tx.updateWebhookEndpoint({ ...endpoint, status: "disabled", disabledReason: "the endpoint answered 410 Gone", updatedAt: now });
        }
        await tx.failPendingWebhookDeliveries(goneEndpoint.id, "the endpoint answered 410 Gone and was disabled", now);
      }
    });
  }
}

/** Whether the claim that returned `claimed` still holds the delivery as it is stored now. */
function owns(current: WebhookDeliveryRecord, claimed: WebhookDeliveryRecord): boolean {
  return current.status === "pending" && current.leaseUntil === claimed.leaseUntil;
}

/** `delivery` with a settlement applied. */
/** What an attempt came to, for metrics: a retryable failure with no retry left is a failure. */
function attemptOutcome(verdict: AttemptVerdict, schedule: readonly number[], attempts: number): WebhookAttemptOutcome {
  if (verdict.kind === "delivered") return "delivered";
  if (verdict.kind === "retry" && attempts <= schedule.length) return "retry";
  return "failed";
}

function settled(delivery: WebhookDeliveryRecord, outcome: Settlement, now: number): WebhookDeliveryRecord {
  return {
    ...delivery,
    status: outcome.status,
    nextAttemptAt: outcome.status === "pending" ? outcome.nextAttemptAt : null,
    leaseUntil: outcome.status === "pending" && outcome.keepLease ? delivery.leaseUntil : null,
    lastError: outcome.status === "failed" ? outcome.error : delivery.lastError,
    updatedAt: now,
  };
}
