import { describe, expect, it } from "vitest";
import type { AddressRecord } from "../../core/deposits/records";
import type { SuiteContext } from "./context";
import { type FreshnessCase, freshnessTests } from "./freshness";
import { address, seed, T0 } from "./fixtures";
import { missingUpdateTests, uniqueTests } from "./shared";

/** Address records in address order: findAddresses promises none. */
const byAddress = (records: AddressRecord[]): AddressRecord[] => [...records].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));

const FRESHNESS: FreshnessCase[] = [
  {
    read: "findAddress",
    write: "insertAddress of an address read as missing",
    look: (r) => r.findAddress("test", "bitcoin", "bc1qnew"),
    change: (tx) => tx.insertAddress(address({ address: "bc1qnew", invoiceId: "inv_2" })),
    after: address({ address: "bc1qnew", invoiceId: "inv_2" }),
  },
  {
    read: "findAddresses",
    write: "insertAddress",
    look: async (r) => (await r.findAddresses("test", "bitcoin", ["bc1qnew"])).map((record) => record.address),
    change: (tx) => tx.insertAddress(address({ address: "bc1qnew", invoiceId: "inv_2" })),
    after: ["bc1qnew"],
  },
];

/** AddressStore: the issued addresses, found one by one or many at once, exactly and per (mode, network). */
export function addressTests(ctx: SuiteContext): void {
  describe("AddressStore: issued addresses", () => {
    it("returns null, empty lists or 0n for anything never stored", async () => {
      const storage = ctx.storage();
      expect(await storage.findAddress("test", "bitcoin", "bc1qnone")).toBeNull();
      expect(await storage.findAddresses("test", "bitcoin", ["bc1qnone"])).toEqual([]);
    });

    it("answers the other mode's records as not found", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.findAddress("live", "bitcoin", "bc1qexample")).toBeNull();
      expect(await storage.findAddresses("live", "bitcoin", ["bc1qexample"])).toEqual([]);
    });

    it("returns records as they were stored, bigints, nulls and nested data included", async () => {
      const storage = ctx.storage();
      await seed(storage);
      expect(await storage.findAddress("test", "bitcoin", "bc1qexample")).toEqual(address());
      expect(await storage.findAddresses("test", "bitcoin", ["bc1qexample"])).toEqual([address()]);
    });

    it("finds, of the addresses given, exactly those issued in that mode on that network, each once", async () => {
      const storage = ctx.storage();
      await seed(storage);
      const second = address({ address: "bc1qsecond", invoiceId: "inv_2", createdAt: T0 + 1 });
      const live = address({ mode: "live", address: "bc1qlive", invoiceId: "inv_live" });
      const litecoin = address({ network: "litecoin", coin: "LTC", address: "ltc1qother", invoiceId: "inv_ltc" });
      const evm = address({ network: "ethereum", coin: "ETH", address: "0xAbCdEf0123456789aBcDeF0123456789AbCdEf01", invoiceId: "inv_eth" });
      await storage.transaction(async (tx) => {
        for (const record of [second, live, litecoin, evm]) await tx.insertAddress(record);
      });
      const asked = ["bc1qsecond", "bc1qnone", "bc1qexample", "bc1qsecond", "bc1qlive", "ltc1qother", "BC1QEXAMPLE", "bc1qexample"];
      expect(byAddress(await storage.findAddresses("test", "bitcoin", asked))).toEqual([address(), second]);
      expect(await storage.findAddresses("live", "bitcoin", asked)).toEqual([live]);
      expect(await storage.findAddresses("test", "litecoin", asked)).toEqual([litecoin]);
      // As exact as findAddress: another case is another address.
      expect(await storage.findAddresses("test", "ethereum", [evm.address, evm.address.toLowerCase(), evm.address.toUpperCase()])).toEqual([evm]);
      expect(await storage.findAddresses("test", "bitcoin", [])).toEqual([]);
      await storage.transaction(async (tx) => {
        const third = address({ address: "bc1qthird", invoiceId: "inv_3" });
        await tx.insertAddress(third);
        expect(byAddress(await tx.findAddresses("test", "bitcoin", ["bc1qthird", "bc1qexample", "bc1qnone"]))).toEqual([address(), third]);
        expect(await tx.findAddresses("test", "bitcoin", [])).toEqual([]);
      });
    });

    it("finds the issued ones among 2,000 addresses asked for at once", async () => {
      const storage = ctx.storage();
      const asked = Array.from({ length: 2_000 }, (_, i) => `bc1qbulk${String(i).padStart(4, "0")}`);
      const issued = asked.filter((_, i) => i % 10 === 3).map((value, i) => address({ address: value, invoiceId: `inv_${i}` }));
      await storage.transaction(async (tx) => {
        for (const record of issued) await tx.insertAddress(record);
      });
      expect(byAddress(await storage.findAddresses("test", "bitcoin", asked))).toEqual(issued);
      expect(await storage.findAddresses("live", "bitcoin", asked)).toEqual([]);
    });

    uniqueTests(ctx, [["(mode, network, address)", (tx) => tx.insertAddress(address({ invoiceId: "inv_2" }))]]);

    it("accepts the same address on another network or in the other mode", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction(async (tx) => {
        await tx.insertAddress(address({ mode: "live" }));
        await tx.insertAddress(address({ network: "litecoin" }));
      });
      expect((await storage.findAddress("live", "bitcoin", "bc1qexample"))?.mode).toBe("live");
      expect((await storage.findAddress("test", "litecoin", "bc1qexample"))?.network).toBe("litecoin");
    });

    missingUpdateTests(ctx, [["address", (tx) => tx.updateAddress(address({ address: "bc1qnever" }))]]);

    it("replaces a record on update and keeps every lookup pointing at it", async () => {
      const storage = ctx.storage();
      await seed(storage);
      await storage.transaction((tx) => tx.updateAddress(address({ invoiceId: "inv_2", merchantId: "m_2", createdAt: T0 + 3 })));
      expect(await storage.findAddress("test", "bitcoin", "bc1qexample")).toEqual(address({ invoiceId: "inv_2", merchantId: "m_2", createdAt: T0 + 3 }));
      expect(await storage.findAddresses("test", "bitcoin", ["bc1qexample"])).toEqual([address({ invoiceId: "inv_2", merchantId: "m_2", createdAt: T0 + 3 })]);
    });

    freshnessTests(ctx, FRESHNESS);
  });
}
