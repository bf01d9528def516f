import type { ChainAdapter } from "../ports/chain";
import { hasStoragePart } from "../ports/storage/index";
import { PriceUnavailableError, type PriceSourceStatus } from "../ports/pricing";
import type { HotWalletReading } from "../chains/hot-wallets";
import type { CoreContext } from "../context";
import type { BackgroundStatus } from "../background";
import { formatDecimal } from "../../money";
import { probeChain } from "./one-shot";
import { scannerLag } from "../chains/chain-lag";
import type { HealthOptions, HealthStatus, ChainHealth, PriceSourceHealth, CoinPriceHealth, HealthReport, HealthReportOptions, HealthSources } from "./report";

const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());

/** A PROCESSING payout as health counts it: its chain, and why the chain has not sent it (null when nothing stands in its way). */
interface PendingPayout {
  chain: ChainAdapter;
  notSentBecause: string | null;
}

/** How many reasons a chain's `payoutsNotSent` lists: enough to tell a node error from locked coins, bounded for the report. */
const NOT_SENT_REASONS = 5;

/** The payouts of `chain` that the chain refused to send so far, and their distinct reasons. */
function notSent(pending: readonly PendingPayout[], chain: ChainAdapter): ChainHealth["payoutsNotSent"] {
  const refused = pending.filter((entry) => entry.chain === chain && entry.notSentBecause !== null);
  return { count: refused.length, reasons: [...new Set(refused.map((entry) => entry.notSentBecause!))].slice(0, NOT_SENT_REASONS) };
}

/** The health reason for payouts waiting on their chain: degraded, since payments still go on. */
function notSentReason(name: string, waiting: ChainHealth["payoutsNotSent"]): string {
  return `chain ${name}: ${waiting.count} payout(s) not sent yet (${waiting.reasons.join("; ")})`;
}

/** How far each count of the webhook backlog goes: enough to tell a pile-up, bounded for the storage. */
export const WEBHOOK_BACKLOG_LIMIT = 10_000;

/** Runs `work` for at most `ms`: rejects with "timed out" past it. */
function within<T>(ms: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref?.();
  });
  return Promise.race([Promise.resolve().then(work), timeout]).finally(() => clearTimeout(timer));
}

/**
 * The health check: probes the storage, each live chain's node and the prices of the coins they
 * serve, and reads what the background work and the webhook sender know. Keeps, per chain, since
 * when its node has not answered, so that an outage becomes "unhealthy" only after
 * `nodeDownAfterMs`. Messages name parts and coins, never a URL, a key or a merchant.
 */
export class HealthCheck {
  private readonly nodeDownAfterMs: number;
  private readonly maxLagSeconds: number;
  private readonly timeoutMs: number;
  private readonly downSince = new Map<ChainAdapter, number>();

  constructor(
    private readonly context: CoreContext,
    private readonly sources: HealthSources,
    options: HealthOptions = {},
  ) {
    this.nodeDownAfterMs = options.nodeDownAfterMs ?? 60_000;
    this.maxLagSeconds = options.maxLagSeconds ?? 600;
    this.timeoutMs = options.timeoutMs ?? 2000;
  }

