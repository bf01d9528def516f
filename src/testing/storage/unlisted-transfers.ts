import { describe, expect, it } from "vitest";
import type { SuiteContext } from "./context";
import { ids, T0, unlistedTransfer } from "./fixtures";

/** UnlistedTransferStore: stored once per chain identity, listed per mode in the order stored. */
export function unlistedTransferTests(ctx: SuiteContext): void {
  describe("UnlistedTransferStore: unlisted-token transfers", () => {
    it("returns null, empty lists or 0n for anything never stored", async () => {
      const storage = ctx.full();
      expect(await storage.listUnlistedTransfers("test")).toEqual([]);
    });

    it("stores a transfer exactly (a 200-bit amount included) and lists it in its mode only", async () => {
      const storage = ctx.full();
      const stored = await storage.transaction((tx) => tx.insertUnlistedTransfer(unlistedTransfer()));
      expect(stored).toBe(true);
      expect(await storage.listUnlistedTransfers("test")).toEqual([unlistedTransfer()]);
      expect(await storage.listUnlistedTransfers("live")).toEqual([]);
    });

    it("stores a repeat of the same (mode, network, txHash, logIndex) once, keeping the first as it was", async () => {
      const storage = ctx.full();
      expect(await storage.transaction((tx) => tx.insertUnlistedTransfer(unlistedTransfer()))).toBe(true);
      const repeat = unlistedTransfer({ id: "unl_2", amount: 1n, seenAt: T0 + 5_000 });
      expect(await storage.transaction((tx) => tx.insertUnlistedTransfer(repeat))).toBe(false);
      expect(await storage.listUnlistedTransfers("test")).toEqual([unlistedTransfer()]);
    });

    it("tells transfers apart by log index, network, transaction and mode, and lists them in the order stored", async () => {
      const storage = ctx.full();
      const records = [
        unlistedTransfer({ id: "unl_c" }),
        unlistedTransfer({ id: "unl_a", logIndex: 4 }),
        unlistedTransfer({ id: "unl_b", network: "BSC" }),
        unlistedTransfer({ id: "unl_e", txHash: "0xtx_2", seenAt: T0 - 1 }),
        unlistedTransfer({ id: "unl_d", mode: "live" }),
      ];
      for (const record of records) expect(await storage.transaction((tx) => tx.insertUnlistedTransfer(record)), record.id).toBe(true);
      expect(ids(await storage.listUnlistedTransfers("test"))).toEqual(["unl_c", "unl_a", "unl_b", "unl_e"]);
      expect(await storage.listUnlistedTransfers("live")).toEqual([records[4]]);
    });

    it("sees its own insert inside the transaction, and stores nothing when the transaction throws", async () => {
      const storage = ctx.full();
      await expect(
        storage.transaction(async (tx) => {
          expect(await tx.insertUnlistedTransfer(unlistedTransfer())).toBe(true);
          expect(ids(await tx.listUnlistedTransfers("test"))).toEqual(["unl_1"]);
          expect(await tx.insertUnlistedTransfer(unlistedTransfer({ id: "unl_2" }))).toBe(false);
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect(await storage.listUnlistedTransfers("test")).toEqual([]);
      expect(await storage.transaction((tx) => tx.insertUnlistedTransfer(unlistedTransfer()))).toBe(true);
    });

    it("stores one of many concurrent reports of the same transfer", async () => {
      const storage = ctx.full();
      const results = await Promise.all(
        Array.from({ length: ctx.parallelism }, (_, i) => storage.transaction((tx) => tx.insertUnlistedTransfer(unlistedTransfer({ id: `unl_${i}` })))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await storage.listUnlistedTransfers("test")).toHaveLength(1);
    });
  });
}
