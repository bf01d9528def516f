import type * as PromClient from "prom-client";
import type { PriceSourceStatus } from "../core/ports/pricing";

/**
 * Registers the per-source price gauges, read at scrape time from the pricing adapter's memory
 * (never a call to a source): seconds since each source's last good read, whether it counts
 * now, and by the pair (each asset's USD price) whether each source counts for it and how many
 * do. Labels are the configured sources' names and the priced assets, so they stay bounded.
 */
export function priceSourceGauges(
  prom: typeof PromClient,
  { prefix, registers }: { prefix: string; registers: PromClient.Registry[] },
  sources: () => PriceSourceStatus[],
  now: () => number,
): void {
  const read = (): PriceSourceStatus[] => {
    try {
      return sources();
    } catch {
      return [];
    }
  };
  new prom.Gauge<"source">({
    name: `${prefix}price_source_last_good_read_age_seconds`,
    help: "Seconds since each price source's last read with fresh prices (absent before its first).",
    labelNames: ["source"],
    registers,
    collect() {
      this.reset();
      for (const source of read()) {
        if (source.lastGoodReadAt) this.set({ source: source.name }, Math.max(0, (now() - source.lastGoodReadAt.getTime()) / 1000));
      }
    },
  });
  new prom.Gauge<"source">({
    name: `${prefix}price_source_counting`,
    help: "1 when the price source's prices are used now (fresh, agreeing with the others), else 0.",
    labelNames: ["source"],
    registers,
    collect() {
      this.reset();
      for (const source of read()) this.set({ source: source.name }, source.counts ? 1 : 0);
    },
  });
  new prom.Gauge<"pair" | "source">({
    name: `${prefix}price_pair_source_counting`,
    help: "1 when the price source counts for the pair (an asset's USD price) now, 0 when it prices the asset but is left out (pair not listed, stale, far from the median, ...).",
    labelNames: ["pair", "source"],
    registers,
    collect() {
      this.reset();
      for (const source of read())
        for (const pair of source.pairs ?? []) this.set({ pair: `${pair.base}/${pair.quote}`, source: source.name }, pair.counts ? 1 : 0);
    },
  });
  new prom.Gauge<"pair">({
    name: `${prefix}price_pair_sources_counting`,
    help: "How many price sources the pair's price (an asset's USD price) is made with now: below the adapter's minSources, the asset has no price.",
    labelNames: ["pair"],
    registers,
    collect() {
      this.reset();
      const counting = new Map<string, number>();
      for (const source of read()) {
        for (const pair of source.pairs ?? []) {
          const key = `${pair.base}/${pair.quote}`;
          counting.set(key, (counting.get(key) ?? 0) + (pair.counts ? 1 : 0));
        }
      }
      for (const [pair, count] of counting) this.set({ pair }, count);
    },
  });
}
