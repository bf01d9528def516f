import type { BalanceRecord, LedgerEntry } from "../../../../core/ledger/records";
import { col, columns, epochMs, numeric } from "./columns";
import { sql } from "./sql";
import type { Tables } from "./tables";

/** The columns of `ledger_entries`. */
export const ledgerColumns = columns<LedgerEntry>({
  id: col("id"),
  merchantId: col("merchant_id"),
  mode: col("mode"),
  asset: col("asset"),
  amount: col("amount", numeric),
  kind: col("kind"),
  causeKey: col("cause_key"),
  createdAt: col("created_at", epochMs),
});

/** The columns of `balances`, one row per (merchant, mode, asset). */
export const balanceColumns = columns<BalanceRecord>(
  {
    merchantId: col("merchant_id"),
    mode: col("mode"),
    asset: col("asset"),
    amount: col("amount", numeric),
    updatedAt: col("updated_at", epochMs),
  },
  ["merchantId", "mode", "asset"],
);

/**
 * The ledger and the balances it moves (how a batch is posted: `../ledger.ts`). The balance
 * statements all take a balance's parameters: the change as its `amount`, at `updatedAt`.
 */
export function ledgerStatements(t: Tables) {
  const b = balanceColumns.param;
  // Adds the change to the balance (a new balance starts at it), without testing what it leaves.
  const addToBalance = sql`
    INSERT INTO ${t.balances} AS b (${balanceColumns.list})
    VALUES (${balanceColumns.values})
    ON CONFLICT (merchant_id, mode, asset) DO UPDATE
    SET amount = b.amount + EXCLUDED.amount, updated_at = EXCLUDED.updated_at
  `;
  return {
    listLedgerEntries: sql`
      SELECT ${ledgerColumns.list}
      FROM ${t.ledger}
      WHERE merchant_id = $1 AND mode = $2
      ORDER BY seq
    `,
    listLedgerEntriesOfAsset: sql`
      SELECT ${ledgerColumns.list}
      FROM ${t.ledger}
      WHERE merchant_id = $1 AND mode = $2 AND asset = $3
      ORDER BY seq
    `,
    // Newest first by posting order; an id of another scope makes the bound NULL, so no row.
    pageLedgerEntries: sql`
      SELECT ${ledgerColumns.list}
      FROM ${t.ledger}
      WHERE merchant_id = $1 AND mode = $2 AND ($3::text IS NULL OR asset = $3)
        AND ($4::text IS NULL OR seq < (SELECT seq FROM ${t.ledger} WHERE id = $4 AND merchant_id = $1 AND mode = $2))
      ORDER BY seq DESC
      LIMIT $5
    `,
    insertLedgerEntry: sql`
      INSERT INTO ${t.ledger} (${ledgerColumns.list})
      VALUES (${ledgerColumns.values})
      ON CONFLICT (cause_key) DO NOTHING
      RETURNING 1
    `,
    // Several entries: one array per column, inserted in the order given.
    insertLedgerEntries: sql`
      INSERT INTO ${t.ledger} (${ledgerColumns.list})
      SELECT ${ledgerColumns.unnested}
      FROM unnest(${ledgerColumns.arrays}) WITH ORDINALITY AS e(${ledgerColumns.list}, n)
      ORDER BY n
      ON CONFLICT (cause_key) DO NOTHING
      RETURNING 1
    `,

    getBalance: sql`
      SELECT amount
      FROM ${t.balances}
      WHERE merchant_id = $1 AND mode = $2 AND asset = $3
    `,
    listBalances: sql`
      SELECT ${balanceColumns.list}
      FROM ${t.balances}
      WHERE merchant_id = $1 AND mode = $2
      ORDER BY asset
    `,
    creditBalance: addToBalance,
    // The check and the debit are one statement on a locked row: two debits queue on the row
    // lock and the second sees the first's result before it tests the balance.
    debitBalance: sql`
      UPDATE ${t.balances}
      SET amount = amount + ${b.amount}::numeric, updated_at = ${b.updatedAt}
      WHERE ${balanceColumns.keyMatch} AND amount + ${b.amount}::numeric >= 0
      RETURNING 1
    `,
    // A reversal of a credit: applied whatever the balance, which may end below zero.
    overdrawBalance: addToBalance,
  };
}
