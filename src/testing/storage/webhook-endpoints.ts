import { describe, expect, it } from "vitest";
import type { SuiteContext } from "./context";
import { type FreshnessCase, freshnessTests } from "./freshness";
import { endpoint, ids, LIVE, OTHER, seed, T0, TEST } from "./fixtures";
import { lockTests, missingUpdateTests, uniqueTests } from "./shared";

const disabled = endpoint({ status: "disabled", disabledReason: "the endpoint answered 410 Gone", updatedAt: T0 + 1 });

const FRESHNESS: FreshnessCase[] = [
  {
    read: "getWebhookEndpoint",
    write: "updateWebhookEndpoint",
    look: (r) => r.getWebhookEndpoint(TEST, "we_1"),
    change: (tx) => tx.updateWebhookEndpoint(disabled),
    after: disabled,
  },
  {
    read: "getWebhookEndpoint",
    write: "deleteWebhookEndpoint",
    look: (r) => r.getWebhookEndpoint(TEST, "we_1"),
    change: (tx) => tx.deleteWebhookEndpoint("we_1"),
    after: null,
  },
  {
    read: "listWebhookEndpoints",
    write: "updateWebhookEndpoint",
    look: (r) => r.listWebhookEndpoints(TEST),
    change: (tx) => tx.updateWebhookEndpoint(disabled),
    after: [disabled],
  },
  {
    read: "listWebhookEndpoints",
    write: "insertWebhookEndpoint",
    look: async (r) => ids(await r.listWebhookEndpoints(TEST)),
    change: (tx) => tx.insertWebhookEndpoint(endpoint({ id: "we_2", url: "https://shop.example/other", createdAt: T0 + 1 })),
    after: ["we_1", "we_2"],
  },
];

/** WebhookEndpointStore: scoped reads, (createdAt, id) order, updates (secret rotation), deletion, copies, locks. */
export function webhookEndpointTests(ctx: SuiteContext): void {
  describe("WebhookEndpointStore: webhook endpoints", () => {
    it("returns null, empty lists or 0n for anything never stored", async () => {
      const storage = ctx.storage();
      expect(await storage.getWebhookEndpoint(TEST, "we_x")).toBeNull();
      expect(await storage.listWebhookEndpoints(TEST)).toEqual([]);
      await storage.transaction(async (tx) => {
        expect(await tx.lockWebhookEndpoint("we_x")).toBeNull();
        expect(await tx.deleteWebhookEndpoint("we_x")).toBe(false);
      });
    });

    it("answers another merchant's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getWebhookEndpoint(OTHER, "we_1")).toBeNull();
      expect(await storage.listWebhookEndpoints(OTHER)).toEqual([]);
    });

    it("answers the other mode's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getWebhookEndpoint(LIVE, "we_1")).toBeNull();
      expect(await storage.listWebhookEndpoints(LIVE)).toEqual([]);
    });

    it("lets lockWebhookEndpoint reach an endpoint whatever its merchant", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction(async (tx) => {
        expect((await tx.lockWebhookEndpoint("we_1"))?.id).toBe("we_1");
      });
    });

    it("returns records as they were stored, bigints, nulls and nested data included", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.getWebhookEndpoint(TEST, "we_1")).toEqual(endpoint());
    });

    it("keeps every optional field either way", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertWebhookEndpoint(endpoint({ events: null, status: "disabled", disabledReason: "the endpoint answered 410 Gone" }));
      });
      expect(await storage.getWebhookEndpoint(TEST, "we_1")).toEqual(
        endpoint({ events: null, status: "disabled", disabledReason: "the endpoint answered 410 Gone" }),
      );
    });

    it("stores a copy: mutating the record passed in changes nothing stored", async () => {
      const storage = ctx.storage();
      const hook = endpoint();
      await storage.transaction((tx) => tx.insertWebhookEndpoint(hook));
      hook.secrets[0]!.expiresAt = 1;
      hook.events?.push("payment.created");
      expect(await storage.getWebhookEndpoint(TEST, "we_1")).toEqual(endpoint());
    });

    it("returns a copy: mutating a record read back changes nothing stored", async () => {
      const storage = ctx.storage();
      await seed(storage);
      const hook = await storage.getWebhookEndpoint(TEST, "we_1");
      hook?.secrets.push({ secret: "whsec_x", createdAt: 0, expiresAt: null });
      expect(await storage.getWebhookEndpoint(TEST, "we_1")).toEqual(endpoint());
    });

    uniqueTests(ctx, [["webhook endpoint id", (tx) => tx.insertWebhookEndpoint(endpoint({ url: "https://other.example/" }))]]);

    missingUpdateTests(ctx, [["webhook endpoint", (tx) => tx.updateWebhookEndpoint(endpoint())]]);

    it("lists endpoints oldest first by (createdAt, id), disabled ones included, and updates them", async () => {
      const storage = ctx.storage();
      await storage.transaction(async (tx) => {
        await tx.insertWebhookEndpoint(endpoint({ id: "we_b", createdAt: T0 + 1 }));
        await tx.insertWebhookEndpoint(endpoint({ id: "we_c", createdAt: T0 }));
        await tx.insertWebhookEndpoint(endpoint({ id: "we_a", createdAt: T0 + 1, status: "disabled" }));
        await tx.insertWebhookEndpoint(endpoint({ id: "we_live", mode: "live" }));
      });
      expect((await storage.listWebhookEndpoints(TEST)).map((e) => e.id)).toEqual(["we_c", "we_a", "we_b"]);
      const rotated = endpoint({
        id: "we_b",
        createdAt: T0 + 1,
        secrets: [
          { secret: "whsec_new", createdAt: T0 + 9, expiresAt: null },
          { secret: "whsec_old", createdAt: T0, expiresAt: T0 + 99 },
        ],
        updatedAt: T0 + 9,
      });
      await storage.transaction((tx) => tx.updateWebhookEndpoint(rotated));
      expect(await storage.getWebhookEndpoint(TEST, "we_b")).toEqual(rotated);
    });

    it("deletes a webhook endpoint but keeps its deliveries in the log", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.transaction((tx) => tx.deleteWebhookEndpoint("we_1"))).toBe(true);
      expect(await storage.transaction((tx) => tx.deleteWebhookEndpoint("we_1"))).toBe(false);
      expect(await storage.getWebhookEndpoint(TEST, "we_1")).toBeNull();
      expect(await storage.listWebhookEndpoints(TEST)).toEqual([]);
      expect((await storage.getWebhookDelivery(TEST, "msg_1"))?.endpointId).toBe("we_1");
      expect(await storage.listWebhookAttempts("msg_1")).toHaveLength(1);
    });

    lockTests(ctx, [
      [
        "lockWebhookEndpoint",
        (tx) => tx.lockWebhookEndpoint("we_1"),
        (tx) => tx.updateWebhookEndpoint(endpoint({ status: "disabled" })),
        async (tx) => (await tx.lockWebhookEndpoint("we_1"))?.status,
      ],
    ]);

    freshnessTests(ctx, FRESHNESS);
  });
}
