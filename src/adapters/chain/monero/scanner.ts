import { z } from "zod";
import { decodeStoredCursor } from "../block-cursor";
import type { ChainDeposit, ChainHost, DepositFeedPage } from "../../../core/ports/chain";
import { toLedgerUnits } from "../units";
import type { IncomingTransfer } from "./view-wallet";

/** Piconero per XMR: 12 decimals on chain. */
export const XMR_DECIMALS = 12;

/** The wallet calls the scanner makes. */
export interface ScannerWallet {
  refresh(): Promise<number>;
  incoming(minHeight: number): Promise<IncomingTransfer[]>;
}

/** What the scanner needs besides its cursor. */
export interface MoneroScannerSettings {
  wallet: ScannerWallet;
  coin: string;
  network: string;
  /** The node's network ("mainnet", "stagenet"...): a cursor made on another is refused. */
  nettype: () => Promise<string>;
  host: ChainHost;
  confirmations: number;
}

const trackedSchema = z.strictObject({
  txid: z.string(),
  /** The subaddress index (account 0): a transaction pays one subaddress at most once in the wallet's list. */
  minor: z.int().min(0),
  address: z.string(),
  /** Piconero, as a decimal string. */
  amount: z.string().regex(/^\d+$/),
  /** Null while in the pool. */
  height: z.int().min(0).nullable(),
  reported: z.int().min(0),
});

type Tracked = z.infer<typeof trackedSchema>;

const cursorSchema = z.strictObject({
  v: z.literal(1),
  nettype: z.string(),
  /** The last block the wallet had read (-1 before the first). */
  height: z.int().min(-1),
  tracked: z.array(trackedSchema),
});

type Cursor = z.infer<typeof cursorSchema>;

/**
 * The deposit feed of `moneroChain()`, read from the view-only wallet: once per poll the wallet
 * follows the chain (`refresh`), then lists its incoming transfers of the last blocks and of the
 * pool (`get_transfers`, one call whatever the number of open invoices), matched against the
 * issued subaddresses with one storage lookup for the transfers not followed yet.
 *
 * - A transfer in the pool is reported with 0 confirmations; mined, with each new one until final.
 * - The wallet handles reorgs itself (it drops what the orphaned blocks held, and lists it again
 *   from the pool or the new blocks): a followed transfer the wallet no longer lists, neither mined
 *   in the window read nor in the pool, has left the chain and is reported dropped. Final
 *   transfers stay followed while within the window, so a reorg deeper than the confirmations is
 *   reported too; past it they are let go.
 * - A transfer with an unlock time is never reported: its outputs cannot be spent before then,
 *   which the payer can set years ahead. It is logged once per process.
 */
export class MoneroScanner {
  private readonly lockedSeen = new Set<string>();

  constructor(private readonly settings: MoneroScannerSettings) {}

  /** Blocks below the head whose transfers are listed again at each poll. */
  get window(): number {
    return Math.max(32, this.settings.confirmations + 8);
  }

  /** One page of the deposit feed (see `ChainAdapter.pollDeposits`). */
  async poll(cursorText: string | null): Promise<DepositFeedPage> {
    const nettype = await this.settings.nettype();
    const walletHeight = await this.settings.wallet.refresh();
    const head = walletHeight - 1;
    const cursor: Cursor = cursorText === null ? { v: 1, nettype, height: Math.max(-1, head - this.window), tracked: [] } : decode(cursorText);
    if (cursor.nettype !== nettype)
      throw new Error(
        `the ${this.settings.network} node is on ${nettype}, but the stored deposit cursor was made on ${cursor.nettype}; point daemonUrl at the right node`,
      );
    // Transfers above min are listed: the window below the previous read, and everything since.
    const min = Math.max(0, Math.min(cursor.height, head) - this.window);
    const listed = await this.settings.wallet.incoming(min);
    const key = (txid: string, minor: number) => `${txid}:${minor}`;
    const followed = new Map(cursor.tracked.map((entry) => [key(entry.txid, entry.minor), entry]));
    const reports: ChainDeposit[] = [];

    // Transfers not followed yet: which of them paid an issued subaddress (one lookup).
    const fresh = listed.filter((transfer) => transfer.major === 0 && !followed.has(key(transfer.txid, transfer.minor)) && transfer.amount > 0n);
    const issued =
      fresh.length === 0
        ? new Set<string>()
        : new Set(
            (await this.settings.host.issuedAddresses(this.settings.network, [...new Set(fresh.map((transfer) => transfer.address))])).map(
              (entry) => entry.address,
            ),
          );
    for (const transfer of fresh) {
      if (!issued.has(transfer.address)) continue;
      if (transfer.unlockTime !== 0n) {
        if (!this.lockedSeen.has(transfer.txid)) {
          this.lockedSeen.add(transfer.txid);
          this.settings.host.logger.warn(
            `${this.settings.network} transfer ${transfer.txid} to ${transfer.address} has an unlock time (${transfer.unlockTime}): not credited; refund or credit it by hand`,
          );
        }
        continue;
      }
      const entry: Tracked = {
        txid: transfer.txid,
        minor: transfer.minor,
        address: transfer.address,
        amount: String(transfer.amount),
        height: transfer.height,
        reported: -1,
      };
      followed.set(key(entry.txid, entry.minor), entry);
    }

    const seen = new Map(listed.map((transfer) => [key(transfer.txid, transfer.minor), transfer]));
    const kept: Tracked[] = [];
    for (const [id, entry] of followed) {
      const now = seen.get(id);
      if (!now) {
        // Neither in the blocks listed nor in the pool: the transaction left the chain.
        reports.push(this.report(entry, 0, true));
        continue;
      }
      entry.height = now.height;
      const confirmations = now.height === null ? 0 : Math.max(0, walletHeight - now.height);
      const required = this.settings.confirmations;
      if (confirmations !== entry.reported && (entry.reported < required || confirmations < required)) reports.push(this.report(entry, confirmations, false));
      entry.reported = confirmations;
      // Let go once below the window of the next poll: final long since, and not listed again.
      if (entry.height === null || entry.height > head - this.window) kept.push(entry);
    }
    const next: Cursor = { v: 1, nettype, height: head, tracked: kept };
    return { deposits: reports, cursor: JSON.stringify(next), hasMore: false };
  }

  private report(entry: Tracked, confirmations: number, dropped: boolean): ChainDeposit {
    return {
      coin: this.settings.coin,
      network: this.settings.network,
      address: entry.address,
      txHash: entry.txid,
      outputIndex: entry.minor,
      amount: toLedgerUnits(BigInt(entry.amount), XMR_DECIMALS, this.settings.host.decimals(this.settings.coin)),
      confirmations,
      dropped,
    };
  }
}

/** The stored cursor's height (null before the first block). */
export function cursorHeight(text: string): number | null {
  const height = decode(text).height;
  return height >= 0 ? height : null;
}

function decode(text: string): Cursor {
  return decodeStoredCursor(text, cursorSchema, "moneroChain()");
}
