import { describe, expect, it } from "vitest";
import { clientKey, RateLimiter } from "../../src/http/rate-limit";

/** The in-process token buckets behind the payment links' limits, on a hand-moved clock. */

describe("RateLimiter", () => {
  it("allows `limit` at once, then one more per window/limit, naming the wait in whole seconds", () => {
    let now = 0;
    const limiter = new RateLimiter({ limit: 3, windowSeconds: 30 }, () => now);
    for (let i = 0; i < 3; i++) {
      expect(limiter.check("a")).toEqual({ allowed: true });
      limiter.take("a");
    }
    expect(limiter.check("a")).toEqual({ allowed: false, retryAfterSeconds: 10 });
    expect(limiter.check("b")).toEqual({ allowed: true });
    now += 9_001;
    expect(limiter.check("a")).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now += 999;
    expect(limiter.check("a")).toEqual({ allowed: true });
    // Idle time refills up to the limit, no further.
    now += 3_600_000;
    for (let i = 0; i < 3; i++) limiter.take("a");
    expect(limiter.check("a").allowed).toBe(false);
  });

  it("remembers at most 10,000 keys: past that, the least recently used busy key is forgotten first", () => {
    const limiter = new RateLimiter({ limit: 1, windowSeconds: 3600 }, () => 0);
    for (let i = 0; i < 10_000; i++) limiter.take(`k${i}`);
    expect(limiter.check("k0").allowed).toBe(false);
    limiter.take("k0"); // used again: now the most recent
    limiter.take("k10000");
    expect(limiter.check("k0").allowed).toBe(false);
    expect(limiter.check("k1").allowed).toBe(true); // the least recently used went
    expect(limiter.check("k2").allowed).toBe(false);
  });
});

describe("clientKey", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["2001:db8:1:2::1", "2001:db8:1:2::/64"],
    ["2001:0DB8:0001:0002:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    [undefined, "unknown"],
  ])("counts %s as %s", (ip, key) => {
    expect(clientKey(ip)).toBe(key);
  });
});
