import type { MoneroRpc } from "./rpc";
import type { PayoutDaemon } from "./hot-wallet";

/** Everything the adapter asks `monerod` itself. */
export interface MoneroDaemon extends PayoutDaemon {
  /** `get_info.nettype`: "mainnet", "stagenet", "testnet" or "fakechain" (regtest). */
  nettype(): Promise<string>;
  /** The timestamp (seconds since the epoch) of the block at `height`. */
  blockTime(height: number): Promise<number>;
}

/** The monerod calls of `moneroChain()` (JSON-RPC and the `/get_transactions` endpoint). */
export function moneroDaemon(rpc: MoneroRpc): MoneroDaemon {
  return {
    async nettype() {
      return (await rpc.call<{ nettype: string }>("get_info")).nettype;
    },
    async blockTime(height) {
      return Number((await rpc.call<{ block_header: { timestamp: string } }>("get_block_header_by_height", { height })).block_header.timestamp);
    },
    async blockCount() {
      return Number((await rpc.call<{ count: string }>("get_block_count")).count);
    },
    async transaction(txHash) {
      const answer = await rpc.other<{ txs?: Array<{ tx_hash: string; in_pool: boolean; block_height?: string }>; missed_tx?: string[] }>("/get_transactions", {
        txs_hashes: [txHash],
      });
      const tx = answer.txs?.find((entry) => entry.tx_hash === txHash);
      if (!tx) return null;
      return { inPool: tx.in_pool, height: tx.in_pool ? null : Number(tx.block_height) };
    },
    async feeEstimate() {
      const answer = await rpc.call<{ fee: string; quantization_mask?: string }>("get_fee_estimate");
      return { perByte: BigInt(answer.fee), mask: BigInt(answer.quantization_mask ?? "1") };
    },
  };
}
