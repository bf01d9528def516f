import type * as PromClient from "prom-client";
import type { ChainAdapter, ChainSyncStatus } from "../core/ports/chain";
import type { HotWalletBalanceReading, HotWalletReading } from "../core/chains/hot-wallets";
import type { CurrencyCatalog } from "../currencies";
import { toNumber } from "../money";
import { scannerLag } from "../core/chains/chain-lag";

/** How long one scrape waits for a node before it shows the chain as down. */
const READ_TIMEOUT_MS = 2000;
/** How long a read is reused: scrapers every few seconds (or several of them) cost one node call. */
const CACHE_MS = 5000;

/**
 * A read made at scrape time (a chain's sync status, the webhook backlog): with a time limit,
 * so a hung node or storage never hangs the scrape (null then), and reused for `cacheMs`, so
 * frequent scrapes never load what they read.
 */
export class CachedRead<T> {
  private last: { at: number; value: Promise<T | null> } | null = null;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly cacheMs = CACHE_MS,
  ) {}

  get(): Promise<T | null> {
    const now = Date.now();
    if (this.last && now - this.last.at < this.cacheMs) return this.last.value;
    const value = withTimeout(this.read()).catch(() => null);
    this.last = { at: now, value };
    return value;
  }
}

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timed out")), READ_TIMEOUT_MS);
    timer.unref();
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

/**
 * Registers the gauges of the live chains: node reachable and scanner lag (blocks and seconds)
 * per chain (labelled by its feed, `evm:ETH`), read from the nodes at scrape time; hot-wallet balance per coin (decimal coin
 * units, a float for the metric only) and whether it is below its low-balance threshold, from
 * the background work's latest reading (`hotWallets`), so a scrape never calls a node for them.
 */
export function chainGauges(
  prom: typeof PromClient,
  { prefix, registers }: { prefix: string; registers: PromClient.Registry[] },
  chains: readonly ChainAdapter[],
  currencies: CurrencyCatalog,
  hotWallets: () => readonly HotWalletReading[],
): void {
  const sync = chains
    .filter((chain) => chain.syncStatus)
    // Labelled by feed ("evm:ETH", "evm:BSC"), not by family ("evm"): one family often serves
    // several networks, and one label per family would let a down network hide behind an up one.
    // One series per configured chain, so the label set stays bounded.
    .map((chain) => ({ chain: chain.feedId ?? chain.name, read: new CachedRead<ChainSyncStatus>(() => chain.syncStatus!()) }));
  const syncGauge = (name: string, help: string, value: (status: ChainSyncStatus) => number | null) =>
    new prom.Gauge<"chain" | "network">({
      name: prefix + name,
      help,
      labelNames: ["chain", "network"],
      registers,
      async collect() {
        this.reset();
        for (const { chain, read } of sync) {
          const status = await read.get();
          const v = status ? value(status) : null;
          if (status && v !== null) this.set({ chain, network: status.network }, v);
        }
      },
    });
  new prom.Gauge<"chain">({
    name: `${prefix}chain_node_up`,
    help: "1 when the chain's node answered the last status read, 0 when it failed or timed out.",
    labelNames: ["chain"],
    registers,
    async collect() {
      this.reset();
      for (const { chain, read } of sync) this.set({ chain }, (await read.get()) ? 1 : 0);
    },
  });
  syncGauge("scanner_lag_blocks", "Blocks between the node's head and the last block the scanner read.", (status) => scannerLag(status)?.blocks ?? null);
  syncGauge(
    "scanner_lag_seconds",
    "Seconds between the node's head block and the last block the scanner read, by their timestamps.",
    (status) => scannerLag(status)?.seconds ?? null,
  );
  syncGauge("node_height", "Height of the node's latest block.", (status) => status.nodeHeight);
  const walletGauge = (name: string, help: string, value: (balance: HotWalletBalanceReading, decimals: number) => number | null) =>
    new prom.Gauge<"coin" | "network">({
      name: prefix + name,
      help,
      labelNames: ["coin", "network"],
      registers,
      collect() {
        this.reset();
        for (const reading of hotWallets()) {
          for (const balance of reading.balances) {
            const v = value(balance, currencies.decimalsOf(balance.coin) ?? 0);
            if (v !== null) this.set({ coin: balance.coin, network: balance.network }, v);
          }
        }
      },
    });
  walletGauge("hot_wallet_balance", "The hot wallet's balance, in decimal coin units.", (balance, decimals) => toNumber(balance.amount, decimals));
  walletGauge("hot_wallet_low", "1 when the hot wallet's balance is below its low-balance threshold, else 0.", (balance) =>
    balance.lowBalance === null ? null : balance.low ? 1 : 0,
  );
}
