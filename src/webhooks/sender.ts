import { setTimeout as sleep } from "node:timers/promises";
import pRetry from "p-retry";
import type { CoreContext } from "../core/context";
import { newId } from "../core/ids";
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from "../core/types";
import { postWebhook } from "./http-post";
import { webhookHeaders } from "./sign";
import { BlockedAddressError, guardedLookup, isBlockedLiteral } from "./url-guard";

/** How the service delivers webhooks. Every field has a default. */
export interface WebhookDeliveryOptions {
  /**
   * Delays before each retry, in ms: after attempt k fails, attempt k+1 waits `retrySchedule[k-1]`
   * (with jitter). When the list runs out the delivery is given up. Default, close to Standard
   * Webhooks: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts over about 28 hours).
   */
  retrySchedule?: number[];
  /** Each attempt's time limit, in ms. Default 15000. */
  timeoutMs?: number;
  /** Random spread of each delay, as a fraction (0.1 = +-10%). Default 0.1. */
  jitter?: number;
  /** Retries whose delay is at most this are waited for in process (p-retry); longer ones are persisted. Default 10000. */
  inProcessRetryMaxMs?: number;
  /** Deliveries in flight at once (each to a different endpoint). Default 16. */
  concurrency?: number;
  /** How often the sender looks for due deliveries, in ms, or false for `tick()` only. Default 1000. */
  intervalMs?: number | false;
  /** Let live-mode endpoints resolve to loopback or private addresses. Default false; test mode always may. */
  allowPrivateUrls?: boolean;
}

/** The default retry schedule. */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

const USER_AGENT = "express-crypto-pay-webhooks/1";

/** The outcome of one HTTP attempt, as the retry logic sees it. */
class AttemptFailure extends Error {
  constructor(
    message: string,
    readonly kind: "retryable" | "final" | "gone",
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

function classify(statusCode: number, retryAfterMs: number | null): AttemptFailure | null {
  if (statusCode >= 200 && statusCode < 300) return null;
  if (statusCode === 410) return new AttemptFailure("the endpoint answered 410 Gone and was disabled", "gone");
  if (statusCode === 408 || statusCode === 429 || statusCode >= 500) {
    return new AttemptFailure(`the endpoint answered ${statusCode}`, "retryable", retryAfterMs);
  }
  return new AttemptFailure(`the endpoint answered ${statusCode}, which is not retried`, "final");
}

/** Least time between two delivery passes started by kicks (the polling interval aside). */
const KICK_GAP_MS = 10;

/**
 * Delivers recorded webhooks. Work is claimed from storage with a lease, so any number of
 * senders (one per app instance) can run against one database without sending anything twice
 * at once, and a sender that dies mid-delivery leaves the lease to expire and be taken over.
 * Each delivery runs as its own task: a slow endpoint only ever holds up its own queue.
 */
export class WebhookSender {
  private readonly schedule: readonly number[];
  private readonly timeoutMs: number;
  private readonly jitter: number;
  private readonly inProcessMax: number;
  private readonly concurrency: number;
  private readonly allowPrivate: boolean;
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  /** The pass a kick scheduled, not started yet: later kicks join it. */
  private kicked: NodeJS.Timeout | null = null;
  private lastKickedPass = 0;
  private stopped = false;
  /** Aborted by stop(): in-flight requests and retry waits end at once instead of running out. */
  private readonly abort = new AbortController();

  constructor(
    private readonly context: CoreContext,
    private readonly options: WebhookDeliveryOptions = {},
  ) {
    this.schedule = options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE;
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.jitter = options.jitter ?? 0.1;
    this.inProcessMax = options.inProcessRetryMaxMs ?? 10_000;
    this.concurrency = options.concurrency ?? 16;
    this.allowPrivate = options.allowPrivateUrls ?? false;
  }

  /** Starts the polling loop (the timer never keeps the process alive). */
  start(): void {
    const interval = this.options.intervalMs ?? 1000;
    if (interval === false || this.timer) return;
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), interval);
    this.timer.unref();
  }

