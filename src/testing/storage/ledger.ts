import { describe, expect, it } from "vitest";
import type { DepositRecord } from "../../core/deposits/records";
import type { SuiteContext } from "./context";
import { type FreshnessCase, freshnessTests } from "./freshness";
import { deposit, entry, ids, invoice, LIVE, OTHER, seed, T0, TEST } from "./fixtures";

const FRESHNESS: FreshnessCase[] = [
  {
    read: "getBalance",
    write: "postLedgerEntries",
    look: (r) => r.getBalance(TEST, "BTC"),
    change: (tx) => tx.postLedgerEntries([entry({ id: "le_2", amount: 5n, causeKey: "deposit:dep_2", createdAt: T0 + 1 })]),
    after: 105n,
  },
  {
    read: "listBalances",
    write: "postLedgerEntries",
    look: async (r) => (await r.listBalances(TEST)).map((balance) => [balance.asset, balance.amount]),
    change: (tx) => tx.postLedgerEntries([entry({ id: "le_2", amount: -30n, kind: "payout", causeKey: "payout:po_2", createdAt: T0 + 1 })]),
    after: [["BTC", 70n]],
  },
  {
    read: "pageLedgerEntries",
    write: "postLedgerEntries",
    look: async (r) => ids(await r.pageLedgerEntries(TEST, { limit: 5 })),
    change: (tx) => tx.postLedgerEntries([entry({ id: "le_2", amount: 5n, causeKey: "deposit:dep_2", createdAt: T0 + 1 })]),
    after: ["le_2", "le_1"],
  },
  {
    read: "listLedgerEntries",
    write: "postLedgerEntries",
    look: async (r) => ids(await r.listLedgerEntries(TEST)),
    change: (tx) => tx.postLedgerEntries([entry({ id: "le_2", amount: 5n, causeKey: "deposit:dep_2", createdAt: T0 + 1 })]),
    after: ["le_1", "le_2"],
  },
];

/**
 * LedgerStore: postLedgerEntries all or nothing, exactly once per cause, never below zero (but
 * for a reversal posted with `overdraw`), under concurrency too; balances and entries per scope.
 */
