import type { ChainAdapter } from "./ports/chain";
import type { CoreContext } from "./context";
import { syncChainDeposits } from "./deposits/deposits";
import { OutageLog } from "../outage-log";
import { HotWalletMonitor, type HotWalletReading } from "./chains/hot-wallets";
import { expireDueInvoices } from "./invoices/invoices";
import { expireRefundClaims } from "./refunds/claims";
import { progressPayouts } from "./payouts/payouts";
import { advanceDueSubscriptions } from "./subscriptions/billing";
import { ChainReadiness } from "./chains/readiness";
import { Deadline, ROUND_WAIT_MS } from "./deadline";
import type { Mode } from "./merchants/records";
import type { Telemetry } from "./ports/telemetry";

const MODES: readonly Mode[] = ["test", "live"];

/** What one round of the background work did. */
export interface TickReport {
  depositsApplied: number;
  invoicesExpired: number;
  payoutsProgressed: number;
  idempotencyKeysExpired: number;
  /** What the chains' own housekeeping did (consolidations sent or settled). */
  chainTasks: number;
  /** Subscription steps taken: invoices made, payments seen, periods begun, past_due, cancelled. */
  subscriptionsAdvanced: number;
  /** Refund claim links that lapsed unclaimed (their holds credited back). */
  refundClaimsExpired: number;
}

type Part = keyof TickReport;

/** One schedule of the background work as health sees it (times are epoch ms, null: never). */
export interface ScheduleStatus {
  name: string;
  mode: Mode | null;
  lastRoundAt: number | null;
  lastSuccessAt: number | null;
  failingSince: number | null;
}

/** What `BackgroundWork.status` reports. */
export interface BackgroundStatus {
  /** The timer runs (false before start, after stop, or with backgroundIntervalMs: false). */
  running: boolean;
  closed: boolean;
  schedules: ScheduleStatus[];
  /** Each live chain with its readiness and the end of its last successful round (a scan). */
  chains: Array<{ chain: ChainAdapter; label: string; refused: boolean; lastScanAt: number | null; failingSince: number | null }>;
}

/**
 * One schedule of the background work: its rounds run one at a time and in order, and never
 * wait for another schedule's. A round asked for while one runs waits for it, then runs.
 */
class Schedule {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;
  /** A round asked for and not begun yet: later asks join it instead of queueing more. */
  private queued: Promise<{ report: Partial<TickReport>; failures: unknown[] }> | null = null;
  /** Set when the work stops: a round that begins after does nothing, one that ends after logs nothing (the storage is closing). */
  stopped = false;
  /** When its last round ended, and its last round without a failure (epoch ms), for health. */
  lastRoundAt: number | null = null;
  lastSuccessAt: number | null = null;
  /** When the failing rounds in a row began, or null while its rounds succeed. */
  failingSince: number | null = null;

  constructor(
    /** How logs name it ("live chain evm:ETH", "expiry (test)"). */
    readonly name: string,
    /** The mode it works for; null for work of both (idempotency keys). */
    readonly mode: Mode | null,
    /** The parts of one round, each run even when another failed. */
    private readonly parts: ReadonlyArray<readonly [Part, () => Promise<number>]>,
    private readonly failures: OutageLog,
    /** The service's clock, which times the rounds. */
    private readonly now: () => number,
    /** Asked before each round: false skips it; a rejection is the round's failure. */
    readonly gate: () => Promise<boolean> = async () => true,
    /** Traces each round as a "background round" span, when the router has telemetry. */
    private readonly telemetry?: Telemetry,
  ) {}

  /** True when no round runs or waits (the timer starts one only then: rounds never pile up). */
  get idle(): boolean {
    return this.waiting === 0;
  }

  /** Runs `work` after the round in progress, as part of this schedule. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    this.waiting++;
    const result = this.tail.then(work).finally(() => this.waiting--);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /**
   * Runs one round, after the one in progress; resolves with what it did and what failed
   * (logged as it happens). Asked again before it begins, it is the same round: behind a hung
   * one, rounds never pile up.
   */
  round(): Promise<{ report: Partial<TickReport>; failures: unknown[] }> {
    if (this.queued) return this.queued;
    const telemetry = this.telemetry;
    const queued = this.exclusive(() => {
      this.queued = null;
      return telemetry ? telemetry.span("background round", { schedule: this.name }, () => this.run()) : this.run();
    });
    this.queued = queued;
    return queued;
  }

  /** The parts of one round, each after the gate let it through. */
  private async run(): Promise<{ report: Partial<TickReport>; failures: unknown[] }> {
    const report: Partial<TickReport> = {};
    const failures: unknown[] = [];
    if (this.stopped) return { report, failures };
    let open = false;
    try {
      open = await this.gate();
    } catch (error) {
      failures.push(error);
    }
    for (const [part, work] of open ? this.parts : []) {
      try {
        report[part] = (report[part] ?? 0) + (await work());
      } catch (error) {
        failures.push(error);
      }
    }
    // A round left running by close() ends against a closed storage: nothing to report then.
    if (this.stopped) return { report, failures: [] };
    this.failures.record(this.name, failures);
    const at = this.now();
    this.lastRoundAt = at;
    if (failures.length > 0) this.failingSince ??= at;
    else if (open) {
      this.lastSuccessAt = at;
      this.failingSince = null;
    }
    return { report, failures };
  }
}

