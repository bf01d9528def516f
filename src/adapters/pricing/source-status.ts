import { scrubUrls } from "../../scrub-urls";
import { OutageLog, type OutageLogger } from "../../outage-log";
import type { PriceRead, PriceSourceStatus, PricingHost } from "../../core/ports/pricing";
import { formatBps, type Combined } from "./combine";
import { PriceSourceError, type SourcePrice } from "./sources/types";

/** What one source's reads came to so far (epoch ms). */
interface Seen {
  lastGoodAt: number | null;
  lastFailure: { at: number; message: string } | null;
}

/** The combined USD price of one asset, as the rules made it at one moment. */
export interface AssetResult {
  asset: string;
  combined: Combined;
}

/**
 * Watches the reads of each price source: reports each read to the router (outcome and duration,
 * for metrics), logs a source that keeps failing as an outage (its error once, a line a read, a
 * line when it answers again), and keeps when each last answered well and last failed, so the
 * health check can say where each source stands without calling it.
 */
export class SourceWatch {
  private readonly seen = new Map<string, Seen>();
  /** Sources that answered once at least (a stale answer sets no lastGoodAt). */
  private readonly answeredOnce = new Set<string>();
  private readonly outages: OutageLog;
  private logger: PricingHost["logger"] = console;
  private report: PricingHost["priceRead"];

  constructor(
    private readonly names: readonly string[],
    private readonly now: () => number,
    private readonly maxAgeMs: number,
  ) {
    for (const name of names) this.seen.set(name, { lastGoodAt: null, lastFailure: null });
    // Through a forwarder: the router's logger arrives with bind(), after creation.
    const forward: OutageLogger = { warn: (...args) => this.logger.warn(...args), error: (...args) => this.logger.error(...args) };
    this.outages = new OutageLog(forward, { try: "read" });
  }

  /** The router's logger and read reporter (`PricingAdapter.bind`). */
  bind(host: PricingHost): void {
    this.logger = host.logger;
    this.report = host.priceRead?.bind(host);
  }

  /** A read of `name` answered `prices` after `seconds`. */
  answered(name: string, prices: readonly SourcePrice[], seconds: number): void {
    const at = this.now();
    const seen = this.seen.get(name)!;
    this.answeredOnce.add(name);
    // Stale prices are logged by the freshness review, once per episode: not an outage.
    const fresh = prices.length === 0 || prices.some((price) => at - Math.min(price.at.getTime(), at) <= this.maxAgeMs);
    if (fresh) seen.lastGoodAt = at;
    this.outages.worked(`price source ${name}`);
    this.emit({ source: name, outcome: fresh ? "ok" : "stale", seconds });
  }

  /** A read of `name` failed with `error` after `seconds`. */
  failed(name: string, error: unknown, seconds: number): void {
    const message = scrubUrls(error instanceof PriceSourceError ? error.message : `${name}: ${(error as Error)?.message ?? String(error)}`);
    this.seen.get(name)!.lastFailure = { at: this.now(), message };
    // A source's own error names its request and reason (built-in sources never show a URL or a
    // key); anything else thrown is logged by its scrubbed message only.
    this.outages.failed(`price source ${name}`, error instanceof PriceSourceError ? error : new PriceSourceError(name, message.slice(name.length + 2)));
    this.emit({ source: name, outcome: "error", seconds });
  }

  /** Whether `name` has been read once at least (it answered or failed). */
  read(name: string): boolean {
    const seen = this.seen.get(name)!;
    return seen.lastGoodAt !== null || seen.lastFailure !== null || this.answeredOnce.has(name);
  }

  /** Whether `name`'s last read failed. */
  failing(name: string): boolean {
    return this.outages.failing(`price source ${name}`) > 0;
  }

  /**
   * Each source's status, given the combined price of every asset now and whether each source
   * has a fresh price: it counts when some asset's price was made with it.
   */
  statuses(results: readonly AssetResult[], hasFresh: (name: string) => boolean): PriceSourceStatus[] {
    return this.names.map((name) => {
      const seen = this.seen.get(name)!;
      const counts = results.some(({ combined }) => combined.ok && combined.sources.includes(name));
      const far = results.flatMap(({ asset, combined }) =>
        combined.outliers.filter((outlier) => outlier.source === name).map((outlier) => `${asset}/USD (${formatBps(outlier.bps)})`),
      );
      let leftOut: string | null = null;
      if (!hasFresh(name)) {
        if (this.failing(name)) leftOut = `no fresh prices: its reads fail (${seen.lastFailure?.message})`;
        else leftOut = seen.lastGoodAt === null && seen.lastFailure === null ? "not read yet" : "no fresh prices: they are older than maxAgeSeconds";
      } else if (far.length > 0) leftOut = `too far from the median for ${far.join(", ")}`;
      else if (!counts) leftOut = "no price is made with it now: too few sources agree or are fresh";
      return {
        name,
        lastGoodReadAt: seen.lastGoodAt === null ? null : new Date(seen.lastGoodAt),
        lastFailure: seen.lastFailure && { at: new Date(seen.lastFailure.at), message: seen.lastFailure.message },
        counts,
        leftOut,
      };
    });
  }

  private emit(read: PriceRead): void {
    try {
      this.report?.(read);
    } catch {
      // Metrics never stop prices.
    }
  }
}
