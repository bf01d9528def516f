import type { ChainAdapter, ChainDeposit, ChainPayoutStatus } from "../../core/ports/chain";
import type { Storage } from "../../core/ports/storage/index";
import type { CurrencyCatalog } from "../../currencies";
import { randomToken } from "../../ids";
import type { ChainTestPair, ChainTestSubject } from "./types";
import { FeedReader, memoryCursor, storedCursor } from "./feed";

/** What each part of the conformance suite gets: the run of the current test. */
export interface ChainSuiteContext {
  /** The subject, host storage and helpers of the running test. */
  run(): ChainTestRun;
}

/** Where the adapter's logger writes during a test: kept, not printed (a reorg warning is expected). */
export interface RecordingLogger {
  readonly lines: Array<{ level: "warn" | "error"; message: string }>;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

/** A logger that keeps what it is told. */
export function recordingLogger(): RecordingLogger {
  const lines: RecordingLogger["lines"] = [];
  return {
    lines,
    warn: (message) => void lines.push({ level: "warn", message }),
    error: (message) => void lines.push({ level: "error", message }),
  };
}

/** The merchant every address of the suite is issued for. */
export const MERCHANT = "m_chain_conformance";

/**
 * One test's world: the subject, the storage behind the adapter's host, and the steps core
 * would take (issuing and recording an address, reading the feed) plus a few of the payer's.
 */
export class ChainTestRun {
  private payments = 0n;
  private coreFeed: FeedReader | null = null;

  constructor(
    readonly subject: ChainTestSubject,
    readonly storage: Storage,
    readonly currencies: CurrencyCatalog,
    readonly logger: RecordingLogger,
  ) {}

  get adapter(): ChainAdapter {
    return this.subject.adapter;
  }

  get pairs(): readonly ChainTestPair[] {
    return this.subject.pairs;
  }

  /** The feed as core reads it, with its cursor stored under the adapter's feed id. */
  get feed(): FeedReader {
    return (this.coreFeed ??= new FeedReader(this.adapter, storedCursor(this.storage, `deposits:live:${this.adapter.feedId ?? this.adapter.name}`)));
  }

  /** A reader of its own that keeps its cursor in memory, starting at `cursor` (for comparisons). */
  reader(cursor: string | null, limit = 100): FeedReader {
    return new FeedReader(this.adapter, memoryCursor(cursor), limit);
  }

  /** An invoice id never used before, on this chain or by another test sharing it. */
  invoiceId(): string {
    return `inv_conf_${randomToken(20)}`;
  }

  /** A payout id never used before. */
  payoutId(): string {
    return `po_conf_${randomToken(20)}`;
  }

  /**
   * Issues an address for a new invoice and records it in the host's storage, as core does when
   * it creates an invoice, so that `host.issuedAddresses` finds it.
   */
  async issue(pair: ChainTestPair, invoiceId = this.invoiceId()): Promise<string> {
    const address = await this.adapter.createAddress({ ...pair, merchantId: MERCHANT, invoiceId });
    const before = typeof address === "string" ? await this.storage.findAddress("live", pair.network, address) : null;
    if (before) {
      throw new Error(
        `createAddress(${label(pair)}) returned ${address} for invoice ${invoiceId}, but issued it before for invoice ${before.invoiceId}: an address is never returned twice`,
      );
    }
    await this.storage.transaction((tx) =>
      tx.insertAddress({ mode: "live", network: pair.network, address, coin: pair.coin, merchantId: MERCHANT, invoiceId, createdAt: Date.now() }),
    );
    return address;
  }

  /**
   * An amount to pay: about 0.01 of the coin plus a few smallest units, different on every call,
   * so that an adapter rounding amounts or mixing transfers up is caught.
   */
  amount(pair: ChainTestPair): bigint {
    this.payments += 1n;
    return 10n ** BigInt(this.decimals(pair)) / 100n + 7n + this.payments;
  }

  /** A payout amount: about 0.001 of the coin plus `extra` smallest units. */
  payoutAmount(pair: ChainTestPair, extra = 0n): bigint {
    return 10n ** BigInt(this.decimals(pair)) / 1000n + 3n + extra;
  }

  /** Ledger decimals of the pair's coin in the host's currency list. */
  decimals(pair: ChainTestPair): number {
    const currency = this.currencies.crypto(pair.coin);
    if (!currency) throw new TypeError(`runChainAdapterTests: ${pair.coin} is not in the subject's currency list`);
    return currency.decimals;
  }

  /**
   * Confirmations after which the pair's deposits are final: the adapter's own
   * (`requiredConfirmations`), else the pair's minConfirm in the host's currency list.
   */
  minConfirm(pair: ChainTestPair): number {
    const network = this.currencies.network(pair.coin, pair.network);
    if (!network) throw new TypeError(`runChainAdapterTests: ${label(pair)} is not in the subject's currency list`);
    return this.adapter.requiredConfirmations?.(pair.coin, pair.network) ?? network.minConfirm;
  }

  /**
   * Gives the adapter's hot wallet something to pay out from, when it pays out of its own
   * deposits (`payoutsSpendDeposits`): `deposits` deposits to fresh addresses, read until final.
   */
  async fundPayouts(pair: ChainTestPair, deposits = 1): Promise<void> {
    if (!this.subject.payoutsSpendDeposits) return;
    // One deposit per payout that may be signed at once: a UTXO wallet spends each output once.
    for (let i = 0; i < deposits; i++) await this.subject.pay(pair, await this.issue(pair), this.payoutAmount(pair) * 100n);
    await this.subject.confirm(this.minConfirm(pair));
    await this.feed.poll();
    await this.subject.confirm(1);
    await this.feed.poll();
  }

  /** A payout destination of the pair's network (the subject's valid addresses, in turn). */
  destination(pair: ChainTestPair, index = 0): string {
    const list = this.subject.validAddresses[pair.network]!;
    return list[index % list.length]!;
  }

  /**
   * Reads the feed until it reports the transfer `txHash` to `address`: one round of the deposit
   * sync, and when that does not report it, one more block and another round (an adapter need
   * not watch the mempool, but a transfer one block deep must be in its feed). Returns the
   * transfer's last state, or undefined when it was never reported.
   */
  async sighting(address: string, txHash: string): Promise<ChainDeposit | undefined> {
    await this.feed.poll();
    if (this.feed.latestOf(address, txHash)) return this.feed.latestOf(address, txHash);
    await this.subject.confirm(1);
    await this.feed.poll();
    return this.feed.latestOf(address, txHash);
  }

  /**
   * Asks for the payout's status, confirming one block at a time, until it is no longer
   * pending or `rounds` blocks were added. Returns the last status.
   */
  async settlePayout(pair: ChainTestPair, payoutId: string, txHash: string, rounds = this.minConfirm(pair) + 10): Promise<ChainPayoutStatus> {
    for (let round = 0; ; round++) {
      const status = await this.adapter.getPayoutStatus({ payoutId, txHash, ...pair });
      if (status.status !== "pending" || round >= rounds) return status;
      await this.subject.confirm(1);
    }
  }
}

/** "USDT/ETH", for messages. */
export function label(pair: ChainTestPair): string {
  return `${pair.coin}/${pair.network}`;
}
