import type { DepositRecord } from "../../../core/deposits/records";
import type { DepositReads, DepositStore, NotableDepositReads } from "../../../core/ports/storage/index";
import { copy } from "./copy";
import { inScope, pick, scoped } from "./query";
import { chainKey, conflict, deleteIn, missing, pushIn, type Run, setIn, type Tables, type Undo, type Writes } from "./tables";

/** Deposits: reads. */
export function depositReads(t: Tables, run: Run): DepositReads & NotableDepositReads {
  return {
    getDeposit: (scope, id) => run("getDeposit", () => scoped(t.deposits.get(id), scope, copy)),
    listDepositsForInvoice: (invoiceId) =>
      run("listDepositsForInvoice", () => (t.depositIdsByInvoice.get(invoiceId) ?? []).flatMap((id) => t.deposits.get(id) ?? []).map(copy)),
    listNotableDeposits: (mode, query) =>
      run("listNotableDeposits", () => {
        const all = [...t.deposits.values()];
        const start = query.after ? all.findIndex((deposit) => deposit.id === query.after) + 1 : 0;
        return all
          .slice(start)
          .filter((deposit) => deposit.mode === mode && (deposit.reversals > 0 || !deposit.countsTowardInvoice))
          .slice(0, query.limit)
          .map(copy);
      }),
    sumPendingDeposits: (scope) =>
      run("sumPendingDeposits", () => {
        const sums = new Map<string, bigint>();
        for (const deposit of t.deposits.values()) {
          if (deposit.status === "PENDING" && inScope(deposit, scope)) sums.set(deposit.coin, (sums.get(deposit.coin) ?? 0n) + deposit.amount);
        }
        return [...sums].sort(([a], [b]) => (a < b ? -1 : 1)).map(([asset, amount]) => ({ asset, amount }));
      }),
  };
}

/** Deposits: writes. */
export function depositWrites(t: Tables, run: Run, undo: Undo[]): Writes<DepositStore, DepositReads> {
  return {
    lockDeposit: (mode, network, txHash, outputIndex) =>
      run("lockDeposit", () => {
        const id = t.depositIdByChainKey.get(chainKey(mode, network, txHash, outputIndex));
        return id === undefined ? null : pick(t.deposits.get(id), copy);
      }),
    insertDeposit: (deposit) =>
      run("insertDeposit", () => {
        const key = chainKey(deposit.mode, deposit.network, deposit.txHash, deposit.outputIndex);
        if (t.depositIdByChainKey.has(key)) {
          conflict(`deposit ${deposit.txHash}:${deposit.outputIndex} on ${deposit.network} (${deposit.mode})`);
        }
        if (t.deposits.has(deposit.id)) conflict(`deposit ${deposit.id}`);
        setIn(t.deposits, deposit.id, copy(deposit), undo);
        setIn(t.depositIdByChainKey, key, deposit.id, undo);
        pushIn(t.depositIdsByInvoice, deposit.invoiceId, deposit.id, undo);
      }),
    updateDeposit: (deposit) => run("updateDeposit", () => updateDeposit(t, deposit, undo)),
  };
}

/** Replaces a deposit, moving its chain identity and its invoice's list entry when they changed. */
function updateDeposit(t: Tables, deposit: DepositRecord, undo: Undo[]): void {
  const stored = t.deposits.get(deposit.id);
  if (!stored) missing(`deposit ${deposit.id}`);
  const oldKey = chainKey(stored.mode, stored.network, stored.txHash, stored.outputIndex);
  const newKey = chainKey(deposit.mode, deposit.network, deposit.txHash, deposit.outputIndex);
  if (newKey !== oldKey) {
    if (t.depositIdByChainKey.has(newKey)) conflict(`deposit ${deposit.txHash}:${deposit.outputIndex}`);
    deleteIn(t.depositIdByChainKey, oldKey, undo);
    setIn(t.depositIdByChainKey, newKey, deposit.id, undo);
  }
  if (deposit.invoiceId !== stored.invoiceId) {
    // Fresh arrays, so the undo restores the old ones untouched.
    const from = t.depositIdsByInvoice.get(stored.invoiceId) ?? [];
    setIn(
      t.depositIdsByInvoice,
      stored.invoiceId,
      from.filter((id) => id !== deposit.id),
      undo,
    );
    const to = t.depositIdsByInvoice.get(deposit.invoiceId) ?? [];
    setIn(t.depositIdsByInvoice, deposit.invoiceId, [...to, deposit.id], undo);
  }
  setIn(t.deposits, deposit.id, copy(deposit), undo);
}
