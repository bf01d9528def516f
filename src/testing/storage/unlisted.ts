import { describe, expect, it } from "vitest";
import type { UnlistedTransferRecord } from "../../core/types";
import type { SuiteContext } from "./context";
import { ids, T0 } from "./fixtures";

/** An unlisted-token transfer of merchant m_1 in test mode, with any field overridden. */
export const unlistedTransfer = (over: Partial<UnlistedTransferRecord> = {}): UnlistedTransferRecord => ({
  id: "unl_1",
  mode: "test",
  network: "ETH",
  token: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
  address: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
  txHash: "0xtx_1",
  logIndex: 3,
  // Raw units of an 18-decimal token can exceed 2^64 (and anything a float holds exactly).
  amount: 2n ** 200n + 7n,
  blockNumber: 19_000_000,
  merchantId: "m_1",
  invoiceId: "inv_1",
  coin: "USDT",
  seenAt: T0,
  ...over,
});

/** Unlisted-token transfers: stored once per chain identity, listed per mode in the order stored. */
export function unlistedTransferTests(ctx: SuiteContext): void {
  describe("unlisted-token transfers", () => {
    it("stores a transfer exactly (a 200-bit amount included) and lists it in its mode only", async () => {
      const storage = ctx.storage();
      const stored = await storage.transaction((tx) => tx.insertUnlistedTransfer(unlistedTransfer()));
      expect(stored).toBe(true);
      expect(await storage.listUnlistedTransfers("test")).toEqual([unlistedTransfer()]);
      expect(await storage.listUnlistedTransfers("live")).toEqual([]);
    });

    it("stores a repeat of the same (mode, network, txHash, logIndex) once, keeping the first as it was", async () => {
      const storage = ctx.storage();
      expect(await storage.transaction((tx) => tx.insertUnlistedTransfer(unlistedTransfer()))).toBe(true);
      const repeat = unlistedTransfer({ id: "unl_2", amount: 1n, seenAt: T0 + 5_000 });
      expect(await storage.transaction((tx) => tx.insertUnlistedTransfer(repeat))).toBe(false);
      expect(await storage.listUnlistedTransfers("test")).toEqual([unlistedTransfer()]);
    });

    it("tells transfers apart by log index, network, transaction and mode, and lists them in the order stored", async () => {
      const storage = ctx.storage();
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
      const storage = ctx.storage();
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
      const storage = ctx.storage();
      const results = await Promise.all(
        Array.from({ length: ctx.parallelism }, (_, i) => storage.transaction((tx) => tx.insertUnlistedTransfer(unlistedTransfer({ id: `unl_${i}` })))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await storage.listUnlistedTransfers("test")).toHaveLength(1);
    });
  });
}
