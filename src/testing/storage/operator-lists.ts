import { describe, expect, it } from "vitest";
import type { SuiteContext } from "./context";
import { type FreshnessCase, freshnessTests } from "./freshness";
import { delivery, ids, merchant, seed, T0 } from "./fixtures";
import { walk } from "./shared";

const FRESHNESS: FreshnessCase[] = [
  {
    read: "listMerchants",
    write: "insertMerchant",
    look: async (r) => ids(await r.listMerchants({ limit: 10 })),
    change: (tx) => tx.insertMerchant(merchant({ id: "m_2", createdAt: T0 + 1 })),
    after: ["m_2", "m_1"],
  },
  {
    read: "listAllWebhookDeliveries",
    write: "updateWebhookDelivery",
    look: async (r) => ids(await r.listAllWebhookDeliveries({ failing: true }, { limit: 10 })),
    change: (tx) => tx.updateWebhookDelivery(delivery({ status: "failed", attempts: 8, nextAttemptAt: null, lastStatusCode: 500, updatedAt: T0 + 1 })),
    after: ["msg_1"],
  },
];

/**
 * OperatorListReads: the operator's lists across every merchant and mode (merchants, the
 * delivery log with the failing deliveries picked out), newest first, paged by cursor.
 */
export function operatorListTests(ctx: SuiteContext): void {
  describe("OperatorListReads: merchants and deliveries across merchants", () => {
    it("returns empty pages for an empty store and for a cursor naming nothing", async () => {
      const storage = ctx.full();
      expect(await storage.listMerchants({ limit: 10 })).toEqual([]);
      expect(await storage.listAllWebhookDeliveries({}, { limit: 10 })).toEqual([]);
      await seed(storage);
      expect(await storage.listMerchants({ limit: 10, after: "m_x" })).toEqual([]);
      expect(await storage.listAllWebhookDeliveries({}, { limit: 10, after: "msg_x" })).toEqual([]);
    });

    it("lists merchants newest first by (createdAt, id), every one once across pages", async () => {
      const storage = ctx.full();
      await storage.transaction(async (tx) => {
        await tx.insertMerchant(merchant({ id: "m_b", createdAt: T0 }));
        await tx.insertMerchant(merchant({ id: "m_d", createdAt: T0 + 5 }));
        await tx.insertMerchant(merchant({ id: "m_a", createdAt: T0 }));
        await tx.insertMerchant(merchant({ id: "m_c", name: "Other", settleCurrency: "USDT", createdAt: T0 + 2 }));
      });
      expect(await walk((page) => storage.listMerchants(page), 3)).toEqual(["m_d", "m_c", "m_b", "m_a"]);
      expect(await walk((page) => storage.listMerchants(page), 1)).toEqual(["m_d", "m_c", "m_b", "m_a"]);
      expect((await storage.listMerchants({ limit: 2, after: "m_d" }))[0]).toEqual(
        merchant({ id: "m_c", name: "Other", settleCurrency: "USDT", createdAt: T0 + 2 }),
      );
      expect(await storage.listMerchants({ limit: 0 })).toEqual([]);
    });

    it("lists every merchant's deliveries newest first by insertion, filtered by merchant, mode and failing", async () => {
      const storage = ctx.full();
      const failed = { status: "failed", attempts: 8, nextAttemptAt: null, lastStatusCode: 500, lastError: "the endpoint answered 500" } as const;
      await storage.transaction(async (tx) => {
        await tx.insertWebhookDeliveries([
          delivery({ id: "msg_1" }),
          delivery({ id: "msg_2", merchantId: "m_2", ...failed }),
          delivery({ id: "msg_3", mode: "live", attempts: 2, lastStatusCode: 503 }),
          delivery({ id: "msg_4", status: "succeeded", attempts: 3, nextAttemptAt: null, lastStatusCode: 200 }),
        ]);
        await tx.insertWebhookDeliveries([delivery({ id: "msg_5", merchantId: "m_2", mode: "live", ...failed })]);
      });
      expect(await walk((page) => storage.listAllWebhookDeliveries({}, page), 2)).toEqual(["msg_5", "msg_4", "msg_3", "msg_2", "msg_1"]);
      expect(await walk((page) => storage.listAllWebhookDeliveries({ failing: true }, page), 1)).toEqual(["msg_5", "msg_3", "msg_2"]);
      expect(ids(await storage.listAllWebhookDeliveries({ merchantId: "m_2" }, { limit: 10 }))).toEqual(["msg_5", "msg_2"]);
      expect(ids(await storage.listAllWebhookDeliveries({ mode: "live" }, { limit: 10 }))).toEqual(["msg_5", "msg_3"]);
      expect(ids(await storage.listAllWebhookDeliveries({ merchantId: "m_1", failing: true }, { limit: 10 }))).toEqual(["msg_3"]);
      expect(ids(await storage.listAllWebhookDeliveries({ failing: true }, { limit: 10, after: "msg_4" }))).toEqual(["msg_3", "msg_2"]);
      expect((await storage.listAllWebhookDeliveries({ merchantId: "m_2", mode: "test" }, { limit: 10 }))[0]).toEqual(
        delivery({ id: "msg_2", merchantId: "m_2", ...failed }),
      );
    });

    it("keeps a delivery's place after it is updated", async () => {
      const storage = ctx.full();
      await storage.transaction((tx) => tx.insertWebhookDeliveries([delivery({ id: "msg_1" }), delivery({ id: "msg_2", merchantId: "m_2" })]));
      await storage.transaction((tx) => tx.updateWebhookDelivery(delivery({ id: "msg_1", attempts: 1, lastStatusCode: 500, updatedAt: T0 + 9 })));
      expect(ids(await storage.listAllWebhookDeliveries({}, { limit: 10 }))).toEqual(["msg_2", "msg_1"]);
      expect(ids(await storage.listAllWebhookDeliveries({ failing: true }, { limit: 10 }))).toEqual(["msg_1"]);
    });

    freshnessTests(ctx, FRESHNESS);
  });
}
