import { describe, expect, it } from "vitest";
import type { SuiteContext } from "./context";
import { type FreshnessCase, freshnessTests } from "./freshness";
import { LIVE, OTHER, paymentLink, seed, T0, TEST } from "./fixtures";
import { lockTests, missingUpdateTests, uniqueTests, walk } from "./shared";

const deactivated = paymentLink({ active: false, updatedAt: T0 + 1 });

const FRESHNESS: FreshnessCase[] = [
  {
    read: "getPaymentLink",
    write: "updatePaymentLink",
    look: (r) => r.getPaymentLink(TEST, "pl_1"),
    change: (tx) => tx.updatePaymentLink(deactivated),
    after: deactivated,
  },
  {
    read: "findPaymentLink",
    write: "updatePaymentLink",
    look: (r) => r.findPaymentLink("pl_1"),
    change: (tx) => tx.updatePaymentLink(deactivated),
    after: deactivated,
  },
  {
    read: "listPaymentLinks",
    write: "updatePaymentLink",
    look: (r) => r.listPaymentLinks(TEST, { limit: 10 }),
    change: (tx) => tx.updatePaymentLink(deactivated),
    after: [deactivated],
  },
];

/** PaymentLinkStore: scoped and unscoped reads, newest-first pages, copies, locks. */
export function paymentLinkTests(ctx: SuiteContext): void {
  describe("PaymentLinkStore: payment links", () => {
    it("returns null, empty lists or 0n for anything never stored", async () => {
      const storage = ctx.full();
      expect(await storage.getPaymentLink(TEST, "pl_x")).toBeNull();
      expect(await storage.findPaymentLink("pl_x")).toBeNull();
      expect(await storage.listPaymentLinks(TEST, { limit: 10 })).toEqual([]);
      await storage.transaction(async (tx) => {
        expect(await tx.lockPaymentLink("pl_x")).toBeNull();
      });
    });

    it("answers another merchant's records as not found", async () => {
      const storage = ctx.full();
      await seed(storage);
      expect(await storage.getPaymentLink(OTHER, "pl_1")).toBeNull();
      expect(await storage.listPaymentLinks(OTHER, { limit: 10 })).toEqual([]);
    });

    it("answers the other mode's records as not found", async () => {
      const storage = ctx.full();
      await seed(storage);
      expect(await storage.getPaymentLink(LIVE, "pl_1")).toBeNull();
      expect(await storage.listPaymentLinks(LIVE, { limit: 10 })).toEqual([]);
    });

    it("lets lockPaymentLink and findPaymentLink reach a link whatever its merchant", async () => {
      const storage = ctx.full();
      await seed(storage);
      expect((await storage.findPaymentLink("pl_1"))?.merchantId).toBe("m_1");
      await storage.transaction(async (tx) => {
        expect((await tx.lockPaymentLink("pl_1"))?.id).toBe("pl_1");
      });
    });

    it("returns records as they were stored, bigints, nulls and nested data included", async () => {
      const storage = ctx.full();
      await seed(storage);
      expect(await storage.getPaymentLink(TEST, "pl_1")).toEqual(paymentLink());
    });

    it("keeps amounts exact far beyond 2^53 and 2^64, and every optional field either way", async () => {
      const storage = ctx.full();
      const huge = 10n ** 40n + 7n; // 134 bits: no double or int64 survives this
      await storage.transaction(async (tx) => {
        await tx.insertPaymentLink(paymentLink({ amount: huge, acceptedCoins: null, metadata: null, returnUrl: null, settleCurrency: null, active: false }));
      });
      expect((await storage.findPaymentLink("pl_1"))?.amount).toBe(huge);
      expect((await storage.findPaymentLink("pl_1"))?.acceptedCoins).toBeNull();
    });

    it("stores a copy: mutating the record passed in changes nothing stored", async () => {
      const storage = ctx.full();
      const link = paymentLink();
      await storage.transaction((tx) => tx.insertPaymentLink(link));
      link.acceptedCoins?.push("ETH");
      expect(await storage.findPaymentLink("pl_1")).toEqual(paymentLink());
    });

    it("returns a copy: mutating a record read back changes nothing stored", async () => {
      const storage = ctx.full();
      await seed(storage);
      const link = await storage.findPaymentLink("pl_1");
      if (link?.metadata) link.metadata.sku = "changed";
      expect(await storage.findPaymentLink("pl_1")).toEqual(paymentLink());
    });

    uniqueTests(ctx, [["payment link id", (tx) => tx.insertPaymentLink(paymentLink({ amount: 1n }))]]);

    missingUpdateTests(ctx, [["payment link", (tx) => tx.updatePaymentLink(paymentLink())]]);

    it("replaces a record on update and keeps every lookup pointing at it", async () => {
      const storage = ctx.full();
      await seed(storage);
      await storage.transaction((tx) => tx.updatePaymentLink(paymentLink({ active: false, updatedAt: T0 + 2 })));
      expect((await storage.findPaymentLink("pl_1"))?.active).toBe(false);
    });

    it("keeps payment links: scoped get, find by id alone, newest-first pages, lock and update", async () => {
      const storage = ctx.full();
      await storage.transaction(async (tx) => {
        await tx.insertPaymentLink(paymentLink({ id: "pl_a", createdAt: T0 + 1 }));
        await tx.insertPaymentLink(paymentLink({ id: "pl_b", createdAt: T0 + 2 }));
        await tx.insertPaymentLink(paymentLink({ id: "pl_c", createdAt: T0 + 3 }));
        await tx.insertPaymentLink(paymentLink({ id: "pl_other", merchantId: "m_2" }));
      });
      expect((await storage.getPaymentLink(TEST, "pl_a"))?.id).toBe("pl_a");
      expect(await storage.getPaymentLink(TEST, "pl_other")).toBeNull();
      expect((await storage.findPaymentLink("pl_other"))?.merchantId).toBe("m_2");
      expect(await walk((page) => storage.listPaymentLinks(TEST, page), 2)).toEqual(["pl_c", "pl_b", "pl_a"]);
      await storage.transaction(async (tx) => {
        const locked = await tx.lockPaymentLink("pl_b");
        await tx.updatePaymentLink({ ...locked!, active: false, updatedAt: T0 + 9 });
      });
      expect(await storage.findPaymentLink("pl_b")).toEqual(paymentLink({ id: "pl_b", createdAt: T0 + 2, active: false, updatedAt: T0 + 9 }));
    });

    lockTests(ctx, [
      [
        "lockPaymentLink",
        (tx) => tx.lockPaymentLink("pl_1"),
        (tx) => tx.updatePaymentLink(paymentLink({ active: false })),
        async (tx) => (await tx.lockPaymentLink("pl_1"))?.active,
      ],
    ]);

    freshnessTests(ctx, FRESHNESS);
  });
}
