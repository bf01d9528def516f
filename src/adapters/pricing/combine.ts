/**
 * The rules that turn several sources' prices of one asset into one price, or into a reason
 * why there is none. Only fresh prices count. The price is the median of the fresh prices, and it
 * stands only when a strict majority of the sources that answered agree with it (are within the
 * allowed deviation of it), and at least the minimum number of sources: so sources that are half
 * or fewer of those answering can never make a price on their own, whatever they say. A source
 * further than the deviation is left out (and named, so it can be logged). Pure and exact:
 * prices are bigints at 18 decimals.
 */
import { formatDecimal, RATE_DECIMALS } from "../../money";

/** One source's answer for an asset, in USD at 18 decimals, with when it was observed. */
export interface Candidate {
  source: string;
  /**
   * USD per unit, scaled by 10^18; null when the source answered but its price cannot be counted
   * in USD (a USDT price while USDT/USD has no usable price): it then counts as having answered,
   * and as not agreeing.
   */
  usd: bigint | null;
  /**
   * The other USD values the same answer may stand for (a USDT price converted at each source's
   * USDT/USD, not only at the combined one): the answer agrees only when every one of them does,
   * so that sources lying about USDT/USD cannot lend their lie to an honest USDT-quoted source.
   */
  alternatives?: readonly bigint[];
  /** Observation time, epoch ms. */
  at: number;
  /** What the source said, for messages, when it is not `usd` itself ("3000 USDT"). */
  said?: string;
  /** Why `usd` is null, for messages. */
  why?: string;
}

/** Limits applied when combining. */
export interface CombineRules {
  /** Prices older than this (ms) are not used. */
  maxAgeMs: number;
  /** Fewer fresh, agreeing sources than this: no price. */
  minSources: number;
  /** A source further than this from the median, in basis points (1% = 100), does not agree. */
  maxDeviationBps: bigint;
}

/** A source left out for being too far from the median, with its distance in basis points. */
export interface Outlier {
  source: string;
  bps: bigint;
}

/** A combined price, or why there is none. */
export type Combined =
  | {
      ok: true;
      /** USD per unit, scaled by 10^18: the median of the fresh prices. */
      usd: bigint;
      /** The oldest observation among the agreeing sources. */
      at: number;
      /** Until when every fresh price stays fresh (epoch ms): the result holds until then. */
      freshUntil: number;
      /** The agreeing sources, by name, sorted. */
      sources: string[];
      /** Sources left out for deviating from the median. */
      outliers: Outlier[];
    }
  | {
      ok: false;
      reason: string;
      outliers: Outlier[];
      /** Set when the sources answered but too few agree: the case of a lie or a broken source. */
      disagreement?: true;
    };

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

/** How many of `answered` sources make a strict majority. */
export function strictMajority(answered: number): number {
  return Math.floor(answered / 2) + 1;
}

/**
 * Combines the candidates at `now`. `unavailable` lists sources that gave no price at all (down,
 * or an answer refused), so that the reason can name them.
 */
export function combine(candidates: readonly Candidate[], now: number, rules: CombineRules, unavailable: readonly string[] = []): Combined {
  const stale: string[] = [];
  const fresh: Candidate[] = [];
  for (const candidate of candidates) {
    if (candidate.usd !== null && candidate.usd <= 0n) continue;
    // A time in the future is a clock problem of the source's: it is not fresher than now.
    if (now - Math.min(candidate.at, now) > rules.maxAgeMs) stale.push(`${candidate.source} (${Math.round((now - candidate.at) / 1000)} s old)`);
    else fresh.push(candidate);
  }
  const priced = fresh.filter((candidate): candidate is Candidate & { usd: bigint } => candidate.usd !== null);
  const why = () => {
    const parts = [`${priced.length} fresh source${priced.length === 1 ? "" : "s"}, ${rules.minSources} needed`];
    // Sorted, so that the same situation always reads the same.
    if (stale.length > 0) parts.push(`stale: ${[...stale].sort().join(", ")}`);
    const down = [...unavailable, ...fresh.filter((candidate) => candidate.usd === null).map(describe)];
    if (down.length > 0) parts.push(`down: ${down.sort().join(", ")}`);
    return parts.join("; ");
  };
  if (priced.length < rules.minSources || priced.length === 0) return { ok: false, reason: why(), outliers: [] };

  const middle = median(priced.map((candidate) => candidate.usd));
  const outliers: Outlier[] = [];
  const agreeing = priced.filter((candidate) => {
    const bps = [candidate.usd, ...(candidate.alternatives ?? [])].reduce((far, value) => {
      const off = deviationBps(value, middle);
      return off > far ? off : far;
    }, 0n);
    if (bps <= rules.maxDeviationBps) return true;
    outliers.push({ source: candidate.source, bps });
    return false;
  });
  const needed = Math.max(rules.minSources, strictMajority(fresh.length));
  if (agreeing.length < needed) {
    const said = [...fresh].sort((a, b) => (a.source < b.source ? -1 : 1)).map(describe);
    return {
      ok: false,
      disagreement: true,
      reason: `the sources disagree: ${agreeing.length} of the ${fresh.length} that answered agree, ${needed} needed (within ${formatBps(rules.maxDeviationBps)} of the median ${formatDecimal(middle, RATE_DECIMALS)} USD): ${said.join(", ")}`,
      outliers,
    };
  }
  // The answer holds until the first fresh price (used or left out) turns stale; prices only
  // change with a new read, which the caller watches for itself.
  return {
    ok: true,
    usd: middle,
    at: Math.min(...agreeing.map((candidate) => candidate.at)),
    freshUntil: Math.min(...fresh.map((candidate) => Math.min(candidate.at, now) + rules.maxAgeMs)) + 1,
    sources: agreeing.map((candidate) => candidate.source).sort(),
    outliers,
  };
}

/** "kraken 3300", "binance 3000 USDT (not counted: ...)", for messages. */
function describe(candidate: Candidate): string {
  const said = candidate.said ?? (candidate.usd === null ? "no price" : formatDecimal(candidate.usd, RATE_DECIMALS));
  return `${candidate.source} ${said}${candidate.why ? ` (not counted: ${candidate.why})` : ""}`;
}

/** Basis points as a percentage for messages ("2.5%"). */
export function formatBps(bps: bigint): string {
  const whole = bps / 100n;
  const rest = bps % 100n;
  return rest === 0n ? `${whole}%` : `${whole}.${String(rest).padStart(2, "0").replace(/0$/, "")}%`;
}