export function ledgerTests(ctx: SuiteContext): void {
  describe("LedgerStore: ledger entries and balances", () => {
    it("returns null, empty lists or 0n for anything never stored", async () => {
      const storage = ctx.storage();
      expect(await storage.getBalance(TEST, "BTC")).toBe(0n);
      expect(await storage.listBalances(TEST)).toEqual([]);
      expect(await storage.listLedgerEntries(TEST)).toEqual([]);
    });

    it("answers another merchant's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getBalance(OTHER, "BTC")).toBe(0n);
      expect(await storage.listBalances(OTHER)).toEqual([]);
      expect(await storage.listLedgerEntries(OTHER)).toEqual([]);
    });

    it("answers the other mode's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getBalance(LIVE, "BTC")).toBe(0n);
      expect(await storage.listLedgerEntries(LIVE)).toEqual([]);
    });

    it("keeps amounts exact far beyond 2^53 and 2^64, and every optional field either way", async () => {
      const storage = ctx.storage();
      const huge = 10n ** 40n + 7n; // 134 bits: no double or int64 survives this
      await storage.transaction(async (tx) => {
        await tx.postLedgerEntries([
          { id: "le_h", merchantId: "m_1", mode: "test", asset: "BTC", amount: huge, kind: "deposit", causeKey: "huge", createdAt: T0 },
        ]);
      });
      expect(await storage.getBalance(TEST, "BTC")).toBe(huge);
      expect((await storage.listLedgerEntries(TEST))[0]?.amount).toBe(huge);
    });

    it("lists balances by asset symbol, and ledger entries in the order posted", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.postLedgerEntries([entry({ id: "e1", causeKey: "c1", asset: "USDT", createdAt: T0 + 9 })]);
        await tx.postLedgerEntries([entry({ id: "e2", causeKey: "c2", asset: "BTC", createdAt: T0 + 1 })]);
        await tx.postLedgerEntries([entry({ id: "e3", causeKey: "c3", asset: "ETH", createdAt: T0 + 5 })]);
        await tx.postLedgerEntries([entry({ id: "e4", causeKey: "c4", asset: "BTC", createdAt: T0 + 3 })]);
      });
      expect((await storage.listBalances(TEST)).map((b) => [b.asset, b.amount])).toEqual([
        ["BTC", 200n],
        ["ETH", 100n],
        ["USDT", 100n],
      ]);
      // Stored order, not clock order: the ledger is append-only.
      expect((await storage.listLedgerEntries(TEST)).map((e) => e.id)).toEqual(["e1", "e2", "e3", "e4"]);
      expect((await storage.listLedgerEntries(TEST, "BTC")).map((e) => e.id)).toEqual(["e2", "e4"]);
    });

    it("pages the ledger the last posted first, before an entry, of one asset, and within its scope only", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        for (let n = 1; n <= 7; n++) {
          // Clock order differs from posting order: pages follow the posting order.
          await tx.postLedgerEntries([entry({ id: `p${n}`, causeKey: `p${n}`, asset: n % 2 ? "BTC" : "ETH", createdAt: T0 + ((n * 5) % 7) })]);
        }
        await tx.postLedgerEntries([entry({ id: "x1", causeKey: "x1", merchantId: "m_2" }), entry({ id: "x2", causeKey: "x2", mode: "live" })]);
      });
      const page = async (query: Parameters<typeof storage.pageLedgerEntries>[1], scope = TEST) => ids(await storage.pageLedgerEntries(scope, query));
      expect(await page({ limit: 3 })).toEqual(["p7", "p6", "p5"]);
      expect(await page({ limit: 3, before: "p5" })).toEqual(["p4", "p3", "p2"]);
      expect(await page({ limit: 3, before: "p2" })).toEqual(["p1"]);
      expect(await page({ limit: 3, before: "p1" })).toEqual([]);
      expect(await page({ limit: 2, asset: "BTC" })).toEqual(["p7", "p5"]);
      expect(await page({ limit: 5, asset: "BTC", before: "p5" })).toEqual(["p3", "p1"]);
      expect(await page({ limit: 5, asset: "ETH", before: "p7" })).toEqual(["p6", "p4", "p2"]);
      // Another scope's entry id, or an unknown one, gives an empty page, never that scope's rows.
      expect(await page({ limit: 5, before: "x1" })).toEqual([]);
      expect(await page({ limit: 5, before: "x2" })).toEqual([]);
      expect(await page({ limit: 5, before: "nope" })).toEqual([]);
      expect(await page({ limit: 5 }, OTHER)).toEqual(["x1"]);
      expect(await page({ limit: 5 }, LIVE)).toEqual(["x2"]);
      expect((await storage.pageLedgerEntries(TEST, { limit: 1 }))[0]).toEqual((await storage.listLedgerEntries(TEST)).at(-1));
    });

    it("posts entries and keeps one balance per merchant, mode and asset", async () => {
      const storage = ctx.storage();
      const result = await storage.transaction((tx) =>
        tx.postLedgerEntries([
          entry({ id: "a", causeKey: "a", amount: 100n, createdAt: T0 + 5 }),
          entry({ id: "b", causeKey: "b", amount: 50n, createdAt: T0 + 9 }),
          entry({ id: "c", causeKey: "c", amount: 70n, mode: "live" }),
          entry({ id: "d", causeKey: "d", amount: 30n, merchantId: "m_2" }),
        ]),
      );
      expect(result).toEqual({ status: "posted" });
      expect(await storage.listBalances(TEST)).toEqual([{ merchantId: "m_1", mode: "test", asset: "BTC", amount: 150n, updatedAt: T0 + 9 }]);
      expect(await storage.getBalance({ merchantId: "m_1", mode: "live" }, "BTC")).toBe(70n);
      expect(await storage.getBalance({ merchantId: "m_2", mode: "test" }, "BTC")).toBe(30n);
      expect((await storage.listLedgerEntries(TEST)).map((e) => e.id)).toEqual(["a", "b"]);
    });

    it("treats an empty batch as posted and changes nothing", async () => {
      const storage = ctx.storage();
      expect(await storage.transaction((tx) => tx.postLedgerEntries([]))).toEqual({ status: "posted" });
      expect(await storage.listBalances(TEST)).toEqual([]);
    });

    it("writes nothing when any cause was posted before", async () => {
      const storage = ctx.storage();
      await seed(storage);
      const result = await storage.transaction((tx) => tx.postLedgerEntries([entry({ id: "new", causeKey: "fresh", amount: 5n }), entry({ id: "again" })]));
      expect(result).toEqual({ status: "duplicate" });
      expect(await storage.getBalance(TEST, "BTC")).toBe(100n);
      expect((await storage.listLedgerEntries(TEST)).map((e) => e.causeKey)).toEqual(["deposit:dep_1"]);
    });

    it("finds a cause posted earlier in the same transaction", async () => {
      const storage = ctx.storage();
      const results = await storage.transaction(async (tx) => [
        await tx.postLedgerEntries([entry({ id: "x1", causeKey: "x" })]),
        await tx.postLedgerEntries([entry({ id: "x2", causeKey: "x" })]),
      ]);
      expect(results).toEqual([{ status: "posted" }, { status: "duplicate" }]);
      expect(await storage.getBalance(TEST, "BTC")).toBe(100n);
    });

    it("writes nothing when any balance would go below zero, and names that asset", async () => {
      const storage = ctx.storage();
      await seed(storage);
      const result = await storage.transaction((tx) =>
        tx.postLedgerEntries([
          entry({ id: "in", causeKey: "in", asset: "USDT", amount: 1000n }),
          entry({ id: "out", causeKey: "out", asset: "BTC", amount: -101n, kind: "payout" }),
        ]),
      );
      expect(result).toEqual({ status: "insufficient", asset: "BTC" });
      expect(await storage.getBalance(TEST, "BTC")).toBe(100n);
      expect(await storage.getBalance(TEST, "USDT")).toBe(0n);
      expect(await storage.listBalances(TEST)).toHaveLength(1);
      expect(await storage.listLedgerEntries(TEST)).toHaveLength(1);
      // The refused batch left the transaction usable and its cause keys free.
      expect(
        await storage.transaction((tx) => tx.postLedgerEntries([entry({ id: "out2", causeKey: "out", asset: "BTC", amount: -100n, kind: "payout" })])),
      ).toEqual({ status: "posted" });
      expect(await storage.getBalance(TEST, "BTC")).toBe(0n);
    });

    it("refuses a debit of an asset never held", async () => {
      const storage = ctx.storage();
      expect(await storage.transaction((tx) => tx.postLedgerEntries([entry({ asset: "ETH", amount: -1n, kind: "payout" })]))).toEqual({
        status: "insufficient",
        asset: "ETH",
      });
      expect(await storage.listBalances(TEST)).toEqual([]);
    });

    it("judges a batch by the balance it ends with, and allows reaching exactly zero", async () => {
      const storage = ctx.storage();
      await seed(storage);
      const result = await storage.transaction((tx) =>
        tx.postLedgerEntries([
          entry({ id: "o", causeKey: "out", amount: -150n, kind: "exchange_out" }),
          entry({ id: "i", causeKey: "in", amount: 50n, kind: "exchange_in" }),
        ]),
      );
      expect(result).toEqual({ status: "posted" });
      expect(await storage.getBalance(TEST, "BTC")).toBe(0n);
      expect(await storage.listBalances(TEST)).toEqual([{ merchantId: "m_1", mode: "test", asset: "BTC", amount: 0n, updatedAt: T0 }]);
    });

    it("moves several balances at once, as an exchange does", async () => {
      const storage = ctx.storage();
      await seed(storage);
      const result = await storage.transaction((tx) =>
        tx.postLedgerEntries([
          entry({ id: "o", causeKey: "ex:out", amount: -60n, kind: "exchange_out", createdAt: T0 + 1 }),
          entry({ id: "i", causeKey: "ex:in", asset: "USDT", amount: 3_900_000n, kind: "exchange_in", createdAt: T0 + 1 }),
        ]),
      );
      expect(result).toEqual({ status: "posted" });
      expect((await storage.listBalances(TEST)).map((b) => [b.asset, b.amount, b.updatedAt])).toEqual([
        ["BTC", 40n, T0 + 1],
        ["USDT", 3_900_000n, T0 + 1],
      ]);
    });

    it("refuses a batch that repeats a cause key", async () => {
      const storage = ctx.storage();
      await expect(storage.transaction((tx) => tx.postLedgerEntries([entry(), entry({ id: "le_2" })]))).rejects.toThrow();
      expect(await storage.listLedgerEntries(TEST)).toEqual([]);
    });

    describe("under concurrency", () => {
      it("never overdraws: N parallel debits against a balance covering k of them post exactly k", async () => {
        const storage = ctx.storage();
        const n = ctx.parallelism;
        const k = Math.floor(n / 3);
        await storage.transaction((tx) => tx.postLedgerEntries([entry({ causeKey: "funding", amount: 10n * BigInt(k) })]));
        const results = await Promise.all(
          Array.from({ length: n }, (_, i) =>
            storage.transaction(async (tx) => {
              const available = await tx.getBalance(TEST, "BTC");
              await new Promise((resolve) => setImmediate(resolve)); // yield mid-transaction, as real work would
              const result = await tx.postLedgerEntries([entry({ id: `d${i}`, causeKey: `debit:${i}`, amount: -10n, kind: "payout" })]);
              const after = await tx.getBalance(TEST, "BTC");
              expect(available).toBeGreaterThanOrEqual(0n);
              expect(after).toBeGreaterThanOrEqual(0n);
              return result.status;
            }),
          ),
        );
        expect(results.filter((status) => status === "posted")).toHaveLength(k);
        expect(results.filter((status) => status === "insufficient")).toHaveLength(n - k);
        expect(await storage.getBalance(TEST, "BTC")).toBe(0n);
        expect(await storage.listLedgerEntries(TEST)).toHaveLength(k + 1);
      });

      it("adds up parallel credits to one new balance without losing any", async () => {
        const storage = ctx.storage();
        const n = ctx.parallelism;
        await Promise.all(
          Array.from({ length: n }, (_, i) => storage.transaction((tx) => tx.postLedgerEntries([entry({ id: `c${i}`, causeKey: `credit:${i}`, amount: 3n })]))),
        );
        expect(await storage.getBalance(TEST, "BTC")).toBe(3n * BigInt(n));
        expect(await storage.listBalances(TEST)).toHaveLength(1);
      });

      it("posts a cause once when it is posted from many transactions at once", async () => {
        const storage = ctx.storage();
        const n = ctx.parallelism;
        const results = await Promise.all(
          Array.from({ length: n }, (_, i) =>
            storage.transaction((tx) => tx.postLedgerEntries([entry({ id: `dup${i}`, causeKey: "deposit:dep_9", amount: 42n })])),
          ),
        );
        expect(results.filter((result) => result.status === "posted")).toHaveLength(1);
        expect(results.filter((result) => result.status === "duplicate")).toHaveLength(n - 1);
        expect(await storage.getBalance(TEST, "BTC")).toBe(42n);
      });

      it("credits a deposit once when the same chain transfer is reported twice in parallel", async () => {
        const storage = ctx.storage();
        await storage.transaction((tx) => tx.insertInvoice(invoice()));
        // What core does with each report: lock the invoice, look the transfer up by its chain
        // identity, record it if new and credit it under a cause key of its own.
        const report = (worker: number) =>
          storage.transaction(async (tx) => {
            await tx.lockInvoice("inv_1");
            const existing = await tx.lockDeposit("test", "bitcoin", "tx_twice", 0);
            if (existing) return "seen";
            const recorded: DepositRecord = deposit({ id: `dep_w${worker}`, txHash: "tx_twice", status: "CONFIRMED", creditedAt: T0, amount: 1000n });
            await tx.insertDeposit(recorded);
            const posted = await tx.postLedgerEntries([entry({ id: `le_w${worker}`, causeKey: `deposit:${recorded.id}`, amount: 995n })]);
            return posted.status;
          });
        // The same without the invoice lock: then only the unique chain identity stands between
        // the two reports, and the loser must fail (or find the winner's row), never credit again.
        const unguarded = (worker: number) =>
          storage.transaction(async (tx) => {
            const existing = await tx.lockDeposit("test", "bitcoin", "tx_race", 0);
            if (existing) return "seen";
            await new Promise((resolve) => setImmediate(resolve));
            const recorded: DepositRecord = deposit({ id: `dep_u${worker}`, txHash: "tx_race", status: "CONFIRMED", creditedAt: T0, amount: 1000n });
            await tx.postLedgerEntries([entry({ id: `le_u${worker}`, causeKey: `deposit:${recorded.id}`, asset: "USDT", amount: 995n })]);
            await tx.insertDeposit(recorded);
            return "posted";
          });
        const guarded = await Promise.all([report(1), report(2)]);
        expect(guarded.sort()).toEqual(["posted", "seen"]);
        const raced = await Promise.allSettled([unguarded(1), unguarded(2)]);
        expect(raced.filter((outcome) => outcome.status === "fulfilled" && outcome.value === "posted")).toHaveLength(1);
        expect(await storage.getBalance(TEST, "BTC")).toBe(995n);
        expect(await storage.getBalance(TEST, "USDT")).toBe(995n);
        expect(await storage.listLedgerEntries(TEST)).toHaveLength(2);
        expect((await storage.listDepositsForInvoice("inv_1")).map((d) => d.txHash)).toEqual(["tx_twice", "tx_race"]);
      });

      it("posts a reversal with overdraw even below zero; then refuses every debit and posts every credit until the balance is back", async () => {
        const storage = ctx.storage();
        await seed(storage); // BTC 100
        await storage.transaction((tx) => tx.postLedgerEntries([entry({ id: "po", causeKey: "payout:po", amount: -80n, kind: "payout" })]));
        const reversal = entry({ id: "rev", causeKey: "deposit:dep_1:reversal:1", amount: -100n, kind: "deposit_reversal", createdAt: T0 + 7 });
        expect(await storage.transaction((tx) => tx.postLedgerEntries([reversal], { overdraw: true }))).toEqual({ status: "posted" });
        expect(await storage.getBalance(TEST, "BTC")).toBe(-80n);
        expect(await storage.listBalances(TEST)).toEqual([{ merchantId: "m_1", mode: "test", asset: "BTC", amount: -80n, updatedAt: T0 + 7 }]);
        // The same cause never posts twice, overdraw or not.
        expect(await storage.transaction((tx) => tx.postLedgerEntries([{ ...reversal, id: "rev2" }], { overdraw: true }))).toEqual({ status: "duplicate" });
        // Without overdraw, any debit of a balance below zero is refused, however small.
        expect(await storage.transaction((tx) => tx.postLedgerEntries([entry({ id: "d1", causeKey: "d1", amount: -1n, kind: "payout" })]))).toEqual({
          status: "insufficient",
          asset: "BTC",
        });
        // A credit that leaves it still below zero is posted.
        expect(await storage.transaction((tx) => tx.postLedgerEntries([entry({ id: "c1", causeKey: "c1", amount: 30n })]))).toEqual({ status: "posted" });
        expect(await storage.getBalance(TEST, "BTC")).toBe(-50n);
        expect(await storage.transaction((tx) => tx.postLedgerEntries([entry({ id: "c2", causeKey: "c2", amount: 60n })]))).toEqual({ status: "posted" });
        expect(await storage.getBalance(TEST, "BTC")).toBe(10n);
        expect(await storage.transaction((tx) => tx.postLedgerEntries([entry({ id: "d2", causeKey: "d2", amount: -10n, kind: "payout" })]))).toEqual({
          status: "posted",
        });
        const entries = await storage.listLedgerEntries(TEST, "BTC");
        expect(entries.reduce((sum, e) => sum + e.amount, 0n)).toBe(0n);
        expect(entries.find((e) => e.id === "rev")?.kind).toBe("deposit_reversal");
      });
    });

    freshnessTests(ctx, FRESHNESS);
  });
}
