import { describe, expect, it } from "vitest";
import type { WebhookDedupeStore } from "../../src/webhooks/dedupe-store";

/**
 * The contract of WebhookDedupeStore, runnable against any implementation: call it from a test
 * file with a factory that returns a fresh, empty store. Leases are assumed to last longer than
 * the suite (a few ms per case); lease and retention expiry are the implementation's own tests.
 */
export function describeDedupeStoreConformance(name: string, makeStore: () => WebhookDedupeStore | Promise<WebhookDedupeStore>): void {
  describe(`${name} (WebhookDedupeStore contract)`, () => {
    const claimed = async (store: WebhookDedupeStore, id: string): Promise<string> => {
      const claim = await store.claim(id);
      if (claim.status !== "claimed") throw new Error(`expected to claim ${id}, got ${claim.status}`);
      expect(typeof claim.token).toBe("string");
      return claim.token;
    };

    it("claims an id it has never seen", async () => {
      const store = await makeStore();
      expect((await store.claim("msg_a")).status).toBe("claimed");
    });

    it("answers in_progress to a second claim while the first holds", async () => {
      const store = await makeStore();
      await claimed(store, "msg_a");
      expect(await store.claim("msg_a")).toEqual({ status: "in_progress" });
    });

    it("answers done once the claim was completed", async () => {
      const store = await makeStore();
      await store.complete("msg_a", await claimed(store, "msg_a"));
      expect(await store.claim("msg_a")).toEqual({ status: "done" });
    });

    it("lets a released id be claimed again, with a new token", async () => {
      const store = await makeStore();
      const first = await claimed(store, "msg_a");
      await store.release("msg_a", first);
      const second = await claimed(store, "msg_a");
      expect(second).not.toBe(first);
    });

    it("ignores a release with a token that does not hold the claim", async () => {
      const store = await makeStore();
      await claimed(store, "msg_a");
      await store.release("msg_a", "not-the-token");
      expect(await store.claim("msg_a")).toEqual({ status: "in_progress" });
    });

    it("ignores a complete with a token that does not hold the claim", async () => {
      const store = await makeStore();
      await claimed(store, "msg_a");
      await store.complete("msg_a", "not-the-token");
      expect(await store.claim("msg_a")).toEqual({ status: "in_progress" });
    });

    it("does not undo a completion with a late release", async () => {
      const store = await makeStore();
      const token = await claimed(store, "msg_a");
      await store.complete("msg_a", token);
      await store.release("msg_a", token);
      expect(await store.claim("msg_a")).toEqual({ status: "done" });
    });

    it("keeps ids apart", async () => {
      const store = await makeStore();
      await store.complete("msg_a", await claimed(store, "msg_a"));
      expect((await store.claim("msg_b")).status).toBe("claimed");
    });

    it("grants exactly one of many concurrent claims of one id", async () => {
      const store = await makeStore();
      const claims = await Promise.all(Array.from({ length: 25 }, () => store.claim("msg_race")));
      expect(claims.filter((claim) => claim.status === "claimed")).toHaveLength(1);
      expect(claims.filter((claim) => claim.status === "in_progress")).toHaveLength(24);
    });
  });
}