  /** Runs every probe (in parallel) and returns the report. Never rejects. */
  async report(options: HealthReportOptions = {}): Promise<HealthReport> {
    const now = this.context.now();
    const oneShot = options.oneShot === true;
    const background: BackgroundStatus = oneShot ? { running: false, closed: false, schedules: [], chains: [] } : this.sources.background();
    const reasons: string[] = [];
    const softer: string[] = [];
    const wallets = this.sources.hotWallets();
    const webhooks = this.webhooks(now);
    const priceSources = this.priceSources();
    const [storage, pending, pricing] = await Promise.all([this.storage(), this.pendingPayouts(), this.pricing(priceSources.statuses)]);
    const chains = oneShot
      ? await Promise.all(this.context.chains.all("live").map((chain) => this.probedChain(chain, pending)))
      : await Promise.all(background.chains.map((entry) => this.chain(entry, now, pending, wallets)));
    if (!storage.reachable) reasons.push("storage: not reachable");
    for (const chain of chains) {
      reasons.push(...chain.unhealthy);
      softer.push(...chain.degraded);
    }
    // A coin without a price stops only its own invoices: degraded, unless no coin has one.
    const unpriced = pricing.filter((price) => !price.available);
    const priceless = unpriced.length > 0 && unpriced.length === pricing.length ? reasons : softer;
    for (const price of unpriced) priceless.push(`pricing: no usable price for ${price.coin} in ${price.quote}${price.reason ? ` (${price.reason})` : ""}`);
    for (const source of priceSources.health) if (!source.counts) softer.push(`pricing: source ${source.name} does not count (${source.leftOut})`);
    const backlog = await webhooks;
    if (backlog && backlog.failingEndpoints > 0) softer.push(`webhooks: ${backlog.failingEndpoints} endpoint(s) failing`);
    const status: HealthStatus = reasons.length > 0 ? "unhealthy" : softer.length > 0 ? "degraded" : "ok";
    return {
      status,
      reasons: [...reasons, ...softer],
      checkedAt: new Date(now).toISOString(),
      storage,
      chains: chains.map(({ health }) => health),
      pricing,
      priceSources: priceSources.health,
      webhooks: backlog,
      background: {
        running: background.running,
        schedules: background.schedules.map((schedule) => ({
          name: schedule.name,
          lastRoundAt: iso(schedule.lastRoundAt),
          failing: schedule.failingSince !== null,
        })),
      },
    };
  }

  /** A trivial read (a merchant id that cannot exist), timed. */
  private async storage(): Promise<HealthReport["storage"]> {
    const started = performance.now();
    try {
      await within(this.timeoutMs, () => this.context.storage.getMerchant("health_check"));
      return { reachable: true, roundTripMs: Math.round((performance.now() - started) * 10) / 10 };
    } catch {
      return { reachable: false, roundTripMs: null };
    }
  }

  /** The outbox's backlog across every instance, from the storage (null when it cannot be read in time). */
  private async webhooks(now: number): Promise<HealthReport["webhooks"]> {
    // A storage without the backlog read: unknown, as a read that failed (health is not degraded by it).
    const storage = this.context.storage;
    if (!hasStoragePart(storage, "webhookBacklog")) return null;
    try {
      const backlog = await within(this.timeoutMs, () => storage.webhookBacklog(now, WEBHOOK_BACKLOG_LIMIT));
      const oldestDueSeconds = backlog.oldestDueAt === null ? 0 : Math.max(0, Math.round((now - backlog.oldestDueAt) / 1000));
      return { retrying: backlog.retrying, due: backlog.due, oldestDueSeconds, failingEndpoints: backlog.failingEndpoints };
    } catch {
      return null;
    }
  }

