import { ChainMismatchError, type ChainAdapter } from "../ports/chain";
import type { CoreContext } from "../context";

/**
 * Whether a chain's node was reached and checked (`ChainAdapter.ready`): the gate in front of
 * its scanning, and what `payments.ready()` waits for. A node that cannot be reached is asked
 * again at the next check; one that serves another network is refused for good, and its coins
 * answer 503 from then on.
 */
export class ChainReadiness {
  private ready = false;
  private attempt: Promise<void> | null = null;
  /** The mismatch that took the chain out of service, or null. */
  refusal: Error | null = null;

  constructor(
    private readonly context: CoreContext,
    private readonly chain: ChainAdapter,
    /** How logs name the chain ("live chain bitcoin:LTC"). */
    readonly label: string,
  ) {}

  /**
   * Resolves true once the node passed its check, false when it was refused; rejects with the
   * node's error while it cannot be reached. Checks in flight are shared.
   */
  async check(): Promise<boolean> {
    if (this.ready) return true;
    if (this.refusal) return false;
    this.attempt ??= this.run().finally(() => {
      this.attempt = null;
    });
    await this.attempt;
    return this.ready;
  }

  private async run(): Promise<void> {
    try {
      await this.chain.ready?.();
      this.ready = true;
    } catch (error) {
      if (!isMismatch(error)) throw error;
      this.refusal = error;
      this.context.chains.refuse(this.chain, error.message);
      this.context.logger.error(`${this.label} is refused and will not be scanned; its coins answer 503 until the configuration is fixed: ${error.message}`);
    }
  }
}

/** A ChainMismatchError, also one from another copy of this package (a custom adapter's). */
function isMismatch(error: unknown): error is Error {
  return error instanceof ChainMismatchError || (error instanceof Error && error.name === "ChainMismatchError");
}
