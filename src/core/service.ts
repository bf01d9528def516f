import type { CoreContext } from "./context";
import { syncDeposits } from "./deposits";
import { expireDueInvoices } from "./invoices";
import { progressPayouts } from "./payouts";
import type { Mode } from "./types";

const MODES: readonly Mode[] = ["test", "live"];

/** What one round of the background work did. */
export interface TickReport {
  depositsApplied: number;
  invoicesExpired: number;
  payoutsProgressed: number;
  idempotencyKeysExpired: number;
  /** What the chains' own housekeeping did (consolidations sent or settled). */
  chainTasks: number;
}

/**
 * The background work of the service: deposit sync, expiry and payout progress, for both modes.
 * Rounds never overlap within a process (a round asked for while one runs waits for it and
 * then runs again), so a test can call `tick()` at any moment and see every effect after it.
 */
export class BackgroundWork {
  private running: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly context: CoreContext) {}

  /** Runs one full round now, after any round in progress. */
  tick(): Promise<TickReport> {
    return this.exclusive(() => this.round());
  }

  /** Syncs one mode's deposits now, after any round in progress (the sandbox endpoints use it). */
  syncDeposits(mode: Mode): Promise<number> {
    return this.exclusive(() => syncDeposits(this.context, mode));
  }

  /** Progresses one mode's payouts now, after any round in progress. */
  progressPayouts(mode: Mode): Promise<number> {
    return this.exclusive(() => progressPayouts(this.context, mode));
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.running.then(work);
    this.running = result.catch(() => undefined);
    return result;
  }

  /** Starts running a round every `intervalMs`; the timer never keeps the process alive. */
  start(intervalMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.tick().catch((error) => this.context.logger.error("background round failed; it will run again", error));
    }, intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for the round in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  private async round(): Promise<TickReport> {
    const report: TickReport = { depositsApplied: 0, invoicesExpired: 0, payoutsProgressed: 0, idempotencyKeysExpired: 0, chainTasks: 0 };
    // One failing part (a live chain that is down) must not starve the others, so each runs
    // and the failures are reported together at the end.
    const failures: unknown[] = [];
    const run = async (part: keyof TickReport, work: () => Promise<number>) => {
      try {
        report[part] += await work();
      } catch (error) {
        failures.push(error);
      }
    };
    await run("idempotencyKeysExpired", () => this.context.storage.transaction((tx) => tx.deleteExpiredIdempotencyKeys(this.context.now(), 1000)));
    for (const mode of MODES) {
      await run("depositsApplied", () => syncDeposits(this.context, mode));
      await run("invoicesExpired", () => expireDueInvoices(this.context, mode));
      await run("payoutsProgressed", () => progressPayouts(this.context, mode));
      for (const chain of this.context.chains.all(mode)) {
        if (chain.maintain) await run("chainTasks", () => chain.maintain!());
      }
    }
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} part(s) of the background round failed`);
    return report;
  }
}
