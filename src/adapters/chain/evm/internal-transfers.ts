import type { Block, Hash, PublicClient } from "viem";
import type { ChainHost } from "../../../core/ports/chain";
import { callFrames, parityValueFrames, type CallFrame, type ParityTrace, type ValueFrame } from "./traces";

/** A native coin transfer made by an internal call, with the transaction that made it. */
export type InternalTransfer = ValueFrame & { txHash: string };

/** Value frames of a block beyond each transaction's own call, or null when the node answered for another block. */
type TraceMethod = (client: PublicClient, block: Block<bigint, true>) => Promise<InternalTransfer[] | null>;

/**
 * Parity-style `trace_block` first (Erigon, Nethermind, Reth, anvil: one cheap call per block),
 * geth's `debug_traceBlockByHash` with its callTracer next (it re-executes the block).
 */
const TRACE_METHODS: TraceMethod[] = [
  async (client, block) => {
    const traces = (await client.request({ method: "trace_block" as never, params: [`0x${block.number!.toString(16)}`] as never })) as ParityTrace[] | null;
    if (traces?.some((trace) => trace.blockHash !== undefined && trace.blockHash !== block.hash)) return null;
    return parityValueFrames(traces ?? []).filter((frame) => frame.depth > 0);
  },
  async (client, block) => {
    const traces = (await client.request({
      method: "debug_traceBlockByHash" as never,
      params: [block.hash, { tracer: "callTracer" }] as never,
    })) as Array<{ txHash?: Hash; result: CallFrame }>;
    return traces.flatMap((trace, position) => {
      const txHash = trace.txHash ?? block.transactions[position]?.hash;
      if (!txHash) return [];
      // The transaction's own value (depth 0) is read from the block.
      return callFrames(trace.result)
        .filter((frame) => frame.depth > 0)
        .map((frame) => ({ ...frame, txHash }));
    });
  },
];

/**
 * Finds the native coin moved by internal calls that took effect, through the first trace
 * method the node offers (kept for later blocks). A node with neither is read without: logged
 * once, and every later block has no internal transfers.
 */
export class InternalTransferReader {
  /** Which of TRACE_METHODS the node answers; past the end when it answers none. */
  private method = 0;

  constructor(
    private readonly client: PublicClient,
    private readonly network: string,
    /** Read when the node turns out to offer no trace method: the host logs it. */
    private readonly host: Pick<ChainHost, "logger">,
  ) {}

  /** The block's internal transfers, or null when the node answered for another block at its height (a reorg under the read). */
  async read(block: Block<bigint, true>): Promise<InternalTransfer[] | null> {
    for (;;) {
      const method = TRACE_METHODS[this.method];
      if (!method) return [];
      try {
        return await method(this.client, block);
      } catch (error) {
        if (!isMethodMissing(error)) throw error;
        this.method++;
        if (this.method >= TRACE_METHODS.length) {
          this.host.logger.error(
            `${this.network}: the node offers neither trace_block nor debug_traceBlockByHash, so native coin sent by contracts (internal calls) will not be seen. Use a node with a trace API, or pass internalTransfers: false to silence this.`,
          );
        }
      }
    }
  }
}

function isMethodMissing(error: unknown): boolean {
  const text = String((error as { details?: string; message?: string })?.details ?? (error as Error)?.message ?? error);
  return /method not found|not supported|does not exist|not available|unknown method|-32601/i.test(text);
}
