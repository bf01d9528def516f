import type { BalanceTotal, DepositTotal, PayoutTotal, ReconcileReads, RecordTotal, UnlistedTotal } from "../../../core/ports/storage/index";
import type { Run, Tables } from "./tables";

/** Compares rows by their key columns, in the order given (strings by code unit, false before true). */
function byKeys<T>(keys: ReadonlyArray<keyof T>): (a: T, b: T) => number {
  return (a, b) => {
    for (const key of keys) {
      const [x, y] = [a[key], b[key]];
      if (x < y) return -1;
      if (x > y) return 1;
    }
    return 0;
  };
}

/**
 * Sums `records` into one row per key: `key` names the group, `start` makes its row, `amount`
 * is what each record adds (and may add other sums of its own to the row).
 */
function totals<R, T extends RecordTotal>(
  records: Iterable<R>,
  key: (record: R) => string,
  start: (record: R) => T,
  amount: (record: R, row: T) => bigint,
): T[] {
  const rows = new Map<string, T>();
  for (const record of records) {
    const k = key(record);
    let row = rows.get(k);
    if (!row) rows.set(k, (row = start(record)));
    row.count += 1;
    row.amount += amount(record, row);
  }
  return [...rows.values()];
}

/** Aggregate reads for reconciliation, summed over the tables in memory. */
export function reconcileReads(t: Tables, run: Run): ReconcileReads {
  return {
    depositTotals: (mode) =>
      run("depositTotals", () => {
        const deposits = [...t.deposits.values()].filter((deposit) => deposit.mode === mode);
        const stray = (coin: string, invoiceId: string) => t.invoices.get(invoiceId)?.coin !== coin;
        return totals<(typeof deposits)[number], DepositTotal>(
          deposits,
          (d) => [d.network, d.coin, d.status, stray(d.coin, d.invoiceId)].join("\u0000"),
          (d) => ({ network: d.network, coin: d.coin, status: d.status, stray: stray(d.coin, d.invoiceId), count: 0, amount: 0n, fee: 0n }),
          (d, row) => {
            row.fee += d.fee;
            return d.amount;
          },
        ).sort(byKeys<DepositTotal>(["network", "coin", "status", "stray"]));
      }),
    payoutTotals: (mode) =>
      run("payoutTotals", () =>
        totals<{ network: string; coin: string; status: PayoutTotal["status"]; txHash: string | null; amount: bigint; fee: bigint }, PayoutTotal>(
          [...t.payouts.values()].filter((payout) => payout.mode === mode),
          (p) => [p.network, p.coin, p.status, p.txHash !== null].join("\u0000"),
          (p) => ({ network: p.network, coin: p.coin, status: p.status, sent: p.txHash !== null, count: 0, amount: 0n, fee: 0n }),
          (p, row) => {
            row.fee += p.fee;
            return p.amount;
          },
        ).sort(byKeys<PayoutTotal>(["network", "coin", "status", "sent"])),
      ),
    balanceTotals: (mode) =>
      run("balanceTotals", () => {
        const rows = new Map<string, BalanceTotal>();
        for (const balance of t.balances.values()) {
          if (balance.mode !== mode) continue;
          let row = rows.get(balance.asset);
          if (!row) rows.set(balance.asset, (row = { asset: balance.asset, amount: 0n, deficits: 0, deficit: 0n }));
          row.amount += balance.amount;
          if (balance.amount < 0n) {
            row.deficits += 1;
            row.deficit += balance.amount;
          }
        }
        return [...rows.values()].sort(byKeys<BalanceTotal>(["asset"]));
      }),
    unlistedTotals: (mode) =>
      run("unlistedTotals", () =>
        totals<{ network: string; token: string; amount: bigint; mode: string }, UnlistedTotal>(
          [...t.unlistedTransfers.values()].filter((transfer) => transfer.mode === mode),
          (u) => `${u.network}\u0000${u.token}`,
          (u) => ({ network: u.network, token: u.token, count: 0, amount: 0n }),
          (u) => u.amount,
        ).sort(byKeys<UnlistedTotal>(["network", "token"])),
      ),
  };
}