  private async chain(
    entry: BackgroundStatus["chains"][number],
    now: number,
    pending: readonly PendingPayout[],
    wallets: readonly HotWalletReading[],
  ): Promise<{ health: ChainHealth; unhealthy: string[]; degraded: string[] }> {
    const { chain, refused, lastScanAt, failingSince } = entry;
    const name = chain.feedId ?? chain.name;
    const unhealthy: string[] = [];
    const degraded: string[] = [];
    const sync = chain.syncStatus ? await within(this.timeoutMs, () => chain.syncStatus!()).catch(() => null) : undefined;
    // Without syncStatus, the chain's own rounds tell whether its node answers.
    const reachable = sync === undefined ? failingSince === null : sync !== null;
    if (reachable) this.downSince.delete(chain);
    else {
      const since = Math.min(this.downSince.get(chain) ?? now, failingSince ?? now);
      this.downSince.set(chain, since);
    }
    const downSince = this.downSince.get(chain) ?? null;
    if (refused) unhealthy.push(`chain ${name}: refused (its node serves another network than configured)`);
    if (downSince !== null) {
      const down = now - downSince;
      (down >= this.nodeDownAfterMs ? unhealthy : degraded).push(`chain ${name}: node not answering for ${Math.round(down / 1000)} s`);
    }
    const nodeHeight = sync?.nodeHeight ?? null;
    const scannedHeight = sync?.scannedHeight ?? null;
    const lag = sync ? scannerLag(sync) : null;
    const lagBlocks = lag?.blocks ?? null;
    const lagSeconds = lag?.seconds ?? null;
    if (lag && lag.seconds > this.maxLagSeconds) unhealthy.push(`chain ${name}: scanner ${lag.blocks} blocks (${lag.seconds} s) behind the node`);
    const health: ChainHealth = {
      chain: name,
      state: refused ? "refused" : lastScanAt !== null ? "ready" : "pending",
      nodeReachable: reachable,
      nodeDownSince: iso(downSince),
      nodeHeight,
      scannedHeight,
      lagBlocks,
      lagSeconds,
      lastScanAt: iso(lastScanAt),
      pendingPayouts: pending.filter((entry) => entry.chain === chain).length,
      payoutsNotSent: notSent(pending, chain),
      pendingSweeps: sync?.pendingSweeps ?? null,
    };
    if (health.payoutsNotSent.count > 0) degraded.push(notSentReason(name, health.payoutsNotSent));
    // The background work's latest reading (it reads each hot wallet once a minute at most).
    const wallet = wallets.find((reading) => reading.chain === name && reading.readAt !== null);
    if (wallet) {
      health.hotWallet = wallet.balances.map(({ coin, network, address, amount, low }) => ({
        coin,
        network,
        address,
        amount: formatDecimal(amount, this.context.currencies.decimalsOf(coin) ?? 0),
        low,
      }));
      for (const balance of health.hotWallet) if (balance.low) degraded.push(`chain ${name}: hot wallet ${balance.coin} balance below its low mark`);
    }
    return { health, unhealthy, degraded };
  }

  /** A chain in a one-shot report: its node checked and read now, its scan from the stored cursor. */
  private async probedChain(chain: ChainAdapter, pending: readonly PendingPayout[]): Promise<{ health: ChainHealth; unhealthy: string[]; degraded: string[] }> {
    const name = chain.feedId ?? chain.name;
    const probe = await probeChain(this.context, chain, this.timeoutMs, within);
    const unhealthy: string[] = [];
    if (probe.refused) unhealthy.push(`chain ${name}: refused (its node serves another network than configured)`);
    if (probe.failure !== null) unhealthy.push(`chain ${name}: node not answering (${probe.failure})`);
    const nodeHeight = probe.sync?.nodeHeight ?? null;
    const scannedHeight = probe.storedHeight ?? probe.sync?.scannedHeight ?? null;
    const lag = probe.sync ? scannerLag(probe.sync, scannedHeight) : null;
    const lagBlocks = lag?.blocks ?? null;
    const lagSeconds = lag?.seconds ?? null;
    if (lag && lag.seconds > this.maxLagSeconds) unhealthy.push(`chain ${name}: scanner ${lag.blocks} blocks (${lag.seconds} s) behind the node`);
    const reachable = !probe.refused && probe.failure === null;
    const health: ChainHealth = {
      chain: name,
      state: probe.refused ? "refused" : reachable ? "ready" : "pending",
      nodeReachable: reachable,
      nodeDownSince: reachable ? null : new Date(this.context.now()).toISOString(),
      nodeHeight,
      scannedHeight,
      lagBlocks,
      lagSeconds,
      lastScanAt: null,
      pendingPayouts: pending.filter((entry) => entry.chain === chain).length,
      payoutsNotSent: notSent(pending, chain),
      pendingSweeps: probe.sync?.pendingSweeps ?? null,
    };
    const degraded: string[] = [];
    if (health.payoutsNotSent.count > 0) degraded.push(notSentReason(name, health.payoutsNotSent));
    // No background reading to take it from: the hot wallet is read now.
    const balances = reachable && chain.hotWalletBalances ? await within(this.timeoutMs, () => chain.hotWalletBalances!()).catch(() => null) : null;
    if (balances && balances.length > 0) {
      health.hotWallet = balances.map(({ coin, network, address, amount, lowBalance }) => ({
        coin,
        network,
        address,
        amount: formatDecimal(amount, this.context.currencies.decimalsOf(coin) ?? 0),
        low: lowBalance !== null && amount < lowBalance,
      }));
      for (const balance of health.hotWallet) if (balance.low) degraded.push(`chain ${name}: hot wallet ${balance.coin} balance below its low mark`);
    }
    return { health, unhealthy, degraded };
  }

