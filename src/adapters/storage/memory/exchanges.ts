import type { ExchangeReads, ExchangeStore } from "../../../core/ports/storage/index";
import { copy } from "./copy";
import { page, scoped } from "./query";
import { conflict, type Run, scopeKey, setIn, type Tables, type Undo, type Writes } from "./tables";

/** Exchanges: reads. */
export function exchangeReads(t: Tables, run: Run): ExchangeReads {
  return {
    getExchange: (scope, id) => run("getExchange", () => scoped(t.exchanges.get(id), scope, copy)),
    listExchanges: (scope, query) => run("listExchanges", () => page(t.exchangeOrder, t.exchanges, scope, query, copy)),
  };
}

/** Exchanges: writes. */
export function exchangeWrites(t: Tables, run: Run, undo: Undo[]): Writes<ExchangeStore, ExchangeReads> {
  return {
    insertExchange: (exchange) =>
      run("insertExchange", () => {
        if (t.exchanges.has(exchange.id)) conflict(`exchange ${exchange.id}`);
        setIn(t.exchanges, exchange.id, copy(exchange), undo);
        undo.push(t.exchangeOrder.add(scopeKey(exchange.merchantId, exchange.mode), exchange));
      }),
  };
}
