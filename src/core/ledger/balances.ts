import type { Scope } from "../ports/storage/index";
import type { CoreContext } from "../context";

/** One asset of a merchant: what can be spent, what is on its way, and when it last moved. */
export interface AssetBalance {
  asset: string;
  /** Credited and spendable (payouts, conversions, refunds draw on it). */
  available: bigint;
  /** Seen on chain but not yet confirmed: gross, before the fee, not spendable yet. */
  pending: bigint;
  /** When the ledger last changed this balance; null if it never did. */
  lastSettledAt: number | null;
}

/**
 * Every currency of the list (zero where nothing was received) plus any asset still held that
 * has since left the list, so a merchant always sees the same set of rows.
 */
export async function balanceSheet(context: CoreContext, scope: Scope): Promise<AssetBalance[]> {
  const [balances, pending] = await Promise.all([context.storage.listBalances(scope), context.storage.sumPendingDeposits(scope)]);
  const assets = new Set([...context.currencies.currencies.map((currency) => currency.symbol), ...balances.map((balance) => balance.asset)]);
  return [...assets].map((asset) => {
    const balance = balances.find((entry) => entry.asset === asset);
    return {
      asset,
      available: balance?.amount ?? 0n,
      pending: pending.find((entry) => entry.asset === asset)?.amount ?? 0n,
      lastSettledAt: balance?.updatedAt ?? null,
    };
  });
}
