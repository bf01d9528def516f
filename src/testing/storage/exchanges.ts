import { describe, expect, it } from "vitest";
import type { SuiteContext } from "./context";
import { type FreshnessCase, freshnessTests } from "./freshness";
import { exchange, ids, LIVE, OTHER, seed, T0, TEST } from "./fixtures";
import { uniqueTests, walk } from "./shared";

const FRESHNESS: FreshnessCase[] = [
  {
    read: "getExchange",
    write: "insertExchange of an id read as missing",
    look: (r) => r.getExchange(TEST, "ex_2"),
    change: (tx) => tx.insertExchange(exchange({ id: "ex_2", createdAt: T0 + 1 })),
    after: exchange({ id: "ex_2", createdAt: T0 + 1 }),
  },
  {
    read: "listExchanges",
    write: "insertExchange",
    look: async (r) => ids(await r.listExchanges(TEST, { limit: 10 })),
    change: (tx) => tx.insertExchange(exchange({ id: "ex_2", createdAt: T0 + 1 })),
    after: ["ex_2", "ex_1"],
  },
];

/** ExchangeStore: conversions between balances, scoped, newest-first pages. */
export function exchangeTests(ctx: SuiteContext): void {
  describe("ExchangeStore: exchanges", () => {
    it("returns null, empty lists or 0n for anything never stored", async () => {
      const storage = ctx.storage();
      expect(await storage.getExchange(TEST, "ex_x")).toBeNull();
      expect(await storage.listExchanges(TEST, { limit: 10 })).toEqual([]);
    });

    it("answers another merchant's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getExchange(OTHER, "ex_1")).toBeNull();
      expect(await storage.listExchanges(OTHER, { limit: 10 })).toEqual([]);
    });

    it("answers the other mode's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getExchange(LIVE, "ex_1")).toBeNull();
      expect(await storage.listExchanges(LIVE, { limit: 10 })).toEqual([]);
    });

    it("returns records as they were stored, bigints, nulls and nested data included", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getExchange(TEST, "ex_1")).toEqual(exchange());
    });

    it("keeps amounts exact far beyond 2^53 and 2^64, and every optional field either way", async () => {
      const storage = ctx.storage();
      const huge = 10n ** 40n + 7n; // 134 bits: no double or int64 survives this
      await storage.transaction(async (tx) => {
        await tx.insertExchange(exchange({ amount: huge, toAmount: huge * 3n, invoiceId: "inv_f" }));
      });
      expect((await storage.getExchange(TEST, "ex_1"))?.toAmount).toBe(huge * 3n);
    });

    uniqueTests(ctx, [["exchange id", (tx) => tx.insertExchange(exchange({ amount: 1n }))]]);

    it("lists exchanges newest first, one page at a time", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        for (let i = 0; i < 5; i++) await tx.insertExchange(exchange({ id: `ex_${i}`, createdAt: T0 + (i % 3) }));
        await tx.insertExchange(exchange({ id: "ex_live", mode: "live" }));
      });
      const expected = ["ex_2", "ex_4", "ex_1", "ex_3", "ex_0"];
      expect((await storage.listExchanges(TEST, { limit: 10 })).map((e) => e.id)).toEqual(expected);
      expect(await walk((page) => storage.listExchanges(TEST, page), 2)).toEqual(expected);
    });

    freshnessTests(ctx, FRESHNESS);
  });
}
