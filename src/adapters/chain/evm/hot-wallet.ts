// The EVM hot wallet: sends each transaction at most once per id (sign, persist, broadcast) and follows it on chain.
import {
  BaseError,
  Eip1559FeesNotSupportedError,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  keccak256,
  type Address,
  type Hash,
  type LocalAccount,
  type PublicClient,
  type TransactionReceipt,
} from "viem";
import type { ChainStateStore } from "../../../core/ports/chain";
import { OutageLog } from "../../../outage-log";
import { ALREADY_SENT, ScrubbedErrors, UNDERPRICED, nodeSaid, reverts } from "./hot-wallet-node";
import {
  type HotWalletOptions,
  type HotWalletRequest,
  type HotWalletStatus,
  type SignedTransaction,
  checkRequest,
  parseIds,
  parseStored,
} from "./hot-wallet-types";

/** Estimates get this much headroom (in fifths): state may change between estimate and inclusion. */
const MARGIN_FIFTHS = 1n;

/**
 * The hot wallet of one EVM chain: sends each transaction at most once per id, across retries,
 * crashes and every instance sharing the state. Sign, persist, then broadcast: the signed raw
 * transaction is stored (under the wallet's nonce lock) before the node sees it, so whatever
 * happens after, the same bytes are what gets re-broadcast and the hash never changes.
 */
export class HotWallet {
  /** The address the wallet sends from. */
  readonly address: Address;
  private readonly client: PublicClient;
  private readonly account: LocalAccount;
  private readonly chainId: number;
  private readonly state: ChainStateStore;
  private readonly namespace: string;
  /** Failed re-broadcasts, per transaction: logged as an outage (its error once, a line a check, a line when it goes through). */
  private readonly rebroadcasts: OutageLog;
  private readonly label: string;
  /** Keeps secrets out of every error the wallet throws. */
  private readonly errors: ScrubbedErrors;
  private chainChecked: Promise<void> | undefined;

  constructor(options: HotWalletOptions) {
    if (!Number.isSafeInteger(options.chainId) || options.chainId <= 0) throw new TypeError("HotWallet: chainId must be a positive integer");
    if (!options.namespace) throw new TypeError("HotWallet: namespace must be a non-empty string");
    if (!Array.isArray(options.secrets)) throw new TypeError("HotWallet: secrets must list the strings to keep out of errors (rpcSecrets(rpcUrl) and the key)");
    this.client = options.client;
    this.account = options.account;
    this.address = options.account.address;
    this.chainId = options.chainId;
    this.state = options.state;
    this.namespace = options.namespace;
    this.rebroadcasts = new OutageLog(options.logger, { try: "status check" });
    this.label = options.label ?? "EVM node";
    this.errors = new ScrubbedErrors(this.label, options.secrets);
  }

  /**
   * Sends a transaction at most once per `id`: the first call estimates gas and fees, then under
   * the wallet's nonce lock allocates the next nonce, signs, stores {raw, hash, nonce} under the
   * id, and only after the lock's commit broadcasts. Any later call with the same id (a retry,
   * a crash recovery, another instance) re-broadcasts the stored transaction and returns its
   * hash. A broadcast error is thrown (scrubbed); the transaction stays stored for the next call.
   */
  async send(id: string, request: HotWalletRequest): Promise<Hash> {
    return this.errors.guard(async () => {
      const signed = await this.sign(id, request);
      await this.broadcast(signed);
      return signed.hash;
    });
  }

