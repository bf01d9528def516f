import type * as PromClient from "prom-client";
import type { PriceSourceStatus } from "../core/ports/pricing";

/**
 * Registers the per-source price gauges, read at scrape time from the pricing adapter's memory
 * (never a call to a source): seconds since each source's last good read, and whether it counts
 * now. Labels are the configured sources' names, so they stay bounded.
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
}
