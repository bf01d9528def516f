import { scrubUrls } from "./scrub-urls";

/** Where an outage log writes: `console` fits, and so do the router's `logger` and a chain host's. */
export interface OutageLogger {
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

/**
 * How a part that fails again and again (a node that is down, a price source, a storage the
 * webhook sender cannot reach) is logged: its first failure with the error itself (its stack),
 * then one line without details each time it is tried and fails again, and one line when it
 * works again. So an outage of any length costs one stack, a line per try and a recovery line,
 * never a stack per try. Each part is known by its name ("live chain evm:ETH", "price source
 * kraken"): parts never mix their counts.
 *
 * Messages are the errors' own first lines: whoever records a failure scrubs keys and passwords
 * out of it before (the chain adapters and price sources do); URLs are replaced here too, for
 * the parts of the host's own.
 */
export class OutageLog {
  /** Failed tries in a row, per part. */
  private readonly streaks = new Map<string, number>();
  private readonly tries: { one: string; many: string };

  constructor(
    private readonly logger: OutageLogger,
    options: {
      /** What one try is called in the lines ("round" by default; "read" for a price source). */
      try?: string;
    } = {},
  ) {
    const one = options.try ?? "round";
    this.tries = { one, many: `${one}s` };
  }

  /**
   * Records one try of `name`: the failures it had (errors or messages), none when it worked.
   * Several failures of one try are logged as one `AggregateError` the first time, as one line after.
   */
  record(name: string, failures: readonly unknown[]): void {
    const streak = this.streaks.get(name) ?? 0;
    const { one, many } = this.tries;
    if (failures.length === 0) {
      if (streak === 0) return;
      this.streaks.delete(name);
      this.logger.warn(`${name} recovered after ${streak} failed ${streak === 1 ? one : many}`);
      return;
    }
    this.streaks.set(name, streak + 1);
    const summary = scrubUrls(failures.map(firstLine).join("; "));
    if (streak === 0) {
      const error = failures.length === 1 ? scrubbed(failures[0]) : new AggregateError(failures.map(scrubbed), summary);
      const message = `${name} failed; it is retried every ${one}, and logged once a ${one} until it recovers: ${summary}`;
      // A failure given as a message has no stack to add: the line says it all.
      if (error instanceof Error) this.logger.error(message, error);
      else this.logger.error(message);
    } else {
      this.logger.warn(`${name} still failing (${streak + 1} ${many} in a row): ${summary}`);
    }
  }

  /** Records a failed try of `name` (see `record`). */
  failed(name: string, error: unknown): void {
    this.record(name, [error]);
  }

  /** Records a try of `name` that worked: one line if it was failing, nothing otherwise. */
  worked(name: string): void {
    this.record(name, []);
  }

  /** Forgets `name` without a line: the part is gone (a payout settled while its re-broadcast kept failing). */
  forget(name: string): void {
    this.streaks.delete(name);
  }

  /** How many tries of `name` failed in a row (0 while it works). */
  failing(name: string): number {
    return this.streaks.get(name) ?? 0;
  }
}

/**
 * `failure` as it may be logged: an Error whose message or stack names a URL (a node or source
 * of the host's own may put its endpoint, key and all, in its errors) becomes a copy without it.
 */
function scrubbed(failure: unknown): unknown {
  if (!(failure instanceof Error)) return typeof failure === "string" ? scrubUrls(failure) : failure;
  const message = scrubUrls(failure.message);
  const stack = failure.stack === undefined ? undefined : scrubUrls(failure.stack);
  if (message === failure.message && stack === failure.stack) return failure;
  const copy = new Error(message);
  copy.name = failure.name;
  copy.stack = stack;
  return copy;
}

/** The first line of an error's message (an AggregateError's inner messages too). */
function firstLine(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors.map(firstLine).join("; ");
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0] ?? "";
}
