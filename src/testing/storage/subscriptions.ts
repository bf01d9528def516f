import { describe, expect, it } from "vitest";
import type { SubscriptionPeriodRecord, SubscriptionRecord } from "../../core/subscriptions/records";
import type { SuiteContext } from "./context";
import { LIVE, OTHER, T0, TEST } from "./fixtures";

/** A subscription of merchant m_1 in test mode, monthly from T0, in its first period. */
export const subscription = (over: Partial<SubscriptionRecord> = {}): SubscriptionRecord => ({
  id: "sub_1",
  merchantId: "m_1",
  mode: "test",
  customer: "cus_1",
  status: "active",
  amount: 1000n,
  amountCurrency: "USD",
  acceptedCoins: ["USDT"],
  interval: { unit: "month", count: 1 },
  startAt: T0,
  anchorAt: T0,
  trialEnd: null,
  gracePeriodDays: 3,
  renewBeforeDays: 3,
  payerCanCancel: false,
  cancelAtPeriodEnd: false,
  currentPeriod: 0,
  invoicedThrough: 0,
  paidThrough: -1,
  openInvoiceId: "inv_1",
  cancelledAt: null,
  cancellationReason: null,
  metadata: { plan: "pro", nested: { a: [1, 2] } },
  paymentUrlPrefix: "https://shop.example/pay/",
  payerTokenHash: "a".repeat(64),
  nextRunAt: T0,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

/** Period `index` of subscription sub_1. */
export const period = (index: number, over: Partial<SubscriptionPeriodRecord> = {}): SubscriptionPeriodRecord => ({
  subscriptionId: "sub_1",
  index,
  merchantId: "m_1",
  mode: "test",
  start: T0 + index * 1000,
  end: T0 + (index + 1) * 1000,
  invoiceId: `inv_${index}`,
  amount: 1000n,
  amountCurrency: "USD",
  paidAt: null,
  createdAt: T0,
  ...over,
});

/** SubscriptionStore: scoped reads, the token lookup, filtered pages, the due list, and one period per (subscription, index). */
export function subscriptionTests(ctx: SuiteContext): void {
  describe("SubscriptionStore: subscriptions and their periods", () => {
    it("returns null or empty lists for anything never stored", async () => {
      const storage = ctx.full();
      expect(await storage.getSubscription(TEST, "sub_x")).toBeNull();
      expect(await storage.findSubscriptionByPayerToken("b".repeat(64))).toBeNull();
      expect(await storage.listSubscriptions(TEST, {}, { limit: 10 })).toEqual([]);
      expect(await storage.listDueSubscriptions("test", T0 * 2, 10)).toEqual([]);
      expect(await storage.listSubscriptionPeriods("sub_x", 10)).toEqual([]);
      await storage.transaction(async (tx) => expect(await tx.lockSubscription("sub_x")).toBeNull());
    });

    it("keeps a subscription as given, in its scope only, and finds it by its token hash from any scope", async () => {
      const storage = ctx.full();
      await storage.transaction((tx) => tx.insertSubscription(subscription()));
      expect(await storage.getSubscription(TEST, "sub_1")).toEqual(subscription());
      expect(await storage.getSubscription(OTHER, "sub_1")).toBeNull();
      expect(await storage.getSubscription(LIVE, "sub_1")).toBeNull();
      expect(await storage.findSubscriptionByPayerToken("a".repeat(64))).toEqual(subscription());
      // Copies: changing what was read changes nothing stored.
      const read = (await storage.getSubscription(TEST, "sub_1"))!;
      read.interval.count = 9;
      (read.metadata!.nested as { a: number[] }).a.push(3);
      expect(await storage.getSubscription(TEST, "sub_1")).toEqual(subscription());
    });

    it("refuses a second subscription with the same id or token hash, and an update of one never stored", async () => {
      const storage = ctx.full();
      await storage.transaction((tx) => tx.insertSubscription(subscription()));
      await expect(storage.transaction((tx) => tx.insertSubscription(subscription({ payerTokenHash: "c".repeat(64) })))).rejects.toThrow();
      await expect(storage.transaction((tx) => tx.insertSubscription(subscription({ id: "sub_2" })))).rejects.toThrow();
      await expect(storage.transaction((tx) => tx.updateSubscription(subscription({ id: "sub_9" })))).rejects.toThrow();
      await expect(storage.transaction((tx) => tx.updateSubscriptionPeriod(period(5)))).rejects.toThrow();
      expect(await storage.listSubscriptions(TEST, {}, { limit: 10 })).toEqual([subscription()]);
    });

    it("pages newest first by (createdAt, id), filtered by status and customer", async () => {
      const storage = ctx.full();
      const rows = [
        subscription({ id: "sub_a", customer: "alice", payerTokenHash: "1".repeat(64), createdAt: T0 }),
        subscription({ id: "sub_b", customer: "bob", status: "cancelled", payerTokenHash: "2".repeat(64), createdAt: T0 + 1 }),
        subscription({ id: "sub_c", customer: "alice", payerTokenHash: "3".repeat(64), createdAt: T0 + 1 }),
        subscription({ id: "sub_d", customer: "alice", mode: "live", payerTokenHash: "4".repeat(64), createdAt: T0 + 2 }),
      ];
      await storage.transaction(async (tx) => {
        for (const row of rows) await tx.insertSubscription(row);
      });
      const ids = (list: SubscriptionRecord[]) => list.map((row) => row.id);
      expect(ids(await storage.listSubscriptions(TEST, {}, { limit: 10 }))).toEqual(["sub_c", "sub_b", "sub_a"]);
      expect(ids(await storage.listSubscriptions(TEST, {}, { limit: 2 }))).toEqual(["sub_c", "sub_b"]);
      expect(ids(await storage.listSubscriptions(TEST, {}, { limit: 2, after: "sub_b" }))).toEqual(["sub_a"]);
      expect(ids(await storage.listSubscriptions(TEST, { customer: "alice" }, { limit: 10 }))).toEqual(["sub_c", "sub_a"]);
      expect(ids(await storage.listSubscriptions(TEST, { status: "cancelled" }, { limit: 10 }))).toEqual(["sub_b"]);
      expect(ids(await storage.listSubscriptions(LIVE, {}, { limit: 10 }))).toEqual(["sub_d"]);
      expect(await storage.listSubscriptions(OTHER, {}, { limit: 10 })).toEqual([]);
    });

    it("lists the due subscriptions of a mode, not cancelled, the longest due first, at most limit", async () => {
      const storage = ctx.full();
      await storage.transaction(async (tx) => {
        await tx.insertSubscription(subscription({ id: "sub_late", nextRunAt: T0 + 5, payerTokenHash: "1".repeat(64) }));
        await tx.insertSubscription(subscription({ id: "sub_early", nextRunAt: T0 + 1, payerTokenHash: "2".repeat(64) }));
        await tx.insertSubscription(subscription({ id: "sub_future", nextRunAt: T0 + 50, payerTokenHash: "3".repeat(64) }));
        await tx.insertSubscription(subscription({ id: "sub_over", status: "cancelled", nextRunAt: T0, payerTokenHash: "4".repeat(64) }));
        await tx.insertSubscription(subscription({ id: "sub_live", mode: "live", nextRunAt: T0, payerTokenHash: "5".repeat(64) }));
      });
      expect((await storage.listDueSubscriptions("test", T0 + 10, 10)).map((row) => row.id)).toEqual(["sub_early", "sub_late"]);
      expect((await storage.listDueSubscriptions("test", T0 + 10, 1)).map((row) => row.id)).toEqual(["sub_early"]);
      expect((await storage.listDueSubscriptions("live", T0 + 10, 10)).map((row) => row.id)).toEqual(["sub_live"]);
    });

    it("stores a period once: a second insert of its (subscription, index) says false and changes nothing", async () => {
      const storage = ctx.full();
      await storage.transaction(async (tx) => {
        expect(await tx.insertSubscriptionPeriod(period(0))).toBe(true);
        expect(await tx.insertSubscriptionPeriod(period(1))).toBe(true);
        expect(await tx.insertSubscriptionPeriod(period(1, { invoiceId: "inv_other" }))).toBe(false);
      });
      expect(await storage.transaction((tx) => tx.insertSubscriptionPeriod(period(0, { invoiceId: "inv_again" })))).toBe(false);
      expect(await storage.listSubscriptionPeriods("sub_1", 10)).toEqual([period(1), period(0)]);
      expect(await storage.listSubscriptionPeriods("sub_1", 1)).toEqual([period(1)]);
      await storage.transaction((tx) => tx.updateSubscriptionPeriod(period(1, { paidAt: T0 + 7 })));
      expect(await storage.listSubscriptionPeriods("sub_1", 1)).toEqual([period(1, { paidAt: T0 + 7 })]);
    });

    it("lets exactly one of many simultaneous transactions store the same period", async () => {
      const storage = ctx.full();
      const outcomes = await Promise.all(
        Array.from({ length: Math.min(ctx.parallelism, 8) }, (_, n) =>
          storage.transaction((tx) => tx.insertSubscriptionPeriod(period(3, { invoiceId: `inv_race_${n}` }))),
        ),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      const stored = await storage.listSubscriptionPeriods("sub_1", 10);
      expect(stored).toHaveLength(1);
      expect(stored[0]!.invoiceId).toBe(`inv_race_${outcomes.indexOf(true)}`);
    });

    it("rolls a period back with its transaction", async () => {
      const storage = ctx.full();
      await expect(
        storage.transaction(async (tx) => {
          await tx.insertSubscriptionPeriod(period(0));
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect(await storage.listSubscriptionPeriods("sub_1", 10)).toEqual([]);
      expect(await storage.transaction((tx) => tx.insertSubscriptionPeriod(period(0)))).toBe(true);
    });

    it("lockSubscription holds it: a second transaction locking it waits, then sees the first one's write", async () => {
      const storage = ctx.full();
      await storage.transaction((tx) => tx.insertSubscription(subscription()));
      let release!: () => void;
      const hold = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const lockedNow = new Promise<void>((resolve) => (locked = resolve));
      const first = storage.transaction(async (tx) => {
        await tx.lockSubscription("sub_1");
        locked();
        await hold;
        await tx.updateSubscription(subscription({ status: "past_due" }));
      });
      await lockedNow;
      const second = storage.transaction(async (tx) => (await tx.lockSubscription("sub_1"))?.status);
      release();
      await first;
      expect(await second).toBe("past_due");
    });
  });
}
