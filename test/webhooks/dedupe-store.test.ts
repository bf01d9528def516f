import { describe, expect, it } from "vitest";
import { memoryDedupeStore } from "../../src/webhooks/dedupe-store";
import { describeDedupeStoreConformance } from "./dedupe-store-conformance";
import { remoteLike } from "./fixtures";

describeDedupeStoreConformance("memoryDedupeStore", () => memoryDedupeStore());
describeDedupeStoreConformance("an async store with network-like delays", () => remoteLike(memoryDedupeStore()));

describe("memoryDedupeStore", () => {
  const clock = () => {
    let ms = 1_000_000;
    return { now: () => ms, advance: (by: number) => void (ms += by) };
  };

  it("forgets a done id after ttlMs, so a much later delivery runs again", () => {
    const time = clock();
    const store = memoryDedupeStore({ ttlMs: 1000, now: time.now });
    const claim = store.claim("msg_a");
    if (claim.status !== "claimed") throw new Error("not claimed");
    store.complete("msg_a", claim.token);
    time.advance(999);
    expect(store.claim("msg_a")).toEqual({ status: "done" });
    time.advance(1);
    expect(store.claim("msg_a")).toMatchObject({ status: "claimed" });
  });

  it("lets another delivery take over a claim whose lease ran out (a crashed or hung handler)", () => {
    const time = clock();
    const store = memoryDedupeStore({ leaseMs: 500, now: time.now });
    const first = store.claim("msg_a");
    time.advance(499);
    expect(store.claim("msg_a")).toEqual({ status: "in_progress" });
    time.advance(1);
    const second = store.claim("msg_a");
    expect(second.status).toBe("claimed");
    if (first.status !== "claimed" || second.status !== "claimed") throw new Error("not claimed");
    // The first holder's late release must not free the id under the second one.
    store.release("msg_a", first.token);
    expect(store.claim("msg_a")).toEqual({ status: "in_progress" });
  });

  it("records a completion whose lease lapsed when nobody took the id over", () => {
    const time = clock();
    const store = memoryDedupeStore({ leaseMs: 500, now: time.now });
    const claim = store.claim("msg_a");
    if (claim.status !== "claimed") throw new Error("not claimed");
    time.advance(10_000);
    store.complete("msg_a", claim.token);
    expect(store.claim("msg_a")).toEqual({ status: "done" });
  });

  it("keeps memory bounded: past maxEntries the oldest ids go first", () => {
    const store = memoryDedupeStore({ maxEntries: 100 });
    for (let i = 0; i < 1000; i++) {
      const claim = store.claim(`msg_${i}`);
      if (claim.status === "claimed") store.complete(`msg_${i}`, claim.token);
    }
    expect(store.size).toBe(100);
    expect(store.claim("msg_999")).toEqual({ status: "done" });
    expect(store.claim("msg_0").status).toBe("claimed");
  });

  it("sweeps expired records as it goes, so size follows the traffic of the last ttlMs", () => {
    const time = clock();
    const store = memoryDedupeStore({ ttlMs: 1000, now: time.now });
    for (let i = 0; i < 50; i++) {
      const claim = store.claim(`old_${i}`);
      if (claim.status === "claimed") store.complete(`old_${i}`, claim.token);
    }
    time.advance(1000);
    store.claim("new");
    expect(store.size).toBe(1);
  });

  it.each([{ ttlMs: 0 }, { leaseMs: -1 }, { maxEntries: Number.NaN }, { ttlMs: Number.POSITIVE_INFINITY }])("refuses %j at creation", (options) => {
    expect(() => memoryDedupeStore(options)).toThrow(TypeError);
  });
});
