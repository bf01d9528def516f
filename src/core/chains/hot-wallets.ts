import type { ChainAdapter, HotWalletBalance } from "../ports/chain";
import type { CoreContext } from "../context";
import type { OutageLog } from "../../outage-log";
import { formatDecimal } from "../../money";
import type { ChainReadiness } from "./readiness";

/** One balance of a hot wallet as last read, with whether it is below its threshold. */
export interface HotWalletBalanceReading extends HotWalletBalance {
  /** True when a threshold is set and the amount is below it. */
  low: boolean;
}

/** The latest reading of one live chain's hot wallet (`payments.admin.hotWallets()`). */
export interface HotWalletReading {
  /** The chain, as logs name it ("evm:ETH", "bitcoin:LTC"). */
  chain: string;
  /** The balances of the last successful read (empty before the first one). */
  balances: HotWalletBalanceReading[];
  /** When they were read, epoch ms (the router's clock), or null before the first read. */
  readAt: number | null;
  /** Why the last read failed (the node's scrubbed words), or null when it succeeded. */
  error: string | null;
}

/** Reads are this far apart at least: a balance changes slowly, and each read costs node calls. */
export const HOT_WALLET_READ_INTERVAL_MS = 60_000;

interface Watched {
  chain: ChainAdapter;
  readiness: ChainReadiness;
  reading: HotWalletReading;
  /** When the last read started (router clock), or null: the throttle. */
  triedAt: number | null;
  /** The read in progress: reads of one chain never overlap. */
  running: Promise<void> | null;
  /** Coins below their threshold at the last read, so each crossing is logged once. */
  low: Set<string>;
}

/**
 * Reads the live chains' hot-wallet balances on the background schedule, at most once a
 * minute per chain, and keeps the latest reading in memory for health and metrics. A read is
 * not a part of the chain's round (a round never waits for it, nor fails with it): it runs on
 * the chain's schedule between two rounds, so it never adds requests to a node that hangs a
 * round, and delays the next deposit sync by one read a minute at most.
 * A coin that falls below its threshold is logged once as a warning, and once when it is back
 * above; a read that fails goes through the outage log (its stack once, then a line a read).
 */
export class HotWalletMonitor {
  private readonly watched: Watched[] = [];

  constructor(
    private readonly context: CoreContext,
    private readonly failures: OutageLog,
    readiness: ReadonlyMap<ChainAdapter, ChainReadiness>,
    /** Runs a read on the chain's own schedule, between its rounds (never beside a hung one). */
    private readonly between: (chain: ChainAdapter, work: () => Promise<void>) => Promise<void>,
  ) {
    for (const chain of context.chains.all("live")) {
      if (!chain.hotWalletBalances) continue;
      const chainName = chain.feedId ?? chain.name;
      this.watched.push({
        chain,
        readiness: readiness.get(chain)!,
        reading: { chain: chainName, balances: [], readAt: null, error: null },
        triedAt: null,
        running: null,
        low: new Set(),
      });
    }
  }

  /** The latest reading of every live chain that has a hot wallet to read. */
  readings(): HotWalletReading[] {
    return this.watched.map(({ reading }) => ({ ...reading, balances: reading.balances.map((balance) => ({ ...balance })) }));
  }

  /** Reads every chain whose last read is a minute old or more (or never happened); resolves when those reads end. */
  async refreshDue(): Promise<void> {
    await Promise.all(this.watched.map((watched) => this.refresh(watched)));
  }

  /** Resolves when the reads in progress have ended (the router's `close()`). */
  async idle(): Promise<void> {
    await Promise.all(this.watched.map((watched) => watched.running));
  }

  private refresh(watched: Watched): Promise<void> {
    if (watched.running) return watched.running;
    const now = this.context.now();
    if (watched.triedAt !== null && now - watched.triedAt < HOT_WALLET_READ_INTERVAL_MS) return Promise.resolve();
    watched.triedAt = now;
    watched.running = this.between(watched.chain, () => this.read(watched)).finally(() => (watched.running = null));
    return watched.running;
  }

  private async read(watched: Watched): Promise<void> {
    const name = `hot wallet of live chain ${watched.reading.chain}`;
    let balances: HotWalletBalance[];
    try {
      // A chain refused for another network, or not reached yet, is not read.
      if (!(await watched.readiness.check())) return;
      balances = await watched.chain.hotWalletBalances!();
    } catch (error) {
      watched.reading.error = error instanceof Error ? error.message : String(error);
      this.failures.record(name, [error]);
      return;
    }
    this.failures.record(name, []);
    const readings = balances.map((balance) => ({ ...balance, low: balance.lowBalance !== null && balance.amount < balance.lowBalance }));
    watched.reading = { chain: watched.reading.chain, balances: readings, readAt: this.context.now(), error: null };
    this.logCrossings(watched, readings);
  }

  /** One warning when a coin goes below its threshold, one line when it is back above. */
  private logCrossings(watched: Watched, readings: readonly HotWalletBalanceReading[]): void {
    for (const balance of readings) {
      const key = `${balance.coin}:${balance.network}`;
      const decimals = this.context.currencies.decimalsOf(balance.coin) ?? 0;
      const details = {
        event: balance.low ? "hot_wallet.low" : "hot_wallet.recovered",
        chain: watched.reading.chain,
        coin: balance.coin,
        network: balance.network,
        address: balance.address,
        amount: formatDecimal(balance.amount, decimals),
        lowBalance: balance.lowBalance === null ? null : formatDecimal(balance.lowBalance, decimals),
      };
      if (balance.low && !watched.low.has(key)) {
        watched.low.add(key);
        this.context.logger.warn(
          `hot wallet ${balance.address} on ${balance.network} holds ${details.amount} ${balance.coin}, below its low-balance threshold of ${details.lowBalance}: top it up`,
          details,
        );
      } else if (!balance.low && watched.low.delete(key)) {
        this.context.logger.warn(
          `hot wallet ${balance.address} on ${balance.network} holds ${details.amount} ${balance.coin} again, above its threshold`,
          details,
        );
      }
    }
  }
}
