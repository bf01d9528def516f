// How the hot wallet reads what an EVM node answered (a transaction it has already, a revert, the text of its error) and scrubs the errors it throws.
import { BaseError, ExecutionRevertedError } from "viem";
import { nodeError } from "../../rpc-errors";

/** Messages with which nodes say a raw transaction is already in their pool or already mined (geth, anvil, Besu, Nethermind, Erigon). */
export const ALREADY_SENT = /already[ _]?known|known[ _]transaction|already[ _]imported|old[ _]?nonce|nonce[ _]too[ _]low|nonce is too low/i;
/** A transaction with the same nonce is in the pool: ours (fine) or another one (not). */
export const UNDERPRICED = /replacement[ _]transaction[ _]underpriced|replacement[ _]underpriced/i;

/** What the node said, from every level of a viem error (never its URL). */
export function nodeSaid(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 8; depth++) {
    const { details, shortMessage } = current as { details?: unknown; shortMessage?: unknown };
    if (typeof details === "string") parts.push(details);
    if (typeof shortMessage === "string") parts.push(shortMessage);
    else if (!(current instanceof BaseError)) parts.push(current.message);
    current = current.cause;
  }
  return parts.join(" | ");
}

/** Whether a gas estimation failed because the call reverts (not because the node is down). */
export function reverts(error: unknown): boolean {
  if (error instanceof BaseError && error.walk((inner) => inner instanceof ExecutionRevertedError)) return true;
  return /execution reverted|revert/i.test(nodeSaid(error));
}

/**
 * The scrubbing of one hot wallet's errors: every error leaving it goes through `nodeError` once
 * (secrets out, the node's label and the failed step in); one scrubbed already is passed on as is.
 */
export class ScrubbedErrors {
  /** Errors already scrubbed here, passed on as they are. */
  private readonly scrubbed = new WeakSet<Error>();
  private readonly label: string;
  private readonly secrets: readonly string[];

  constructor(label: string, secrets: readonly string[]) {
    this.label = label;
    this.secrets = secrets;
  }

  /** Runs one node call; its error is scrubbed and names `action`. */
  async call<T>(action: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.fail(error, action);
    }
  }

  /** A scrubbed error for a failed step. */
  fail(error: unknown, action: string): Error {
    if (error instanceof Error && this.scrubbed.has(error)) return error;
    return this.own(nodeError(error, { label: `${this.label}, ${action}`, secrets: this.secrets }));
  }

  /** Marks an error made here as scrubbed (it carries no secret). */
  own(error: Error): Error {
    this.scrubbed.add(error);
    return error;
  }

  /** Every error leaving a public method is scrubbed (storage errors included: they should not carry a secret, and checking costs nothing). */
  async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof Error && this.scrubbed.has(error)) throw error;
      throw this.own(nodeError(error, { label: "HotWallet", secrets: this.secrets }));
    }
  }
}