/**
 * The background work of the service: deposit sync, payouts and housekeeping of each chain,
 * invoice expiry and idempotency-key cleanup, each on a schedule of its own. Every chain of each
 * mode has its own, so a slow or hung node delays only its own chain's rounds: never another
 * chain, never test mode (the sandbox), never expiry or the key cleanup.
 *
 * `tick()` runs one round of every schedule now (each after its round in progress) and resolves
 * when all are done, so a caller sees every effect after it; `tick("test")` leaves live chains
 * out, so it never waits for a live node. A live chain's round (which calls its node) is waited
 * for at most `ROUND_WAIT_MS`, by `tick()` and by `stop()`: past that, it goes on in the
 * background and `tick()` rejects naming it.
 */
export class BackgroundWork {
  private readonly schedules: Schedule[] = [];
  /** Each chain's schedule, to run one part of it on request (the sandbox endpoints). */
  private readonly chainSchedules = new Map<ChainAdapter, Schedule>();
  /** The schedules whose rounds call a node (live chains'): those waited for within a deadline. */
  private readonly nodeSchedules = new Set<Schedule>();
  private readonly readiness = new Map<ChainAdapter, ChainReadiness>();
  private readonly hotWallets: HotWalletMonitor;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly context: CoreContext) {
    const failures = new OutageLog(context.logger);
    const { storage } = context;
    this.schedules.push(
      new Schedule(
        "idempotency-key cleanup",
        null,
        [["idempotencyKeysExpired", () => storage.transaction((tx) => tx.deleteExpiredIdempotencyKeys(context.now(), 1000))]],
        failures,
        context.now,
        undefined,
        context.telemetry,
      ),
    );
    for (const mode of MODES) {
      this.schedules.push(
        new Schedule(
          `invoice expiry (${mode})`,
          mode,
          [
            ["invoicesExpired", () => expireDueInvoices(context, mode)],
            ["refundClaimsExpired", () => expireRefundClaims(context, mode)],
          ],
          failures,
          context.now,
          undefined,
          context.telemetry,
        ),
      );
      // Subscriptions: each period's invoice, and the statuses that follow payments and the clock.
      this.schedules.push(
        new Schedule(
          `subscriptions (${mode})`,
          mode,
          [["subscriptionsAdvanced", () => advanceDueSubscriptions(context, mode)]],
          failures,
          context.now,
          undefined,
          context.telemetry,
        ),
      );
      for (const chain of context.chains.all(mode)) {
        // Live chains by feed ("live chain evm:ETH"); the sandbox's feed id is a random token.
        const readiness = new ChainReadiness(context, chain, `${mode} chain ${mode === "live" ? (chain.feedId ?? chain.name) : chain.name}`);
        this.readiness.set(chain, readiness);
        // A chain is scanned only once its node was reached and checked; a refused one never.
        const schedule = new Schedule(
          readiness.label,
          mode,
          [
            ["depositsApplied", () => syncChainDeposits(context, mode, chain)],
            ["payoutsProgressed", () => progressPayouts(context, mode, chain)],
            ...(chain.maintain ? [["chainTasks", () => chain.maintain!()] as const] : []),
          ],
          failures,
          context.now,
          () => readiness.check(),
          context.telemetry,
        );
        this.schedules.push(schedule);
        this.chainSchedules.set(chain, schedule);
        if (mode === "live") this.nodeSchedules.add(schedule);
      }
    }
    this.hotWallets = new HotWalletMonitor(context, failures, this.readiness, (chain, work) => this.chainSchedules.get(chain)!.exclusive(work));
  }

  /** The latest hot-wallet reading of each live chain that has one. */
  hotWalletReadings(): HotWalletReading[] {
    return this.hotWallets.readings();
  }

  /**
   * Runs one round of every schedule now (of `mode`'s and the cleanup only, when given), each
   * after its round in progress, and resolves when all are done. Rejects with every failure
   * together once all rounds ended: one failing part never stops the others. A live chain's
   * round not ended within `ROUND_WAIT_MS` (a node that does not answer) is a failure of its own,
   * "still running", and goes on in the background; so does a hot-wallet read.
   */
  async tick(mode?: Mode): Promise<TickReport> {
    const deadline = new Deadline(ROUND_WAIT_MS);
    const [rounds] = await Promise.all([
      Promise.all(
        this.schedules
          .filter((schedule) => mode === undefined || schedule.mode === null || schedule.mode === mode)
          .map((schedule) => (this.nodeSchedules.has(schedule) ? this.roundWithin(schedule, deadline) : schedule.round())),
      ),
      // Hot-wallet reads (at most one a minute per chain) log their own failures, never the round's.
      mode === "test" ? undefined : deadline.wait(this.hotWallets.refreshDue()),
    ]);
    const report: TickReport = {
      depositsApplied: 0,
      invoicesExpired: 0,
      payoutsProgressed: 0,
      idempotencyKeysExpired: 0,
      chainTasks: 0,
      subscriptionsAdvanced: 0,
      refundClaimsExpired: 0,
    };
    const failures: unknown[] = [];
    for (const round of rounds) {
      for (const [part, count] of Object.entries(round.report) as Array<[Part, number]>) report[part] += count;
      failures.push(...round.failures);
    }
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} part(s) of the background round failed`);
    return report;
  }

  /** One round of `schedule`, waited for until `deadline`; past it, a failure saying the round goes on. */
  private async roundWithin(schedule: Schedule, deadline: Deadline): Promise<{ report: Partial<TickReport>; failures: unknown[] }> {
    const waited = await deadline.wait(schedule.round());
    if (waited.done) return waited.value;
    const still = new Error(
      `${schedule.name}: its round is still running after ${deadline.ms / 1000} s (its node does not answer); it goes on in the background, and the other chains' rounds are done`,
    );
    return { report: {}, failures: [still] };
  }

  /** Syncs the deposits of `mode`'s chains now, each on its own schedule (the sandbox endpoints use it). */
  syncDeposits(mode: Mode): Promise<number> {
    return this.eachChain(mode, (chain) => syncChainDeposits(this.context, mode, chain));
  }

  /** Progresses the payouts of `mode`'s chains now, each on its own schedule. */
  progressPayouts(mode: Mode): Promise<number> {
    return this.eachChain(mode, (chain) => progressPayouts(this.context, mode, chain));
  }

  private async eachChain(mode: Mode, work: (chain: ChainAdapter) => Promise<number>): Promise<number> {
    const results = await Promise.allSettled(
      this.context.chains.all(mode).map((chain) => {
        const schedule = this.chainSchedules.get(chain)!;
        return schedule.exclusive(async () => ((await schedule.gate()) ? work(chain) : 0));
      }),
    );
    const failures = results.flatMap((result) => (result.status === "rejected" ? [result.reason as unknown] : []));
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new AggregateError(failures, `${failures.length} chains failed`);
    return results.reduce((sum, result) => sum + (result.status === "fulfilled" ? result.value : 0), 0);
  }

  /**
   * Resolves once every live chain's node was reached and checked (`ChainAdapter.ready`),
   * asking again every `retryMs` while one cannot be reached; rejects naming the mismatch of a
   * chain that was refused (its coins then answer 503), or when the work is stopped first.
   */
  async ready(retryMs: number): Promise<void> {
    const live = this.context.chains.all("live").map((chain) => this.readiness.get(chain)!);
    for (;;) {
      if (this.closed) throw new Error("the payment router was closed before its chains were ready");
      const outcomes = await Promise.allSettled(live.map((readiness) => readiness.check()));
      const refused = live.flatMap((readiness) => (readiness.refusal ? [readiness.refusal] : []));
      if (refused.length === 1) throw refused[0];
      if (refused.length > 1) throw new AggregateError(refused, `${refused.length} chains were refused: ${refused.map((error) => error.message).join("; ")}`);
      if (outcomes.every((outcome) => outcome.status === "fulfilled")) return;
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }

  /**
   * Starts each schedule's rounds every `intervalMs`; a schedule still in its round skips the
   * beat (a hung node never piles rounds up). The timer never keeps the process alive.
   */
  start(intervalMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      for (const schedule of this.schedules) {
        // Failures are logged by the round itself.
        if (schedule.idle) void schedule.round();
      }
      // Between the chains' rounds, at most once a minute each (the monitor throttles).
      void this.hotWallets.refreshDue();
    }, intervalMs);
    this.timer.unref();
  }

  /** Where each schedule stands, and each live chain's readiness, for health checks. */
  status(): BackgroundStatus {
    return {
      running: this.timer !== null,
      closed: this.closed,
      schedules: this.schedules.map(({ name, mode, lastRoundAt, lastSuccessAt, failingSince }) => ({ name, mode, lastRoundAt, lastSuccessAt, failingSince })),
      chains: this.context.chains.all("live").map((chain) => {
        const schedule = this.chainSchedules.get(chain)!;
        const readiness = this.readiness.get(chain)!;
        return { chain, label: readiness.label, refused: readiness.refusal !== null, lastScanAt: schedule.lastSuccessAt, failingSince: schedule.failingSince };
      }),
    };
  }

  /**
   * Stops the timer and waits for the rounds in progress: a live chain's (and a hot-wallet read)
   * at most until `deadline`, after which it is left to end on its own, quietly (it may fail
   * against the closed storage; nothing is logged for it). Rounds asked for after do nothing.
   */
  async stop(deadline = new Deadline(ROUND_WAIT_MS)): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const schedule of this.schedules) schedule.stopped = true;
    const ended = (schedule: Schedule) => schedule.exclusive(async () => undefined);
    await Promise.all([
      ...this.schedules.filter((schedule) => !this.nodeSchedules.has(schedule)).map(ended),
      deadline.wait(Promise.all([...[...this.nodeSchedules].map(ended), this.hotWallets.idle()])),
    ]);
  }
}
