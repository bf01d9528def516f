import { describe, expect, it } from "vitest";
import type { Mode } from "../../core/merchants/records";
import type { ExportQuery, StorageReads, StorageTransaction } from "../../core/ports/storage/index";
import type { SuiteContext } from "./context";
import { auditEntryOf, deposit, entry, exchange, invoice, payout, T0 } from "./fixtures";

const HUGE = 2n ** 200n + 7n;
const DAY = 86_400_000;

/** Where a stored record differs between the cases: its id, time, owner and mode. */
interface Place {
  id: string;
  at: number;
  merchantId: string;
  mode: Mode;
}

/** One export read of the port: how to store a record at a place, and how to read pages back. */
interface ExportCase {
  name: string;
  insert(tx: StorageTransaction, place: Place): Promise<void>;
  read(storage: Required<StorageReads>, query: ExportQuery): Promise<Array<{ id: string; merchantId: string; mode: Mode | null }>>;
  /** What a record stored at a place holds besides its place; records with an amount store HUGE. */
  stored?: Record<string, unknown>;
}

const CASES: ExportCase[] = [
  {
    name: "exportInvoices (by createdAt)",
    insert: (tx, p) => tx.insertInvoice(invoice({ id: p.id, createdAt: p.at, updatedAt: p.at, merchantId: p.merchantId, mode: p.mode, amount: HUGE })),
    read: (storage, query) => storage.exportInvoices(query),
  },
  {
    name: "exportDeposits (by seenAt)",
    insert: (tx, p) =>
      tx.insertDeposit(deposit({ id: p.id, txHash: `tx_${p.id}`, seenAt: p.at, updatedAt: T0, merchantId: p.merchantId, mode: p.mode, amount: HUGE })),
    read: (storage, query) => storage.exportDeposits(query),
  },
  {
    name: 'exportPayouts("payout") (withdrawals by createdAt)',
    insert: async (tx, p) => {
      await tx.insertPayout(payout({ id: p.id, createdAt: p.at, updatedAt: p.at, merchantId: p.merchantId, mode: p.mode, amount: HUGE }));
      // A refund at the same place is not a withdrawal.
      await tx.insertPayout(payout({ id: `${p.id}_refund`, createdAt: p.at, merchantId: p.merchantId, mode: p.mode, refundOf: "inv_1" }));
    },
    read: (storage, query) => storage.exportPayouts("payout", query),
  },
  {
    name: 'exportPayouts("refund") (refunds by createdAt)',
    insert: async (tx, p) => {
      await tx.insertPayout(payout({ id: p.id, createdAt: p.at, merchantId: p.merchantId, mode: p.mode, refundOf: "inv_1", amount: HUGE }));
      await tx.insertPayout(payout({ id: `${p.id}_withdrawal`, createdAt: p.at, merchantId: p.merchantId, mode: p.mode }));
    },
    read: (storage, query) => storage.exportPayouts("refund", query),
  },
  {
    name: "exportExchanges (by createdAt)",
    insert: (tx, p) => tx.insertExchange(exchange({ id: p.id, createdAt: p.at, merchantId: p.merchantId, mode: p.mode, amount: HUGE })),
    read: (storage, query) => storage.exportExchanges(query),
  },
  {
    name: "exportLedgerEntries (by createdAt)",
    insert: async (tx, p) => {
      await tx.postLedgerEntries([entry({ id: p.id, causeKey: `cause:${p.id}`, createdAt: p.at, merchantId: p.merchantId, mode: p.mode, amount: HUGE })]);
    },
    read: (storage, query) => storage.exportLedgerEntries(query),
  },
  {
    name: "exportAuditLog (by at)",
    insert: (tx, p) => tx.insertAuditEntry(auditEntryOf({ id: p.id, at: p.at, merchantId: p.merchantId, mode: p.mode, recordId: `po_${p.id}` })),
    read: (storage, query) => storage.exportAuditLog(query),
    stored: { recordId: "po_r_one", actor: "user_1", action: "payout.approved" },
  },
];

// The range of the tests: one whole UTC day, [FROM, TO).
const FROM = T0 - (T0 % DAY);
const TO = FROM + DAY;

/** Records around the range's edges, of two merchants in both modes, stored out of order. */
const PLACES: Place[] = [
  { id: "r_late", at: TO - 1, merchantId: "m_1", mode: "test" },
  { id: "r_before", at: FROM - 1, merchantId: "m_1", mode: "test" },
  { id: "r_mid_b", at: FROM + 5_000, merchantId: "m_2", mode: "live" },
  { id: "r_first", at: FROM, merchantId: "m_1", mode: "live" },
  { id: "r_mid_a", at: FROM + 5_000, merchantId: "m_1", mode: "test" },
  { id: "r_after", at: TO, merchantId: "m_2", mode: "test" },
  { id: "r_mid_c", at: FROM + 5_000, merchantId: "m_2", mode: "test" },
];

/**
 * ExportReads: each read walks one table's records of [from, to) by (time, id), across every
 * merchant or one, one mode or both, a bounded page at a time from a (time, id) cursor.
 */
