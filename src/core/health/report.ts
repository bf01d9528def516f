/** The shape of a health report (`payments.health()`) and the options and sources of the check. */
import type { HotWalletReading } from "../chains/hot-wallets";
import type { BackgroundStatus } from "../background";

/** Thresholds of the health check (`createPaymentRouter({ health })`). */
export interface HealthOptions {
  /** How long a live chain's node may not answer before health answers 503, in ms. Default 60000. */
  nodeDownAfterMs?: number;
  /** How far (in seconds of chain time: the head block's timestamp less the scanned block's) a live chain's scanner may lag its node's head before health answers 503. Default 600. */
  maxLagSeconds?: number;
  /** How long each probe (storage read, node head, price) may take, in ms. Default 2000. */
  timeoutMs?: number;
}

/** "ok": everything works; "degraded": it takes and credits payments but something needs a look; "unhealthy": it cannot. */
export type HealthStatus = "ok" | "degraded" | "unhealthy";

/** One live chain in the health report. Heights are block numbers; times epoch ms as ISO strings. */
export interface ChainHealth {
  /** The chain's feed ("evm:ETH", "bitcoin:LTC"). */
  chain: string;
  /** "ready": checked and scanned; "refused": its node serves another network (its coins answer 503); "pending": not checked yet. */
  state: "ready" | "refused" | "pending";
  nodeReachable: boolean;
  /** Since when the node has not answered (ISO time), or null. */
  nodeDownSince: string | null;
  nodeHeight: number | null;
  scannedHeight: number | null;
  lagBlocks: number | null;
  lagSeconds: number | null;
  /** End of the last background round of this chain that ran without a failure. */
  lastScanAt: string | null;
  /** Payouts of its coins broadcast or waiting to be (status PROCESSING), counted up to 1000. */
  pendingPayouts: number;
  /**
   * Of those, the payouts the chain refused to send so far (no transaction yet, a
   * `pendingReason` stored: its node down, the hot wallet's coins still locked), and their
   * distinct reasons (at most 5). They are tried again each background round.
   */
  payoutsNotSent: { count: number; reasons: string[] };
  /** Deposit addresses with final deposits waiting to be swept into the hot wallet; null when the chain does not sweep or its node could not be read. */
  pendingSweeps: number | null;
  /** The hot wallet's balances, when the adapter reports them, in coin units. */
  hotWallet?: Array<{ coin: string; network: string; address: string; amount: string; low: boolean }>;
}

/** One price source in the health report, from what the adapter's own reads saw (never a call to the source per probe). */
export interface PriceSourceHealth {
  /** The source's name ("coinbase", "kraken", "static"). */
  name: string;
  /** Whether its prices are used now: fresh, and agreeing with the others for at least one asset. */
  counts: boolean;
  /** When its last read with fresh prices ended (ISO time), or null. */
  lastGoodReadAt: string | null;
  /** When its last read failed (ISO time), or null; kept after it recovers. */
  lastFailureAt: string | null;
  /** Why its last failed read failed, scrubbed of URLs and keys, or null. */
  lastFailure: string | null;
  /** What the combine rules leave out of it now, or null. */
  leftOut: string | null;
}

/**
 * One coin's price in the health report. A coin short of sources makes the report "degraded"
 * (naming the coin and why), never "unhealthy" while another coin can be priced: the other
 * coins' invoices go on. Only when no served coin can be priced is the report "unhealthy".
 */
export interface CoinPriceHealth {
  coin: string;
  /** The currency it was priced in: USD when the fiat list has it, else the first fiat. */
  quote: string;
  /** Whether a price can be quoted now. */
  available: boolean;
  /** When the price used was observed (ISO time), or null. */
  at: string | null;
  /** Why there is no price (the pricing adapter's words, naming the pair and the sources), or null. */
  reason: string | null;
  /** The sources the coin's USD price is made with now (empty when the adapter does not list sources by pair). */
  sources: string[];
  /** The sources that price the coin but do not count now, and why: "kraken: pair not listed", "coinbase: stale 40 s". */
  leftOut: string[];
}

/** What `payments.health()` returns and `payments.healthHandler` answers. Holds no key, secret, node URL or merchant data. */
export interface HealthReport {
  status: HealthStatus;
  /** Why the status is "unhealthy" (or "degraded"): one sentence each. Empty when "ok". */
  reasons: string[];
  checkedAt: string;
  storage: { reachable: boolean; roundTripMs: number | null };
  chains: ChainHealth[];
  /** Each coin a live chain serves: whether a price can be quoted for it now, and from which sources (see {@link CoinPriceHealth}). */
  pricing: CoinPriceHealth[];
  /** Each price source of the pricing adapter (when it lists them): see {@link PriceSourceHealth}. */
  priceSources: PriceSourceHealth[];
  /**
   * The webhook outbox across every merchant and instance (read from the storage, each count up
   * to 10000): deliveries waiting for a retry, those due now, how long the oldest due one has
   * waited, and endpoints whose receiver failed its last attempt. Null when the storage could
   * not be read within `timeoutMs`.
   */
  webhooks: { retrying: number; due: number; oldestDueSeconds: number; failingEndpoints: number } | null;
  /** The background loops: whether their timer runs, and when each schedule last ended a round. */
  background: { running: boolean; schedules: Array<{ name: string; lastRoundAt: string | null; failing: boolean }> };
}

/** Options of one health report (`payments.health(options)`). */
export interface HealthReportOptions {
  /**
   * For a process that runs no background work (the operator's command line, a cron job): each
   * live chain's node is checked (network, keys) and its head read now, and a node that does not
   * answer is unhealthy at once; scanner heights come from the cursors in storage; the hot
   * wallets are read from their nodes. The background loops and last scans are left out (`background.running` false, no schedules;
   * `lastScanAt` null). Default false: what this process's own background work and sender know.
   */
  oneShot?: boolean;
}

/** What the health check reads besides the core context. */
export interface HealthSources {
  background: () => BackgroundStatus;
  /** The latest hot-wallet readings of the background work (never a node call per probe). */
  hotWallets: () => HotWalletReading[];
}
