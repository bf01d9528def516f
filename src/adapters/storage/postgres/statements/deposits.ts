import type { DepositRecord, UnlistedTransferRecord } from "../../../../core/deposits/records";
import { bigintNumber, bool, col, columns, epochMs, epochMsOrNull, int, numeric, textOrNull } from "./columns";
import { sql } from "./sql";
import type { Tables } from "./tables";

/** The columns of `deposits`. */
export const depositColumns = columns<DepositRecord>({
  id: col("id"),
  merchantId: col("merchant_id"),
  mode: col("mode"),
  invoiceId: col("invoice_id"),
  coin: col("coin"),
  network: col("network"),
  address: col("address"),
  txHash: col("tx_hash"),
  outputIndex: col("output_index", int),
  amount: col("amount", numeric),
  confirmations: col("confirmations", int),
  status: col("status"),
  countsTowardInvoice: col("counts_toward_invoice", bool),
  fee: col("fee", numeric),
  creditedAt: col("credited_at", epochMsOrNull),
  seenAt: col("seen_at", epochMs),
  updatedAt: col("updated_at", epochMs),
  creditedAsset: col("credited_asset", textOrNull),
  creditedAmount: col("credited_amount", numeric),
  reversals: col("reversals", int),
  blockHash: col("block_hash", textOrNull),
});

/** The columns of `unlisted_transfers`. */
export const unlistedTransferColumns = columns<UnlistedTransferRecord>({
  id: col("id"),
  mode: col("mode"),
  network: col("network"),
  token: col("token"),
  address: col("address"),
  txHash: col("tx_hash"),
  logIndex: col("log_index", int),
  amount: col("amount", numeric),
  blockNumber: col("block_number", bigintNumber),
  merchantId: col("merchant_id"),
  invoiceId: col("invoice_id"),
  coin: col("coin"),
  seenAt: col("seen_at", epochMs),
});

/** Deposits, and transfers of tokens no invoice accepts. */
export function depositStatements(t: Tables) {
  const d = depositColumns.param;
  return {
    getDeposit: sql`
      SELECT ${depositColumns.list}
      FROM ${t.deposits}
      WHERE id = $1
    `,
    listDepositsForInvoice: sql`
      SELECT ${depositColumns.list}
      FROM ${t.deposits}
      WHERE invoice_id = $1
      ORDER BY seq
    `,
    // Params: mode, limit, after. An `after` that names no deposit pages from the start, as if none was given.
    listNotableDeposits: sql`
      SELECT ${depositColumns.list}
      FROM ${t.deposits}
      WHERE mode = $1
        AND (reversals > 0 OR NOT counts_toward_invoice)
        AND seq > coalesce((SELECT seq FROM ${t.deposits} WHERE id = $3), 0)
      ORDER BY seq
      LIMIT $2
    `,
    sumPendingDeposits: sql`
      SELECT coin AS asset, sum(amount) AS amount
      FROM ${t.deposits}
      WHERE merchant_id = $1 AND mode = $2 AND status = 'PENDING'
      GROUP BY coin
      ORDER BY coin COLLATE "C"
    `,
    lockDeposit: sql`
      SELECT ${depositColumns.list}
      FROM ${t.deposits}
      WHERE mode = $1 AND network = $2 AND tx_hash = $3 AND output_index = $4
      FOR UPDATE
    `,
    insertDeposit: sql`
      INSERT INTO ${t.deposits} (${depositColumns.list})
      VALUES (${depositColumns.values})
      ON CONFLICT DO NOTHING
      RETURNING 1
    `,
    // A changed chain identity that collides with another deposit's is refused without an error.
    updateDeposit: sql`
      UPDATE ${t.deposits}
      SET ${depositColumns.assignments}
      WHERE ${depositColumns.keyMatch} AND NOT EXISTS (
        SELECT 1 FROM ${t.deposits} o
        WHERE o.mode = ${d.mode} AND o.network = ${d.network} AND o.tx_hash = ${d.txHash} AND o.output_index = ${d.outputIndex} AND o.id <> ${d.id}
      )
    `,
    depositExists: sql`
      SELECT 1
      FROM ${t.deposits}
      WHERE id = $1
    `,

    // A repeated report of the same transfer inserts nothing and is no error.
    insertUnlistedTransfer: sql`
      INSERT INTO ${t.unlisted} (${unlistedTransferColumns.list})
      VALUES (${unlistedTransferColumns.values})
      ON CONFLICT DO NOTHING
      RETURNING 1
    `,
    listUnlistedTransfers: sql`
      SELECT ${unlistedTransferColumns.list}
      FROM ${t.unlisted}
      WHERE mode = $1
      ORDER BY seq
    `,
  };
}
