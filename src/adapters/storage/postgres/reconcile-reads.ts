import type { BalanceTotal, DepositTotal, PayoutTotal, ReconcileReads, UnlistedTotal } from "../../../core/ports/storage/index";
import type { SqlQueryable } from "./sql-client";
import { bool, int, numeric, type Row } from "./statements/columns";
import type { Statements } from "./statements/index";

const total = (row: Row) => ({ count: int.read(row.count), amount: numeric.read(row.amount) });
/** A total grouped by network, coin and status, as the deposit and payout totals both are. */
const byStatus = <S>(row: Row) => ({ network: row.network as string, coin: row.coin as string, status: row.status as S, ...total(row) });

/** The aggregate reads for reconciliation, over a connection (the pool, or a transaction's). */
export function sqlReconcileReads(db: SqlQueryable, s: Statements): ReconcileReads {
  const rows = async (text: string, mode: string) => (await db.query(text, [mode])).rows;
  return {
    depositTotals: async (mode) =>
      (await rows(s.depositTotals, mode)).map(
        (row): DepositTotal => ({ ...byStatus<DepositTotal["status"]>(row), stray: bool.read(row.stray), fee: numeric.read(row.fee) }),
      ),
    payoutTotals: async (mode) =>
      (await rows(s.payoutTotals, mode)).map(
        (row): PayoutTotal => ({ ...byStatus<PayoutTotal["status"]>(row), sent: bool.read(row.sent), fee: numeric.read(row.fee) }),
      ),
    balanceTotals: async (mode) =>
      (await rows(s.balanceTotals, mode)).map(
        (row): BalanceTotal => ({
          asset: row.asset as string,
          amount: numeric.read(row.amount),
          deficits: int.read(row.deficits),
          deficit: numeric.read(row.deficit),
        }),
      ),
    unlistedTotals: async (mode) =>
      (await rows(s.unlistedTotals, mode)).map((row): UnlistedTotal => ({ network: row.network as string, token: row.token as string, ...total(row) })),
  };
}
