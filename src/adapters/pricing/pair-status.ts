import type { PricePairStatus } from "../../core/ports/pricing";
import { formatBps, type Combined } from "./combine";
import type { SourcePrice } from "./sources/types";

/**
 * Where each source stands for one asset's USD price: whether the price is made with it now,
 * and why not, in the words the health check shows ("pair not listed", "stale 40 s"). Pure: it
 * reads what the adapter keeps of each source, never a source.
 */

/** What the adapter knows of one source, for one asset. */
export interface SourceView {
  name: string;
  /** Whether the source prices this asset at all (its table has it). */
  covers: boolean;
  /** Whether it has answered or failed once at least. */
  read: boolean;
  /** Whether its last read failed. */
  failing: boolean;
  /** Its last price of the asset, if it had one in its last answer. */
  price: SourcePrice | undefined;
  /** Why it could not price the asset in its last answer, as it said. */
  missing: string | undefined;
}

/** The statuses of the sources covering `asset`, given its combined USD price (and USDT/USD's, for USDT-quoted prices). */
export function pairStatuses(
  asset: string,
  combined: Combined,
  usdt: () => Combined,
  views: readonly SourceView[],
  at: number,
  maxAgeMs: number,
): Array<{ source: string; status: PricePairStatus }> {
  return views
    .filter((view) => view.covers)
    .map((view) => {
      const leftOut = combined.ok && combined.sources.includes(view.name) ? null : whyNot(asset, combined, usdt, view, at, maxAgeMs);
      return { source: view.name, status: { base: asset, quote: "USD", counts: leftOut === null, leftOut } };
    });
}

function whyNot(asset: string, combined: Combined, usdt: () => Combined, view: SourceView, at: number, maxAgeMs: number): string {
  const { price } = view;
  if (!price) {
    if (!view.read) return "not read yet";
    if (view.missing !== undefined) return view.missing;
    return view.failing ? "its reads fail" : "no price in its answers";
  }
  const age = at - Math.min(price.at.getTime(), at);
  if (age > maxAgeMs) return `stale ${Math.round(age / 1000)} s${view.failing ? ", its reads fail" : ""}`;
  if (price.quote === "USDT" && asset !== "USDT" && !usdt().ok) return "USDT/USD has no price";
  const outlier = combined.outliers.find((candidate) => candidate.source === view.name);
  if (outlier) return `${formatBps(outlier.bps)} from the median`;
  return "fresh, too few sources for a price";
}
