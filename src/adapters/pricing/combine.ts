/**
 * The rules that turn several sources' prices of one asset into one price, or into a reason
 * why there is none: only fresh, positive prices count; the median of them is the price; a source
 * further than the allowed deviation from that median is left out (and named, so it can be
 * logged) and the median taken again; fewer sources than the minimum left: no price. Pure and
 * exact: prices are bigints at 18 decimals.
 */

/** One source's price of an asset in USD, at 18 decimals, with when it was observed. */
export interface Candidate {
  source: string;
  /** USD per unit, scaled by 10^18. */
  usd: bigint;
  /** Observation time, epoch ms. */
  at: number;
}

/** Limits applied when combining. */
export interface CombineRules {
  /** Prices older than this (ms) are not used. */
  maxAgeMs: number;
  /** Fewer fresh, agreeing sources than this: no price. */
  minSources: number;
  /** A source further than this from the median, in basis points (1% = 100), is left out. */
  maxDeviationBps: bigint;
}

/** A combined price, or why there is none. */
export type Combined =
  | {
      ok: true;
      /** USD per unit, scaled by 10^18. */
      usd: bigint;
      /** The oldest observation among the sources used. */
      at: number;
      /** Until when every price used stays fresh (epoch ms): the result holds until then. */
      freshUntil: number;
      /** The sources used, by name, sorted. */
      sources: string[];
      /** Sources left out for deviating from the others, with their distance in basis points. */
      outliers: Array<{ source: string; bps: bigint }>;
    }
  | { ok: false; reason: string; outliers: Array<{ source: string; bps: bigint }> };

/** The median of a non-empty list: the middle value, or the mean of the two middle ones (rounded down). */
export function median(values: readonly bigint[]): bigint {
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2n;
}

/** |value - reference| / reference in basis points, rounded up (so a limit is never crossed by rounding). */
export function deviationBps(value: bigint, reference: bigint): bigint {
  const distance = value > reference ? value - reference : reference - value;
  const scaled = distance * 10_000n;
  return scaled % reference === 0n ? scaled / reference : scaled / reference + 1n;
}

/**
 * Combines the candidates at `now`. `unavailable` lists sources that gave no price at all (down,
 * or an answer refused), so that the reason can name them.
 */
export function combine(candidates: readonly Candidate[], now: number, rules: CombineRules, unavailable: readonly string[] = []): Combined {
  const stale: string[] = [];
  const fresh: Candidate[] = [];
  for (const candidate of candidates) {
    if (candidate.usd <= 0n) continue;
    // A time in the future is a clock problem of the source's: it is not fresher than now.
    if (now - Math.min(candidate.at, now) > rules.maxAgeMs) stale.push(`${candidate.source} (${Math.round((now - candidate.at) / 1000)} s old)`);
    else fresh.push(candidate);
  }
  const why = () => {
    const parts = [`${fresh.length} fresh source${fresh.length === 1 ? "" : "s"}, ${rules.minSources} needed`];
    // Sorted, so that the same situation always reads the same.
    if (stale.length > 0) parts.push(`stale: ${[...stale].sort().join(", ")}`);
    if (unavailable.length > 0) parts.push(`down: ${[...unavailable].sort().join(", ")}`);
    return parts.join("; ");
  };
  if (fresh.length < rules.minSources || fresh.length === 0) return { ok: false, reason: why(), outliers: [] };

  const middle = median(fresh.map((candidate) => candidate.usd));
  const outliers: Array<{ source: string; bps: bigint }> = [];
  const agreeing = fresh.filter((candidate) => {
    const bps = deviationBps(candidate.usd, middle);
    if (bps <= rules.maxDeviationBps) return true;
    outliers.push({ source: candidate.source, bps });
    return false;
  });
  if (agreeing.length < rules.minSources || agreeing.length === 0) {
    return {
      ok: false,
      reason: `the sources disagree: ${agreeing.length} within ${formatBps(rules.maxDeviationBps)} of the median, ${rules.minSources} needed (left out: ${outliers.map((entry) => `${entry.source} ${formatBps(entry.bps)} off`).join(", ")})`,
      outliers,
    };
  }
  // The answer holds until the first fresh price (used or left out) turns stale; prices only
  // change with a new read, which the caller watches for itself.
  return {
    ok: true,
    usd: median(agreeing.map((candidate) => candidate.usd)),
    at: Math.min(...agreeing.map((candidate) => candidate.at)),
    freshUntil: Math.min(...fresh.map((candidate) => Math.min(candidate.at, now) + rules.maxAgeMs)) + 1,
    sources: agreeing.map((candidate) => candidate.source).sort(),
    outliers,
  };
}

/** Basis points as a percentage for messages ("2.5%"). */
export function formatBps(bps: bigint): string {
  const whole = bps / 100n;
  const rest = bps % 100n;
  return rest === 0n ? `${whole}%` : `${whole}.${String(rest).padStart(2, "0").replace(/0$/, "")}%`;
}