export function exportTests(ctx: SuiteContext): void {
  describe("ExportReads: keyset-paged reads of a time range across merchants", () => {
    for (const kind of CASES) {
      describe(kind.name, () => {
        const seed = async () => {
          const storage = ctx.full();
          await storage.transaction(async (tx) => {
            for (const place of PLACES) await kind.insert(tx, place);
          });
          return storage;
        };
        const ids = async (storage: Required<StorageReads>, query: Partial<ExportQuery>) =>
          (await kind.read(storage, { from: FROM, to: TO, limit: 100, ...query })).map((record) => record.id);

        it("returns nothing when nothing is stored", async () => {
          expect(await ids(ctx.full(), {})).toEqual([]);
        });

        it("answers the range with `from` included and `to` excluded, oldest first, ties by id, every merchant and mode", async () => {
          const storage = await seed();
          expect(await ids(storage, {})).toEqual(["r_first", "r_mid_a", "r_mid_b", "r_mid_c", "r_late"]);
        });

        it("keeps to one merchant, one mode, or both", async () => {
          const storage = await seed();
          expect(await ids(storage, { merchantId: "m_2" })).toEqual(["r_mid_b", "r_mid_c"]);
          expect(await ids(storage, { mode: "test" })).toEqual(["r_mid_a", "r_mid_c", "r_late"]);
          expect(await ids(storage, { merchantId: "m_1", mode: "live" })).toEqual(["r_first"]);
          expect(await ids(storage, { merchantId: "m_nobody" })).toEqual([]);
        });

        it("pages from a (time, id) cursor, each record once, and a limit of 0 answers nothing", async () => {
          const storage = await seed();
          const seen: string[] = [];
          let after: ExportQuery["after"] = null;
          for (let pages = 0; pages < 10; pages++) {
            const page = await kind.read(storage, { from: FROM, to: TO, limit: 2, after });
            expect(page.length).toBeLessThanOrEqual(2);
            seen.push(...page.map((record) => record.id));
            if (page.length < 2) break;
            const last = PLACES.find((place) => place.id === page.at(-1)!.id)!;
            after = { at: last.at, id: last.id };
          }
          expect(seen).toEqual(["r_first", "r_mid_a", "r_mid_b", "r_mid_c", "r_late"]);
          // Within one millisecond, the id decides; a cursor that names no record still pages by its values.
          expect(await ids(storage, { after: { at: FROM + 5_000, id: "r_mid_a" } })).toEqual(["r_mid_b", "r_mid_c", "r_late"]);
          expect(await ids(storage, { after: { at: FROM + 5_000, id: "r_mid_bb" } })).toEqual(["r_mid_c", "r_late"]);
          expect(await ids(storage, { limit: 0 })).toEqual([]);
        });

        it("answers whole records, amounts beyond 2^64 exact, and sees a transaction's own writes inside it", async () => {
          const stored = kind.stored ?? { amount: HUGE };
          const storage = ctx.full();
          await storage.transaction(async (tx) => {
            await kind.insert(tx, { id: "r_one", at: FROM + 1, merchantId: "m_1", mode: "live" });
            const [record] = await kind.read(tx, { from: FROM, to: TO, limit: 10 });
            expect(record).toMatchObject({ id: "r_one", merchantId: "m_1", mode: "live", ...stored });
          });
          expect(await kind.read(storage, { from: FROM, to: TO, limit: 10 })).toEqual([expect.objectContaining({ id: "r_one", ...stored })]);
        });
      });
    }

    it("answers an invoice as it was stored, metadata included", async () => {
      const storage = ctx.full();
      const stored = invoice({ createdAt: FROM, metadata: { orderId: "=1+1", nested: { list: [1, "two"] } }, returnUrl: "https://shop.example/back" });
      await storage.transaction((tx) => tx.insertInvoice(stored));
      expect(await storage.exportInvoices({ from: FROM, to: TO, limit: 10 })).toEqual([stored]);
    });

    it("answers a deposit, a payout, an exchange, a ledger entry and an audit entry as they were stored", async () => {
      const storage = ctx.full();
      const stored = {
        deposit: deposit({ seenAt: FROM, status: "CONFIRMED", creditedAt: FROM + 9, creditedAsset: "USDT", creditedAmount: 123n, reversals: 1 }),
        refund: payout({ createdAt: FROM, refundOf: "inv_1", refundDepositId: "dep_1", txHash: "0xabc", failureReason: "boom" }),
        exchange: exchange({ createdAt: FROM, invoiceId: "inv_1" }),
        entry: entry({ createdAt: FROM, amount: -HUGE, kind: "payout", causeKey: "payout:po_1" }),
        audit: auditEntryOf({ at: FROM + 1, action: "api_key.revoked", recordId: "key_1", actor: "dashboard:ann@example.com" }),
      };
      await storage.transaction(async (tx) => {
        await tx.insertDeposit(stored.deposit);
        await tx.insertPayout(stored.refund);
        await tx.insertExchange(stored.exchange);
        await tx.postLedgerEntries([stored.entry], { overdraw: true });
        await tx.insertAuditEntry(stored.audit);
      });
      const query = { from: FROM, to: TO, limit: 10 };
      expect(await storage.exportDeposits(query)).toEqual([stored.deposit]);
      expect(await storage.exportPayouts("refund", query)).toEqual([stored.refund]);
      expect(await storage.exportPayouts("payout", query)).toEqual([]);
      expect(await storage.exportExchanges(query)).toEqual([stored.exchange]);
      expect(await storage.exportLedgerEntries(query)).toEqual([stored.entry]);
      expect(await storage.exportAuditLog(query)).toEqual([stored.audit]);
    });
  });
}
