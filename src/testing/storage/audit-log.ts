import { describe, expect, it } from "vitest";
import type { SuiteContext } from "./context";
import { type FreshnessCase, freshnessTests } from "./freshness";
import { auditEntryOf, ids, T0 } from "./fixtures";
import { uniqueTests } from "./shared";

const FRESHNESS: FreshnessCase[] = [
  {
    read: "listAuditLog",
    write: "insertAuditEntry",
    look: async (r) => ids(await r.listAuditLog({ limit: 10 })),
    change: (tx) => tx.insertAuditEntry(auditEntryOf({ id: "aud_2", at: T0 + 1 })),
    after: ["aud_2", "aud_1"],
  },
];

/** AuditLogStore: entries appended in the transaction of their change, listed newest first, paged, by merchant. */
export function auditLogTests(ctx: SuiteContext): void {
  describe("AuditLogStore: the audit log", () => {
    it("lists nothing before anything is recorded", async () => {
      const storage = ctx.full();
      expect(await storage.listAuditLog({ limit: 10 })).toEqual([]);
      expect(await storage.listAuditLog({ merchantId: "m_1", limit: 10 })).toEqual([]);
    });

    it("returns entries as stored, newest first by (at, id), one merchant's or all, paged after an id", async () => {
      const storage = ctx.full();
      const entries = [
        auditEntryOf({ id: "aud_a", at: T0 + 1 }),
        auditEntryOf({ id: "aud_c", at: T0 + 2, action: "api_key.issued", recordId: "key_1", mode: "live", actor: "host" }),
        auditEntryOf({ id: "aud_b", at: T0 + 2, merchantId: "m_2", action: "payout.rejected" }),
        auditEntryOf({ id: "aud_d", at: T0 + 3, action: "api_key.revoked", recordId: "key_1" }),
      ];
      await storage.transaction(async (tx) => {
        for (const entry of entries) await tx.insertAuditEntry(entry);
      });
      expect(await storage.listAuditLog({ limit: 10 })).toEqual([entries[3], entries[1], entries[2], entries[0]]);
      expect(ids(await storage.listAuditLog({ merchantId: "m_1", limit: 10 }))).toEqual(["aud_d", "aud_c", "aud_a"]);
      expect(ids(await storage.listAuditLog({ merchantId: "m_2", limit: 10 }))).toEqual(["aud_b"]);
      expect(ids(await storage.listAuditLog({ limit: 2 }))).toEqual(["aud_d", "aud_c"]);
      expect(ids(await storage.listAuditLog({ limit: 2, after: "aud_c" }))).toEqual(["aud_b", "aud_a"]);
      expect(ids(await storage.listAuditLog({ merchantId: "m_1", limit: 5, after: "aud_c" }))).toEqual(["aud_a"]);
      expect(await storage.listAuditLog({ limit: 2, after: "aud_a" })).toEqual([]);
      expect(await storage.listAuditLog({ limit: 2, after: "aud_nothing" })).toEqual([]);
    });

    it("keeps no entry of a transaction that threw", async () => {
      const storage = ctx.full();
      await expect(
        storage.transaction(async (tx) => {
          await tx.insertAuditEntry(auditEntryOf());
          expect(ids(await tx.listAuditLog({ limit: 10 }))).toEqual(["aud_1"]);
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect(await storage.listAuditLog({ limit: 10 })).toEqual([]);
    });

    it("hands out copies: changing a returned entry changes nothing stored", async () => {
      const storage = ctx.full();
      await storage.transaction((tx) => tx.insertAuditEntry(auditEntryOf()));
      const [read] = await storage.listAuditLog({ limit: 1 });
      read!.actor = "someone else";
      expect(await storage.listAuditLog({ limit: 1 })).toEqual([auditEntryOf()]);
    });

    uniqueTests(ctx, [["audit entry id", (tx) => tx.insertAuditEntry(auditEntryOf({ actor: "other" }))]]);

    freshnessTests(ctx, FRESHNESS);
  });
}
