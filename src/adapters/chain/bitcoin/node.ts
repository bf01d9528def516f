import type { ChainKind } from "../address-rules";
import { ChainMismatchError } from "../../../core/ports/chain";
import { chainKindOfNode } from "./params";
import { BITCOIN_RPC_CODES, BitcoinRpcError, createBitcoinRpc } from "./rpc";
import type { NodeBlock, NodeTransaction, ScannerNode } from "./scanner";
import type { WalletNode } from "./wallet";

/** Everything the adapter asks a Bitcoin Core compatible node, on its JSON-RPC. */
export interface BitcoinNode extends ScannerNode, WalletNode {
  /** The chain the node is on. */
  chain(): Promise<ChainKind>;
  /** The timestamp (seconds since the epoch) of the block at `height` on the node's best chain. */
  blockTime(height: number): Promise<number>;
}

/** The raw shapes as the RPC client gives them: every JSON number as decimal text. */
interface RawTransaction {
  txid: string;
  vin: Array<{ txid?: string; vout?: string; coinbase?: string }>;
  vout: Array<{ value: string; n: string; scriptPubKey: { hex: string } }>;
}
interface RawBlock {
  hash: string;
  height: string;
  previousblockhash?: string;
  tx: RawTransaction[];
}

/**
 * The node calls of `bitcoinChain()`, over `createBitcoinRpc` (credentials in the URL, never
 * shown). Works with any Bitcoin Core compatible node, without a wallet and without `txindex`:
 * blocks come by hash, mempool transactions by `getrawtransaction`, which needs neither.
 */
export function bitcoinNode(options: { url: string; timeoutMs: number; label: string }): BitcoinNode {
  const rpc = createBitcoinRpc(options);
  const transaction = (raw: RawTransaction): NodeTransaction => ({
    txid: raw.txid,
    vin: raw.vin.map((input) => ({
      ...(input.txid ? { txid: input.txid, vout: Number(input.vout) } : {}),
      ...(input.coinbase ? { coinbase: input.coinbase } : {}),
    })),
    vout: raw.vout.map((output) => ({ value: output.value, n: Number(output.n), scriptPubKey: { hex: output.scriptPubKey.hex } })),
  });
  return {
    async chain() {
      const info = await rpc.call<{ chain: string }>("getblockchaininfo");
      const kind = chainKindOfNode(info.chain);
      if (!kind) throw new ChainMismatchError(`${options.label} is on chain "${info.chain}", which this adapter does not know`);
      return kind;
    },
    async blockCount() {
      return Number(await rpc.call<string>("getblockcount"));
    },
    async blockTime(height) {
      const hash = await rpc.call<string>("getblockhash", [height]);
      return Number((await rpc.call<{ time: string }>("getblockheader", [hash, true])).time);
    },
    blockHashes(heights) {
      return rpc.batch<string>(heights.map((height) => ({ method: "getblockhash", params: [height] })));
    },
    async blocks(hashes) {
      const raw = await rpc.batch<RawBlock>(hashes.map((hash) => ({ method: "getblock", params: [hash, 2] })));
      return raw.map(
        (block): NodeBlock => ({
          hash: block.hash,
          height: Number(block.height),
          ...(block.previousblockhash ? { previousblockhash: block.previousblockhash } : {}),
          tx: block.tx.map(transaction),
        }),
      );
    },
    mempool() {
      return rpc.call<string[]>("getrawmempool");
    },
    async mempoolTransactions(txids) {
      const answers = await rpc.batchSettled<RawTransaction>(txids.map((txid) => ({ method: "getrawtransaction", params: [txid, true] })));
      // A transaction that left the mempool between the two calls is simply not there any more.
      return answers.flatMap((answer) => (answer.ok ? [transaction(answer.result)] : []));
    },
    async inMempool(txid) {
      try {
        await rpc.call("getmempoolentry", [txid]);
        return true;
      } catch (error) {
        if (error instanceof BitcoinRpcError && error.code === BITCOIN_RPC_CODES.INVALID_ADDRESS_OR_KEY) return false;
        throw error;
      }
    },
    async unspentScripts(outpoints) {
      if (outpoints.length === 0) return [];
      const answers = await rpc.batch<{ scriptPubKey: { hex: string } } | null>(
        outpoints.map((outpoint) => ({ method: "gettxout", params: [outpoint.txid, outpoint.vout, true] })),
      );
      return answers.map((answer) => answer?.scriptPubKey.hex ?? null);
    },
    async outputConfirmations(txid, vout) {
      const output = await rpc.call<{ confirmations: string } | null>("gettxout", [txid, vout, false]);
      return output === null ? null : Number(output.confirmations);
    },
    async estimateFeeRate(target) {
      const answer = await rpc.call<{ feerate?: string }>("estimatesmartfee", [target]);
      // BTC per 1000 vbytes -> satoshis per vbyte: x 10^8 / 10^3.
      return answer.feerate === undefined ? null : Number(answer.feerate) * 100_000;
    },
    async broadcast(hex) {
      try {
        await rpc.call("sendrawtransaction", [hex]);
      } catch (error) {
        // Already mined (-27), or mined with every output spent since (-25 on 0.21): it is out.
        // A waiting copy in the mempool is no error at all on 0.21 (the txid comes back).
        if (error instanceof BitcoinRpcError && (error.code === BITCOIN_RPC_CODES.VERIFY_ALREADY_IN_CHAIN || error.code === BITCOIN_RPC_CODES.VERIFY_ERROR))
          return;
        if (error instanceof BitcoinRpcError && /already/i.test(error.nodeMessage)) return;
        throw error;
      }
    },
  };
}
