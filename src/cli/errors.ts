/**
 * A usage or configuration error: an unknown command or flag, a missing value, no config module
 * or one that exports nothing usable. The CLI prints its message and the usage text on stderr
 * and exits with 2.
 */
export class UsageError extends Error {
  override readonly name = "UsageError";

  constructor(
    message: string,
    /** The command whose usage to show ("keys issue"), or undefined for the CLI's. */
    readonly command?: string,
  ) {
    super(message);
  }
}
