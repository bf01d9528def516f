// What the EVM hot wallet takes (options, a request) and what it stores per transaction, with their checks and parsing.
import { isAddress, type Address, type Hash, type Hex, type LocalAccount, type PublicClient } from "viem";
import type { ChainStateStore } from "../../../core/ports/chain";

/** What `HotWallet` needs: a node, a key, and the shared state its nonce queue lives in. */
export interface HotWalletOptions {
  /** A viem public client created with `cacheTime: 0` (cached block numbers give stale confirmations). */
  client: PublicClient;
  /** The hot wallet's signer, e.g. `privateKeyToAccount(hotKey)`. */
  account: LocalAccount;
  /** The chain id transactions are signed for; the node must serve the same chain. */
  chainId: number;
  /** Durable state shared by every instance using this wallet (the ChainHost's `state`). */
  state: ChainStateStore;
  /** Prefix of this wallet's state keys, e.g. `evm:31337:0xabc…`: one nonce queue per prefix. */
  namespace: string;
  /** Where failed re-broadcasts are reported. */
  logger: { warn(message: string, ...details: unknown[]): void; error(message: string, ...details: unknown[]): void };
  /** Strings no error or log line may show: `rpcSecrets(rpcUrl)` and the hot key. */
  secrets: readonly string[];
  /** Names the node in errors, e.g. "ETH node". Default "EVM node". */
  label?: string;
}

/** A transaction to send from the hot wallet. Amounts in wei. */
export interface HotWalletRequest {
  to: Address;
  value?: bigint;
  data?: Hex;
  /**
   * Gas limit to use when estimation says the call reverts. Given, the transaction is sent
   * anyway and fails on chain (a payout to a contract that refuses ETH must be mined to be
   * known as failed); absent, the estimation error is thrown.
   */
  gasFallback?: bigint;
}

/** A transaction signed and stored under an id: its hash is known before any broadcast. */
export interface SignedTransaction {
  hash: Hash;
  raw: Hex;
  nonce: number;
}

/** Where a stored transaction stands on chain. */
export type HotWalletStatus = { status: "pending" } | { status: "confirmed"; blockNumber: bigint } | { status: "failed"; reason: string };

/** Refuses a request that could not be signed (a bad address, a negative value, a fallback below a transfer's gas). */
export function checkRequest(request: HotWalletRequest): void {
  if (!isAddress(request.to, { strict: false })) throw new TypeError("HotWallet: `to` must be a 0x address");
  if (request.value !== undefined && (typeof request.value !== "bigint" || request.value < 0n))
    throw new TypeError("HotWallet: `value` must be a non-negative bigint (wei)");
  if (request.gasFallback !== undefined && (typeof request.gasFallback !== "bigint" || request.gasFallback < 21_000n)) {
    throw new TypeError("HotWallet: `gasFallback` must be a bigint of at least 21000");
  }
}

/** The ids stored under a nonce (none when nothing is). */
export function parseIds(value: string | null): string[] {
  return value === null ? [] : (JSON.parse(value) as string[]);
}

/** The transaction stored under `id`, or null; throws when what is stored is not one. */
export function parseStored(value: string | null, id: string): SignedTransaction | null {
  if (value === null) return null;
  const parsed = JSON.parse(value) as Partial<SignedTransaction>;
  if (typeof parsed.hash !== "string" || typeof parsed.raw !== "string" || typeof parsed.nonce !== "number") {
    throw new Error(`the stored transaction "${id}" is malformed`);
  }
  return parsed as SignedTransaction;
}
