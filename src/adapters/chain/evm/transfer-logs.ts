import { parseAbiItem, type Address, type GetLogsReturnType, type PublicClient } from "viem";

/** The ERC-20 (and ERC-721) Transfer event; an ERC-20's log has three topics, an ERC-721's four. */
export const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

/** One Transfer log as viem decodes it. */
export type TransferLog = GetLogsReturnType<typeof TRANSFER>[number];

/**
 * Reads the Transfer logs of a block range in one eth_getLogs: the watched tokens' only or, when
 * `tokens` is null, every contract's (the event topic alone). A node that refuses that many logs
 * at once (providers cap eth_getLogs results) is asked for half the blocks, down to one, and
 * later reads keep to the span that worked.
 */
export class TransferLogReader {
  /** Most blocks one eth_getLogs may cover, once the node refused more. */
  private span = Number.POSITIVE_INFINITY;

  /**
   * @param tokens The watched tokens' contracts, or null for every contract's Transfer logs.
   */
  constructor(
    private readonly client: PublicClient,
    private readonly tokens: readonly Address[] | null,
  ) {}

  /** Most blocks one read may cover: unbounded until the node refused a range. */
  get maxSpan(): number {
    return this.span;
  }

  /** Transfer logs of blocks `from`..`to`, with the last block they cover (`to` or fewer). */
  async read(from: number, to: number): Promise<{ logs: TransferLog[]; to: number }> {
    if (this.tokens !== null && this.tokens.length === 0) return { logs: [], to };
    const address = this.tokens === null ? undefined : [...this.tokens];
    for (let last = to; ; last = from + Math.floor((last - from) / 2)) {
      try {
        const logs = await this.client.getLogs({ address, event: TRANSFER, fromBlock: BigInt(from), toBlock: BigInt(last) });
        if (last < to) this.span = last - from + 1;
        return { logs, to: last };
      } catch (error) {
        if (last === from || !isTooManyLogs(error)) throw error;
      }
    }
  }
}

/**
 * Whether a node refused an eth_getLogs for the size of its answer or its block range (not for
 * a rate limit, which fewer blocks would not cure).
 */
function isTooManyLogs(error: unknown): boolean {
  const text = String((error as { details?: string; message?: string })?.details ?? (error as Error)?.message ?? error);
  if (/rate.?limit|too many requests|\b429\b/i.test(text)) return false;
  return /more than \d+ results|too many|exceed|response size|block range|range (is )?too (large|wide)|limit/i.test(text);
}