  /**
   * The chain serving each PROCESSING live payout (every merchant), up to 1000, with why it is
   * not sent when the chain refused it: one bounded read for the whole report, counted per chain.
   */
  private async pendingPayouts(): Promise<PendingPayout[]> {
    try {
      const payouts = await within(this.timeoutMs, () => this.context.storage.listPayoutsByStatus("live", "PROCESSING", 1000));
      return payouts.flatMap((payout) => {
        const chain = this.context.chains.forPair("live", payout.coin, payout.network);
        return chain ? [{ chain, notSentBecause: payout.txHash === null ? payout.pendingReason : null }] : [];
      });
    } catch {
      return [];
    }
  }

  /** The pricing adapter's sources, from its memory; none when it does not list them. */
  private priceSources(): { statuses: PriceSourceStatus[]; health: PriceSourceHealth[] } {
    let statuses: PriceSourceStatus[];
    try {
      statuses = this.context.pricing.sources?.() ?? [];
    } catch {
      return { statuses: [], health: [] };
    }
    const health = statuses.map((source) => ({
      name: source.name,
      counts: source.counts,
      lastGoodReadAt: source.lastGoodReadAt ? source.lastGoodReadAt.toISOString() : null,
      lastFailureAt: source.lastFailure ? source.lastFailure.at.toISOString() : null,
      lastFailure: source.lastFailure ? source.lastFailure.message : null,
      leftOut: source.leftOut,
    }));
    return { statuses, health };
  }

  /**
   * For each coin a live chain serves, whether the pricing port quotes it now (in the first
   * fiat), and which sources its USD price is made with and which not, and why (from `sources`).
   */
  private async pricing(sources: readonly PriceSourceStatus[]): Promise<CoinPriceHealth[]> {
    const fiat = this.context.currencies.fiatSymbols();
    const quote = fiat.includes("USD") ? "USD" : (fiat[0] ?? "USD");
    const coins = this.context.chains.currencies("live", this.context.currencies).map((currency) => currency.symbol);
    return Promise.all(
      coins.map(async (coin): Promise<CoinPriceHealth> => {
        let reason: string | null = null;
        const rate = await within(this.timeoutMs, () => this.context.pricing.getRate(coin, quote)).catch((error: unknown) => {
          reason = error instanceof PriceUnavailableError ? error.reason : null;
          return null;
        });
        const pairs = sources.flatMap((source) => (source.pairs ?? []).filter((pair) => pair.base === coin).map((pair) => ({ source: source.name, pair })));
        return {
          coin,
          quote,
          available: rate !== null,
          at: rate ? rate.at.toISOString() : null,
          reason,
          sources: pairs.filter(({ pair }) => pair.counts).map(({ source }) => source),
          leftOut: pairs.filter(({ pair }) => !pair.counts).map(({ source, pair }) => `${source}: ${pair.leftOut}`),
        };
      }),
    );
  }
}