  /**
   * Signs and stores without broadcasting (the first half of `send`); returns the stored
   * transaction when `id` has one already. Exported so tests can stop between sign and broadcast.
   */
  async sign(id: string, request: HotWalletRequest): Promise<SignedTransaction> {
    checkRequest(request);
    return this.errors.guard(async () => {
      const stored = await this.stored(id);
      if (stored) return stored;
      await this.checkChain();
      // Node calls outside the lock: every other sender waits while it is held, and on a
      // single-connection storage (memory, PGlite) so does every other transaction, other
      // chains' included, which a hung node must never hold up.
      const [gas, fees, pending] = await Promise.all([
        this.gas(id, request),
        this.fees(),
        this.errors.call("reading the hot wallet's nonce", () => this.client.getTransactionCount({ address: this.address, blockTag: "pending" })),
      ]);
      return this.state.withLock(this.nonceKey, async (view) => {
        const raced = parseStored(await view.get(this.txKey(id)), id);
        if (raced) return raced;
        const next = Number((await view.get(this.nonceKey)) ?? "0");
        // The stored counter covers what was signed but not yet broadcast; the node's count covers
        // anything sent from the key by other means.
        const nonce = Math.max(next, pending);
        const base = { chainId: this.chainId, nonce, gas, to: request.to, value: request.value ?? 0n, ...(request.data ? { data: request.data } : {}) };
        const raw = await this.errors.call(`signing "${id}"`, () =>
          fees.type === "eip1559"
            ? this.account.signTransaction({ ...base, type: "eip1559", maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas })
            : this.account.signTransaction({ ...base, type: "legacy", gasPrice: fees.gasPrice }),
        );
        const signed: SignedTransaction = { hash: keccak256(raw), raw, nonce };
        await view.set(this.txKey(id), JSON.stringify(signed));
        await view.set(this.nonceKey, String(nonce + 1));
        // Which ids were signed at each nonce, so the fees the wallet paid can be summed from
        // receipts nonce by nonce (a nonce signed again, after a replacement, lists each id).
        const atNonce = parseIds(await view.get(this.nonceIdsKey(nonce)));
        await view.set(this.nonceIdsKey(nonce), JSON.stringify([...atNonce, id]));
        return signed;
      });
    });
  }

  /**
   * Where the stored transaction `id` stands: pending (not mined, or fewer than `confirmations`
   * blocks), confirmed (succeeded and `confirmations` reached), or failed with a reason (reverted,
   * or its nonce taken by another transaction, `confirmations` deep in both cases). When the node
   * knows neither the transaction nor a receipt (nodes drop transactions from their pool), the
   * stored raw transaction is re-broadcast; a failed re-broadcast reads as pending and is logged as
   * an outage of its own (its error once, then a line a status check, and a line when it goes through).
   * Throws when nothing is stored under `id`.
   */
  async status(id: string, confirmations: number): Promise<HotWalletStatus> {
    return this.errors.guard(async () => {
      const stored = await this.stored(id);
      if (!stored) throw this.errors.own(new Error(`${this.label}: no transaction is stored under "${id}"; send() it first`));
      const rebroadcast = `${this.label}: re-broadcast of the dropped transaction "${id}" (${stored.hash})`;
      const receipt = await this.receipt(stored.hash);
      if (receipt) {
        // Mined after all: whatever its re-broadcasts did is over.
        this.rebroadcasts.forget(rebroadcast);
        return this.judge(receipt, confirmations);
      }
      if (await this.knows(stored.hash)) return { status: "pending" };
      const mined = await this.errors.call("reading the hot wallet's nonce", () =>
        this.client.getTransactionCount({ address: this.address, blockTag: "latest" }),
      );
      if (mined > stored.nonce) {
        // The nonce is used on chain: by this transaction mined since the receipt was asked
        // for, or by another one, and then this one can never be mined.
        const late = await this.receipt(stored.hash);
        if (late) return this.judge(late, confirmations);
        return (await this.nonceUsedAtDepth(stored.nonce, confirmations))
          ? { status: "failed", reason: `replaced: nonce ${stored.nonce} was used by another transaction` }
          : { status: "pending" };
      }
      try {
        await this.broadcast(stored);
        this.rebroadcasts.worked(rebroadcast);
      } catch (error) {
        // Scrubbed by broadcast(); tried again on the next status check.
        this.rebroadcasts.failed(rebroadcast, error);
      }
      return { status: "pending" };
    });
  }

  /**
   * The transactions signed at `nonce` (one, unless the nonce was signed again), oldest first,
   * each with its id; read without the nonce lock. Transactions signed before the wallet kept
   * this index are not listed.
   */
  async signedAt(nonce: number): Promise<Array<SignedTransaction & { id: string }>> {
    const listed: Array<SignedTransaction & { id: string }> = [];
    for (const id of parseIds(await this.state.get(this.nonceIdsKey(nonce)))) {
      const signed = await this.stored(id);
      if (signed) listed.push({ ...signed, id });
    }
    return listed;
  }

  /** The next nonce the wallet will sign with (its stored counter; 0 before the first). */
  async nextNonce(): Promise<number> {
    return Number((await this.state.get(this.nonceKey)) ?? "0");
  }

  private nonceIdsKey(nonce: number): string {
    return `${this.namespace}:nonce-ids:${nonce}`;
  }

  private get nonceKey(): string {
    return `${this.namespace}:nonce`;
  }

  private txKey(id: string): string {
    return `${this.namespace}:tx:${id}`;
  }

