import type { Logger } from "./ports/logger";

/**
 * How the background work reports a failure that repeats every round (a node that is down):
 * with its stack the first time, then one line per round at most, and one line when it recovers.
 * Messages are the errors' own: chain adapters scrub keys and node URLs out of theirs.
 */
export class FailureLog {
  /** Failed rounds in a row, per schedule name. */
  private readonly streaks = new Map<string, number>();

  constructor(
    private readonly logger: Logger,
    /** The service's clock, which times the rounds it records. */
    readonly now: () => number = Date.now,
  ) {}

  /** Records the outcome of one round of `name`: its failures, none when it succeeded. */
  record(name: string, failures: readonly unknown[]): void {
    const streak = this.streaks.get(name) ?? 0;
    if (failures.length === 0) {
      if (streak === 0) return;
      this.streaks.delete(name);
      this.logger.warn(`${name} recovered after ${streak} failed round${streak === 1 ? "" : "s"}`);
      return;
    }
    this.streaks.set(name, streak + 1);
    const summary = failures.map(firstLine).join("; ");
    if (streak === 0) {
      const error = failures.length === 1 ? failures[0] : new AggregateError(failures, summary);
      this.logger.error(`${name} failed; it is retried every round, and logged once a round until it recovers: ${summary}`, error);
    } else {
      this.logger.warn(`${name} still failing (${streak + 1} rounds in a row): ${summary}`);
    }
  }
}

/** The first line of an error's message (an AggregateError's inner messages too). */
function firstLine(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors.map(firstLine).join("; ");
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0] ?? "";
}
