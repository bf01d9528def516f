import type { BalanceRecord, LedgerEntry } from "../../../core/ledger/records";
import type { LedgerReads, LedgerStore, PostLedgerResult } from "../../../core/ports/storage/index";
import { copy } from "./copy";
import { inScope } from "./query";
import { balanceKey, pushIn, type Run, scopeKey, setIn, type Tables, type Undo, type Writes } from "./tables";

/** The ledger and balances: reads. */
export function ledgerReads(t: Tables, run: Run): LedgerReads {
  return {
    getBalance: (scope, asset) => run("getBalance", () => t.balances.get(balanceKey(scope.merchantId, scope.mode, asset))?.amount ?? 0n),
    listBalances: (scope) =>
      run("listBalances", () =>
        [...t.balances.values()]
          .filter((balance) => inScope(balance, scope))
          .sort((a, b) => (a.asset < b.asset ? -1 : a.asset > b.asset ? 1 : 0))
          .map(copy),
      ),
    listLedgerEntries: (scope, asset) =>
      run("listLedgerEntries", () =>
        (t.ledgerByScope.get(scopeKey(scope.merchantId, scope.mode)) ?? []).filter((entry) => asset === undefined || entry.asset === asset).map(copy),
      ),
    pageLedgerEntries: (scope, query) =>
      run("pageLedgerEntries", () => {
        const posted = t.ledgerByScope.get(scopeKey(scope.merchantId, scope.mode)) ?? [];
        let end = posted.length;
        if (query.before) {
          end = posted.findIndex((entry) => entry.id === query.before);
          if (end === -1) return [];
        }
        const page: LedgerEntry[] = [];
        for (let index = end - 1; index >= 0 && page.length < query.limit; index--) {
          if (query.asset === undefined || posted[index]!.asset === query.asset) page.push(copy(posted[index]!));
        }
        return page;
      }),
  };
}

/** The ledger and balances: writes. */
export function ledgerWrites(t: Tables, run: Run, undo: Undo[]): Writes<LedgerStore, LedgerReads> {
  return {
    postLedgerEntries: (entries, options) => run("postLedgerEntries", () => postLedgerEntries(t, entries, undo, options?.overdraw ?? false)),
  };
}

/** Checks the whole batch first and writes only when it may be posted, so a refusal leaves nothing to undo. */
function postLedgerEntries(t: Tables, entries: LedgerEntry[], undo: Undo[], overdraw: boolean): PostLedgerResult {
  if (entries.some((entry) => t.causeKeys.has(entry.causeKey))) return { status: "duplicate" };
  const batchKeys = new Set<string>();
  for (const entry of entries) {
    if (batchKeys.has(entry.causeKey)) {
      throw new Error(`memoryStorage: postLedgerEntries got causeKey "${entry.causeKey}" twice in one batch`);
    }
    batchKeys.add(entry.causeKey);
  }
  // The balance each touched asset would end with once the whole batch is applied, and the
  // batch's net change to it (only a lowering may be refused).
  const next = new Map<string, BalanceRecord>();
  const deltas = new Map<string, bigint>();
  for (const entry of entries) {
    const key = balanceKey(entry.merchantId, entry.mode, entry.asset);
    let balance = next.get(key);
    if (!balance) {
      const current = t.balances.get(key)?.amount ?? 0n;
      balance = { merchantId: entry.merchantId, mode: entry.mode, asset: entry.asset, amount: current, updatedAt: entry.createdAt };
      next.set(key, balance);
    }
    balance.amount += entry.amount;
    deltas.set(key, (deltas.get(key) ?? 0n) + entry.amount);
    if (entry.createdAt > balance.updatedAt) balance.updatedAt = entry.createdAt;
  }
  for (const [key, balance] of next) {
    if (!overdraw && deltas.get(key)! < 0n && balance.amount < 0n) return { status: "insufficient", asset: balance.asset };
  }
  for (const entry of entries) {
    t.causeKeys.add(entry.causeKey);
    undo.push(() => void t.causeKeys.delete(entry.causeKey));
    pushIn(t.ledgerByScope, scopeKey(entry.merchantId, entry.mode), copy(entry), undo);
  }
  for (const [key, balance] of next) setIn(t.balances, key, balance, undo);
  return { status: "posted" };
}