  private async stored(id: string): Promise<SignedTransaction | null> {
    return parseStored(await this.state.get(this.txKey(id)), id);
  }

  /** Sends the stored bytes; a node that has them already (pool or chain) counts as success. */
  private async broadcast(signed: SignedTransaction): Promise<void> {
    try {
      await this.client.sendRawTransaction({ serializedTransaction: signed.raw });
    } catch (error) {
      const said = nodeSaid(error);
      if (ALREADY_SENT.test(said)) return;
      // Same nonce in the pool: fine when it is this very transaction.
      if (UNDERPRICED.test(said) && (await this.knows(signed.hash))) return;
      throw this.errors.fail(error, `broadcasting ${signed.hash}`);
    }
  }

  /** Gas limit: the estimate plus a margin, or the fallback when the call would revert. */
  private async gas(id: string, request: HotWalletRequest): Promise<bigint> {
    try {
      const estimate = await this.client.estimateGas({
        account: this.address,
        to: request.to,
        value: request.value ?? 0n,
        ...(request.data ? { data: request.data } : {}),
      });
      return estimate + (estimate * MARGIN_FIFTHS + 4n) / 5n;
    } catch (error) {
      if (request.gasFallback !== undefined && reverts(error)) return request.gasFallback;
      throw this.errors.fail(error, `estimating gas for "${id}"`);
    }
  }

  /** EIP-1559 fees (type 2), or a legacy gas price on a chain without a base fee. */
  private async fees(): Promise<{ type: "eip1559"; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { type: "legacy"; gasPrice: bigint }> {
    try {
      const { maxFeePerGas, maxPriorityFeePerGas } = await this.client.estimateFeesPerGas({ type: "eip1559", chain: this.client.chain ?? null });
      return { type: "eip1559", maxFeePerGas, maxPriorityFeePerGas };
    } catch (error) {
      if (!(error instanceof BaseError && error.walk((inner) => inner instanceof Eip1559FeesNotSupportedError)))
        throw this.errors.fail(error, "estimating fees");
      return { type: "legacy", gasPrice: await this.errors.call("reading the gas price", () => this.client.getGasPrice()) };
    }
  }

  /** Once per wallet: a node of another chain would reject every transaction, or worse accept none silently. */
  private checkChain(): Promise<void> {
    this.chainChecked ??= this.errors
      .call("reading the chain id", () => this.client.getChainId())
      .then((served) => {
        if (served !== this.chainId) {
          throw this.errors.own(
            new Error(`${this.label}: the node serves chain ${served}, the hot wallet signs for chain ${this.chainId}: check the RPC URL and chainId`),
          );
        }
      });
    // A failed check (node down) is tried again next time.
    this.chainChecked.catch(() => (this.chainChecked = undefined));
    return this.chainChecked;
  }

  private async receipt(hash: Hash): Promise<TransactionReceipt | null> {
    try {
      return await this.client.getTransactionReceipt({ hash });
    } catch (error) {
      if (error instanceof TransactionReceiptNotFoundError) return null;
      throw this.errors.fail(error, `reading the receipt of ${hash}`);
    }
  }

  /** Whether the node has the transaction (in its pool or mined). */
  private async knows(hash: Hash): Promise<boolean> {
    try {
      await this.client.getTransaction({ hash });
      return true;
    } catch (error) {
      if (error instanceof TransactionNotFoundError) return false;
      throw this.errors.fail(error, `reading the transaction ${hash}`);
    }
  }

  private async judge(receipt: TransactionReceipt, confirmations: number): Promise<HotWalletStatus> {
    const head = await this.errors.call("reading the block number", () => this.client.getBlockNumber());
    if (head - receipt.blockNumber + 1n < BigInt(confirmations)) return { status: "pending" };
    return receipt.status === "success" ? { status: "confirmed", blockNumber: receipt.blockNumber } : { status: "failed", reason: "reverted" };
  }

  /** Whether `nonce` was already used `confirmations` blocks deep (so a reorg will hardly give it back). */
  private async nonceUsedAtDepth(nonce: number, confirmations: number): Promise<boolean> {
    if (confirmations <= 1) return true;
    const head = await this.errors.call("reading the block number", () => this.client.getBlockNumber());
    const at = head - BigInt(confirmations) + 1n;
    if (at < 0n) return false;
    const used = await this.errors.call("reading the hot wallet's nonce", () => this.client.getTransactionCount({ address: this.address, blockNumber: at }));
    return used > nonce;
  }
}
