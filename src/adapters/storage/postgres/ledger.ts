import type { LedgerEntry } from "../../../core/ledger/records";
import type { Mode } from "../../../core/merchants/records";
import type { PostLedgerOptions, PostLedgerResult } from "../../../core/ports/storage/index";
import type { SqlQueryable } from "./sql-client";
import type { Statements } from "./statements/index";
import { balanceColumns, ledgerColumns } from "./statements/ledger";

/** The net change a batch makes to one balance. */
interface BalanceChange {
  merchantId: string;
  mode: Mode;
  asset: string;
  delta: bigint;
  /** The latest `createdAt` among the batch's entries for this balance. */
  at: number;
}

const SAVEPOINT = "ecp_post_ledger";

/**
 * Appends entries and moves balances, all or nothing, in the caller's transaction:
 *
 * 1. A savepoint, so that a refused batch leaves nothing behind while the transaction goes on.
 * 2. The entries, `ON CONFLICT (cause_key) DO NOTHING`: fewer rows than entries means a cause was
 *    posted before (by anyone: an uncommitted insert of the same key makes this one wait for
 *    its outcome), so the batch is a duplicate.
 * 3. One statement per balance, in (merchant, mode, asset) order so that two batches touching
 *    the same balances lock them in the same order and cannot deadlock. A credit is an upsert; a
 *    debit is `UPDATE ... WHERE amount + delta >= 0` on the locked row, so concurrent debits
 *    queue on the row and each tests the balance the previous one left. No row updated means
 *    the balance does not cover the debit. With `overdraw` (a reversal of a credit) every
 *    change is an upsert that may leave the balance below zero.
 */
export async function postLedgerEntries(
  db: SqlQueryable,
  s: Statements,
  entries: readonly LedgerEntry[],
  options: PostLedgerOptions = {},
): Promise<PostLedgerResult> {
  if (entries.length === 0) return { status: "posted" };
  const seen = new Set<string>();
  for (const entry of entries) {
    if (seen.has(entry.causeKey)) throw new Error(`postgresStorage: postLedgerEntries got causeKey "${entry.causeKey}" twice in one batch`);
    seen.add(entry.causeKey);
  }
  const changes = balanceChanges(entries);

  await db.query(`SAVEPOINT ${SAVEPOINT}`);
  const undo = async () => void (await db.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`));
  try {
    const inserted = entries.length === 1 ? await insertOne(db, s, entries[0]!) : await insertMany(db, s, entries);
    if (inserted < entries.length) {
      await undo();
      return { status: "duplicate" };
    }
    for (const change of changes) {
      const params = balanceColumns.params({
        merchantId: change.merchantId,
        mode: change.mode,
        asset: change.asset,
        amount: change.delta,
        updatedAt: change.at,
      });
      if (options.overdraw) {
        await db.query(s.overdrawBalance, params);
      } else if (change.delta >= 0n) {
        await db.query(s.creditBalance, params);
      } else if ((await db.query(s.debitBalance, params)).rowCount === 0) {
        await undo();
        return { status: "insufficient", asset: change.asset };
      }
    }
  } catch (error) {
    // An error leaves the transaction aborted until the savepoint is rolled back; the caller
    // gets the error and its transaction stays usable, as with any adapter.
    await undo().catch(() => undefined);
    throw error;
  }
  await db.query(`RELEASE SAVEPOINT ${SAVEPOINT}`);
  return { status: "posted" };
}

async function insertOne(db: SqlQueryable, s: Statements, entry: LedgerEntry): Promise<number> {
  return (await db.query(s.insertLedgerEntry, ledgerColumns.params(entry))).rowCount;
}

async function insertMany(db: SqlQueryable, s: Statements, entries: readonly LedgerEntry[]): Promise<number> {
  return (await db.query(s.insertLedgerEntries, ledgerColumns.paramArrays(entries))).rowCount;
}

/** Net change per balance, sorted by (merchant, mode, asset) bytewise: the lock order. */
function balanceChanges(entries: readonly LedgerEntry[]): BalanceChange[] {
  const byKey = new Map<string, BalanceChange>();
  for (const entry of entries) {
    const key = `${entry.merchantId}\u0000${entry.mode}\u0000${entry.asset}`;
    const change = byKey.get(key);
    if (change) {
      change.delta += entry.amount;
      if (entry.createdAt > change.at) change.at = entry.createdAt;
    } else {
      byKey.set(key, { merchantId: entry.merchantId, mode: entry.mode, asset: entry.asset, delta: entry.amount, at: entry.createdAt });
    }
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, change]) => change);
}
