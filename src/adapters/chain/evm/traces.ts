import { getAddress, type Address } from "viem";

/** A frame of geth's `callTracer` output (debug_trace* with `{ tracer: "callTracer" }`). */
export interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  error?: string;
  calls?: CallFrame[];
}

/** A value transfer that took effect, found in a call tree. */
export interface ValueFrame {
  to: Address;
  value: bigint;
  /** 0 for the transaction's own call. */
  depth: number;
  /** The frame's position in a depth-first walk of the tree: stable for the transaction. */
  position: number;
}

/**
 * The native coin moves in a transaction's call tree that took effect: CALL frames (and the
 * beneficiary of a SELFDESTRUCT) with a value, where neither the frame nor any frame above it
 * failed (a reverted frame undoes everything below it). DELEGATECALL and STATICCALL move no
 * value; CALLCODE sends it to the caller itself; CREATE's value goes to a new contract, never
 * to a deposit address.
 */
export function callFrames(root: CallFrame): ValueFrame[] {
  const found: ValueFrame[] = [];
  let position = 0;
  // Every frame takes a position, failed ones and those below them too, so that positions
  // match parityValueFrames' for the same transaction whichever trace API a node offers.
  const walk = (frame: CallFrame, depth: number, undone: boolean): void => {
    const here = position++;
    const failed = undone || Boolean(frame.error);
    const value = frame.value ? BigInt(frame.value) : 0n;
    if (!failed && (frame.type === "CALL" || frame.type === "SELFDESTRUCT") && frame.to && value > 0n) {
      found.push({ to: getAddress(frame.to), value, depth, position: here });
    }
    for (const call of frame.calls ?? []) walk(call, depth + 1, failed);
  };
  walk(root, 0, false);
  return found;
}

/** One entry of a Parity-style `trace_block` answer (Erigon, Nethermind, Reth, anvil). */
export interface ParityTrace {
  type: string;
  action: { callType?: string; to?: string; value?: string; refundAddress?: string; balance?: string };
  error?: string;
  traceAddress: number[];
  transactionHash?: string | null;
  blockHash?: string;
}

/**
 * The same as {@link callFrames} for a whole block's `trace_block` answer, whose entries come in
 * the same depth-first order per transaction: value moved by `call`s and by `suicide`
 * (self-destruct) to its refund address, where neither the entry nor an entry above it failed.
 * Positions count every entry of the transaction, as callFrames counts every frame.
 */
export function parityValueFrames(traces: readonly ParityTrace[]): Array<ValueFrame & { txHash: string }> {
  const found: Array<ValueFrame & { txHash: string }> = [];
  const positions = new Map<string, number>();
  const failed = new Map<string, string[]>();
  for (const trace of traces) {
    const txHash = trace.transactionHash;
    if (!txHash) continue; // Block rewards belong to no transaction.
    const position = positions.get(txHash) ?? 0;
    positions.set(txHash, position + 1);
    const path = trace.traceAddress.join(".");
    const failures = failed.get(txHash) ?? [];
    // Parents come before their children, so a failed parent is known by now.
    if (trace.error || failures.some((prefix) => path === prefix || path.startsWith(`${prefix}.`) || prefix === "")) {
      failures.push(path);
      failed.set(txHash, failures);
      continue;
    }
    const depth = trace.traceAddress.length;
    if (trace.type === "call" && trace.action.callType === "call" && trace.action.to && trace.action.value && BigInt(trace.action.value) > 0n) {
      found.push({ txHash, to: getAddress(trace.action.to), value: BigInt(trace.action.value), depth, position });
    } else if (trace.type === "suicide" && trace.action.refundAddress && trace.action.balance && BigInt(trace.action.balance) > 0n) {
      found.push({ txHash, to: getAddress(trace.action.refundAddress), value: BigInt(trace.action.balance), depth, position });
    }
  }
  return found;
}