  /**
   * Looks for due work soon: called after a unit of work that may have queued deliveries
   * committed, and when a delivery finished (its endpoint's next one may be waiting). Every
   * payment's state change kicks, so kicks are coalesced: at most one pass per KICK_GAP_MS, or
   * a busy service would send a claim query to the database for each request it serves.
   */
  kick(): void {
    if (this.kicked || this.stopped || !this.timer) return;
    const wait = Math.max(0, this.lastKickedPass + KICK_GAP_MS - Date.now());
    this.kicked = setTimeout(() => {
      this.kicked = null;
      this.lastKickedPass = Date.now();
      this.claimAndStart().catch((error) => this.context.logger.error("webhook delivery pass failed; it will run again", error));
    }, wait);
    this.kicked.unref();
  }

  /**
   * Delivers everything due now and waits for it, including the deliveries that become due
   * because an earlier one to the same endpoint finished. For tests and `tick()`.
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

  private leaseMs(): number {
    // Long enough for every in-process attempt and wait, so a lease only lapses if we died.
    const inProcessWaits = this.schedule.filter((delay) => delay <= this.inProcessMax).reduce((sum, delay) => sum + delay * (1 + this.jitter), 0);
    // Whole milliseconds: storage keeps times as integers (a jittered wait can be fractional).
    return Math.ceil((this.schedule.length + 1) * this.timeoutMs + inProcessWaits + 30_000);
  }

  private async claimAndStart(): Promise<Array<Promise<void>>> {
    const capacity = this.concurrency - this.inFlight.size;
    if (capacity <= 0) return [];
    const now = this.context.now();
    const claimed = await this.context.storage.transaction((tx) => tx.claimWebhookDeliveries(now, capacity, this.leaseMs()));
    return claimed.map((delivery) => {
      const task = this.deliver(delivery)
        .catch((error) => this.context.logger.error(`webhook delivery ${delivery.id} failed unexpectedly; its lease will expire and it will be retried`, error))
        .finally(() => {
          this.inFlight.delete(delivery.id);
          this.kick(); // its endpoint may have a next delivery waiting
        });
      this.inFlight.set(delivery.id, task);
      return task;
    });
  }

  private async deliver(delivery: WebhookDeliveryRecord): Promise<void> {
    const scope = { merchantId: delivery.merchantId, mode: delivery.mode };
    const endpoint = await this.context.storage.getWebhookEndpoint(scope, delivery.endpointId);
    if (!endpoint || endpoint.status !== "enabled") {
      await this.settle(delivery.id, { status: "failed", error: endpoint ? "the endpoint is disabled" : "the endpoint was deleted" });
      return;
    }
    let attempts = delivery.attempts;
    try {
      await pRetry(
        async () => {
          attempts++;
          await this.attempt(delivery, endpoint);
        },
        {
          retries: this.schedule.length,
          minTimeout: 0,
          randomize: false,
          signal: this.abort.signal,
          // The wait happens here, with the schedule's own delay, only for short delays; a long
          // one ends the in-process part and is persisted below so it survives a restart.
          shouldRetry: async ({ error }) => {
            const delay = this.delayAfter(attempts, error);
            if (delay === null || delay > this.inProcessMax) return false;
            await sleep(delay, undefined, { signal: this.abort.signal });
            return true;
          },
        },
      );
      await this.settle(delivery.id, { status: "succeeded" });
    } catch (error) {
      if (this.abort.signal.aborted) {
        // Stopping: hand the delivery back, due now, instead of leaving it leased for minutes.
        await this.settle(delivery.id, { status: "pending", nextAttemptAt: this.context.now() });
        return;
      }
      const failure = error instanceof AttemptFailure ? error : new AttemptFailure(String(error), "final");
      if (failure.kind === "gone") {
        await this.disableEndpoint(endpoint);
        return;
      }
      const delay = this.delayAfter(attempts, failure);
      if (delay === null) await this.settle(delivery.id, { status: "failed", error: failure.message });
      else await this.settle(delivery.id, { status: "pending", nextAttemptAt: this.context.now() + delay });
    }
  }

  /** The wait before the next attempt after `attempts` attempts, or null when there is none. */
  private delayAfter(attempts: number, error: unknown): number | null {
    if (!(error instanceof AttemptFailure) || error.kind !== "retryable") return null;
    const base = this.schedule[attempts - 1];
    if (base === undefined) return null;
    const spread = base * this.jitter * (Math.random() * 2 - 1);
    return Math.max(Math.round(base + spread), error.retryAfterMs ?? 0);
  }

