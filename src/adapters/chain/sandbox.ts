import { refuseUnknownOptions } from "../../options-error";
import { randomBytes } from "node:crypto";
import { SANDBOX_CHAIN } from "../../core/ports/chain";
import { randomToken } from "../../ids";
import { addressFamily, ANY_CHAIN, isValidAddressOfFamily } from "./address-rules";
import type { ChainAdapter, ChainDeposit, ChainPayoutStatus, ChainSyncStatus, DepositFeedPage } from "../../core/ports/chain";

/** Options of {@link sandboxChain}. */
export interface SandboxChainOptions {
  /** Clock in milliseconds, stamped on recorded payouts; defaults to `Date.now`. */
  now?: () => number;
}

/** A payout the sandbox "broadcast", as recorded by `sendPayout`. */
export interface SandboxPayout {
  payoutId: string;
  coin: string;
  network: string;
  address: string;
  amount: bigint;
  txHash: string;
  /** When `sendPayout` first saw this payout (from the `now` option). */
  sentAt: number;
}

/**
 * A simulated chain that lives in the process, used for test mode. Besides the
 * {@link ChainAdapter} contract it has methods that play the part of payers and miners.
 * Methods that take a txHash or payoutId return false / undefined for an unknown one instead of
 * throwing, so that an HTTP layer can answer 404; malformed arguments (a negative amount, a
 * fractional confirmation count) are programming errors and throw a RangeError.
 */
export interface SandboxChain extends ChainAdapter {
  /**
   * Marks it for the router, which refuses the sandbox as a live chain. @internal: the router's
   * check, not something a user sets or reads (`sandboxChain()` sets it).
   */
  readonly [SANDBOX_CHAIN]: true;
  readonly name: "sandbox";
  /** Unique per instance: each process's sandbox has its own change log, so its own cursor. */
  readonly feedId: string;
  /**
   * Simulates a payer sending `amount` (smallest units) to `address`, seen with
   * `confirmations` (default 0). Any address is accepted, issued here or not: deciding whether
   * a transfer concerns us is core's job, as with a real chain.
   */
  createDeposit(request: { coin: string; network: string; address: string; amount: bigint; confirmations?: number }): { txHash: string; outputIndex: number };
  /**
   * Sets how many confirmations a deposit has. Returns false when the txHash is unknown or the
   * transaction was dropped (a dropped transaction stays dropped; create a new deposit to
   * simulate a re-broadcast).
   */
  setConfirmations(txHash: string, confirmations: number): boolean;
  /**
   * Marks a deposit's transaction as having left the chain (reorg, replaced, reverted).
   * Returns false when the txHash is unknown; dropping twice is a no-op that returns true.
   */
  drop(txHash: string): boolean;
  /** A copy of the deposit's current state, or undefined when the txHash is unknown. */
  getDeposit(txHash: string): ChainDeposit | undefined;
  /**
   * Makes `getPayoutStatus` report the payout as failed with `reason`. Returns false when the
   * payout is unknown or was already reported confirmed (a confirmed payout stays confirmed,
   * as core may have completed it).
   */
  failPayout(payoutId: string, reason: string): boolean;
  /** A copy of a payout recorded by `sendPayout`, or undefined. */
  getPayout(payoutId: string): SandboxPayout | undefined;
}

interface PayoutRecord extends SandboxPayout {
  failure: string | null;
  reportedConfirmed: boolean;
}

// The loose shape accepted on a network with no address rule (a host's own network code).
const ADDRESS_PATTERN = /^[A-Za-z0-9_:.-]{8,128}$/;

/**
 * Creates a sandbox chain. Its addresses look like `sbx_trx_3kZ...` (24 random base62
 * characters) so that they are never mistaken for real ones.
 *
 * Address rule of the sandbox, for `isValidAddress`: the network's real rule (see
 * `isValidAddressOfFamily` in address-rules.ts: checksummed or lowercase 0x addresses on ETH, BSC
 * and other EVM networks; base58check and bech32/bech32m addresses on BTC and LTC; `T...` on
 * TRX), so that a destination live mode would refuse is refused in test mode too, e.g.
 * "not-an-address". Main, test and regtest forms are all accepted, as merchants test with
 * either. Sandbox deposit addresses (`sbx_...`) are not destinations on these networks. A
 * network with no rule (a host's own code) accepts any string of 8 to 128 characters made of
 * letters, digits and `_ : . -`.
 *
 * The deposit feed is an in-memory change log: every change (creation, confirmations, drop)
 * appends the deposit's whole state with the next sequence number, and the `pollDeposits`
 * cursor is the decimal string of the last sequence number read. Payouts always confirm unless
 * `failPayout` was called before their status was reported confirmed.
 */
