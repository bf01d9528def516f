import { isIPv6 } from "node:net";
import type { RateLimit } from "../service/options";

/** What asking a limiter answers: allowed, or refused with the whole seconds until one action is allowed again. */
export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Keys a limiter keeps at most; past it, the keys that are back to a full bucket go first, then the longest idle. */
const MAX_KEYS = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per key, in this process's memory: each key may spend `limit` actions at once
 * and gets them back evenly over `windowSeconds`. Memory stays bounded (at most 10,000 keys:
 * a key whose bucket has refilled is forgotten first, as it limits nothing). State is per
 * process: behind several instances, each allows its own `limit`.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;

  constructor(
    private readonly rule: RateLimit,
    private readonly now: () => number,
  ) {
    this.refillPerMs = rule.limit / (rule.windowSeconds * 1000);
  }

  /** Whether `key` may act now, without spending anything. */
  check(key: string): RateDecision {
    const tokens = this.tokensOf(key, this.now());
    if (tokens >= 1) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / this.refillPerMs / 1000)) };
  }

  /** Spends one action of `key` (after a `check` that allowed it). */
  take(key: string): void {
    const now = this.now();
    const tokens = this.tokensOf(key, now);
    this.buckets.delete(key); // re-inserted last: the map's order is then least recently used first
    this.buckets.set(key, { tokens: Math.max(0, tokens - 1), at: now });
    if (this.buckets.size > MAX_KEYS) this.evict(now);
  }

  private tokensOf(key: string, now: number): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return this.rule.limit;
    return Math.min(this.rule.limit, bucket.tokens + Math.max(0, now - bucket.at) * this.refillPerMs);
  }

  private evict(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + Math.max(0, now - bucket.at) * this.refillPerMs >= this.rule.limit) this.buckets.delete(key);
    }
    // Still full of busy keys (a flood from many addresses): the least recently used go.
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= MAX_KEYS) break;
      this.buckets.delete(key);
    }
  }
}

/**
 * The client a request comes from, for rate limits: `req.ip` as Express gives it (so the
 * host's `trust proxy` setting decides whether X-Forwarded-For is believed), with an IPv6
 * address reduced to its /64 (one subscriber usually holds a whole /64 and could otherwise
 * rotate through it), and an IPv4-mapped IPv6 address read as the IPv4 address it is.
 */
export function clientKey(ip: string | undefined): string {
  if (!ip) return "unknown";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  return `${expandIPv6(ip).slice(0, 4).join(":")}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (zone dropped), as lowercase hex without leading zeros. */
function expandIPv6(ip: string): string[] {
  let address = ip.split("%")[0]!;
  // An embedded IPv4 tail (::1.2.3.4) is the last two groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    address = `${address.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = address.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16).toString(16));
}