  /** One HTTP attempt, logged whatever its outcome. Throws an AttemptFailure unless it succeeded. */
  private async attempt(delivery: WebhookDeliveryRecord, endpoint: WebhookEndpointRecord): Promise<void> {
    const url = new URL(endpoint.url);
    const now = this.context.now();
    const secrets = endpoint.secrets.filter((secret) => secret.expiresAt === null || secret.expiresAt > now).map((secret) => secret.secret);
    const headers = {
      ...webhookHeaders({ id: delivery.id, timestamp: Math.floor(now / 1000), body: delivery.payload }, secrets),
      "content-type": "application/json",
      "user-agent": USER_AGENT,
    };
    const guarded = endpoint.mode === "live" && !this.allowPrivate;
    const started = Date.now();
    let failure: AttemptFailure | null;
    let statusCode: number | null = null;
    try {
      if (guarded && isBlockedLiteral(url)) throw new BlockedAddressError(`${url.hostname} is a private or reserved address`);
      const result = await postWebhook(url, delivery.payload, headers, {
        timeoutMs: this.timeoutMs,
        signal: this.abort.signal,
        now: this.context.now,
        ...(guarded ? { lookup: guardedLookup } : {}),
      });
      statusCode = result.statusCode;
      failure = classify(result.statusCode, result.retryAfterMs);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      failure = new AttemptFailure(message, error instanceof BlockedAddressError ? "final" : "retryable");
    }
    await this.context.storage.transaction(async (tx) => {
      const current = await tx.lockWebhookDelivery(delivery.id);
      if (!current) return;
      await tx.insertWebhookAttempt({
        id: newId("att"),
        deliveryId: delivery.id,
        at: now,
        statusCode,
        durationMs: Date.now() - started,
        error: failure?.message ?? null,
      });
      await tx.updateWebhookDelivery({
        ...current,
        attempts: current.attempts + 1,
        lastStatusCode: statusCode,
        lastError: failure?.message ?? null,
        updatedAt: this.context.now(),
      });
    });
    if (failure) throw failure;
  }

  private async settle(
    id: string,
    outcome: { status: "succeeded" } | { status: "failed"; error: string } | { status: "pending"; nextAttemptAt: number },
  ): Promise<void> {
    await this.context.storage.transaction(async (tx) => {
      const current = await tx.lockWebhookDelivery(id);
      if (!current) return;
      await tx.updateWebhookDelivery({
        ...current,
        status: outcome.status,
        nextAttemptAt: outcome.status === "pending" ? outcome.nextAttemptAt : null,
        leaseUntil: null,
        lastError: outcome.status === "failed" ? outcome.error : current.lastError,
        updatedAt: this.context.now(),
      });
    });
  }

  /** A 410 says the endpoint is gone for good: stop sending to it, and settle what was queued. */
  private async disableEndpoint(endpoint: WebhookEndpointRecord): Promise<void> {
    const now = this.context.now();
    await this.context.storage.transaction(async (tx) => {
      const current = await tx.lockWebhookEndpoint(endpoint.id);
      if (current && current.status === "enabled") {
        await tx.updateWebhookEndpoint({ ...current, status: "disabled", disabledReason: "the endpoint answered 410 Gone", updatedAt: now });
      }
      await tx.failPendingWebhookDeliveries(endpoint.id, "the endpoint answered 410 Gone and was disabled", now);
    });
  }
}