export function sandboxChain(options: SandboxChainOptions = {}): SandboxChain {
  refuseUnknownOptions("sandboxChain", options, ["now"]);
  const now = options.now ?? Date.now;
  const issued = new Set<string>();
  const deposits = new Map<string, ChainDeposit>();
  // log[i] holds the state recorded with sequence number i + 1.
  const log: ChainDeposit[] = [];
  const payouts = new Map<string, PayoutRecord>();

  // How far the service has read the log (its sequence number), null before its first poll.
  let scanned: number | null = null;

  const record = (deposit: ChainDeposit) => {
    // A snapshot, not the live object: later changes must not rewrite what was already logged.
    log.push({ ...deposit });
  };

  return {
    [SANDBOX_CHAIN]: true,
    name: "sandbox",
    feedId: `sandbox:${randomToken(12)}`,

    supports(): boolean {
      return true;
    },

    async createAddress({ network }): Promise<string> {
      // Keep the network part within the loose address alphabet, so that on a network with no
      // address rule an issued address is a valid destination, whatever code a host configures.
      const tag =
        network
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, "-")
          .slice(0, 32) || "net";
      let address: string;
      do address = `sbx_${tag}_${randomToken(24)}`;
      while (issued.has(address)); // 62^24 makes a repeat practically impossible; the contract forbids it outright.
      issued.add(address);
      return address;
    },

    async isValidAddress(_coin: string, network: string, address: string): Promise<boolean> {
      if (typeof address !== "string") return false;
      const family = addressFamily(network);
      if (family !== null) return isValidAddressOfFamily(family, address, { chain: ANY_CHAIN });
      return ADDRESS_PATTERN.test(address);
    },

    async pollDeposits(cursor: string | null, limit: number): Promise<DepositFeedPage> {
      if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`pollDeposits: limit must be a whole number >= 1, got ${limit}`);
      let position = 0;
      if (cursor !== null) {
        if (!/^\d+$/.test(cursor)) throw new RangeError(`pollDeposits: cursor "${cursor}" was not issued by the sandbox chain`);
        position = Number(cursor);
        // A cursor past the end was stored before this process (and its in-memory log) started
        // again: read from the start rather than miss every change until the log catches up.
        if (position > log.length) position = 0;
      }
      const page = log.slice(position, position + limit).map((entry) => ({ ...entry }));
      const next = position + page.length;
      scanned = next;
      return { deposits: page, cursor: String(next), hasMore: next < log.length };
    },

    async syncStatus(): Promise<ChainSyncStatus> {
      // The change log stands for the chain: its length is the head, one entry a "block".
      return { network: "sandbox", nodeHeight: log.length, scannedHeight: scanned, blockSeconds: 1 };
    },

    async sendPayout({ payoutId, coin, network, address, amount }): Promise<{ txHash: string }> {
      const existing = payouts.get(payoutId);
      if (existing) return { txHash: existing.txHash };
      const payout: PayoutRecord = {
        payoutId,
        coin,
        network,
        address,
        amount,
        txHash: randomTxHash(),
        sentAt: now(),
        failure: null,
        reportedConfirmed: false,
      };
      payouts.set(payoutId, payout);
      return { txHash: payout.txHash };
    },

    async getPayoutStatus({ payoutId }): Promise<ChainPayoutStatus> {
      const payout = payouts.get(payoutId);
      // Another instance's sandbox sent it (instances share a database, not their simulated
      // chain). Sandbox payouts succeed unless failed on purpose, so it counts as confirmed
      // rather than failing a payout that did nothing wrong.
      if (!payout) return { status: "confirmed" };
      if (payout.failure !== null && !payout.reportedConfirmed) return { status: "failed", reason: payout.failure };
      payout.reportedConfirmed = true;
      return { status: "confirmed" };
    },

    createDeposit({ coin, network, address, amount, confirmations = 0 }) {
      if (typeof amount !== "bigint" || amount <= 0n) throw new RangeError(`createDeposit: amount must be a positive bigint, got ${String(amount)}`);
      checkConfirmations(confirmations);
      let txHash: string;
      do txHash = randomTxHash();
      while (deposits.has(txHash));
      const deposit: ChainDeposit = { coin, network, address, txHash, outputIndex: 0, amount, confirmations, dropped: false };
      deposits.set(txHash, deposit);
      record(deposit);
      return { txHash, outputIndex: deposit.outputIndex };
    },

    setConfirmations(txHash: string, confirmations: number): boolean {
      checkConfirmations(confirmations);
      const deposit = deposits.get(txHash);
      if (!deposit || deposit.dropped) return false;
      if (deposit.confirmations !== confirmations) {
        deposit.confirmations = confirmations;
        record(deposit);
      }
      return true;
    },

    drop(txHash: string): boolean {
      const deposit = deposits.get(txHash);
      if (!deposit) return false;
      if (!deposit.dropped) {
        deposit.dropped = true;
        record(deposit);
      }
      return true;
    },

    getDeposit(txHash: string): ChainDeposit | undefined {
      const deposit = deposits.get(txHash);
      return deposit ? { ...deposit } : undefined;
    },

    failPayout(payoutId: string, reason: string): boolean {
      const payout = payouts.get(payoutId);
      if (!payout || payout.reportedConfirmed) return false;
      payout.failure = reason;
      return true;
    },

    getPayout(payoutId: string): SandboxPayout | undefined {
      const payout = payouts.get(payoutId);
      if (!payout) return undefined;
      const { failure: _failure, reportedConfirmed: _reported, ...copy } = payout;
      return copy;
    },
  };
}

function checkConfirmations(confirmations: number): void {
  if (!Number.isSafeInteger(confirmations) || confirmations < 0) {
    throw new RangeError(`confirmations must be a whole number >= 0, got ${confirmations}`);
  }
}

function randomTxHash(): string {
  return `0x${randomBytes(32).toString("hex")}`;
}
