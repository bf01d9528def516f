import type { ExchangeRecord } from "../../exchanges/records";
import type { PageQuery, Scope } from "./scope";

/** Reads of exchanges (the /v1 conversions), each confined to its `Scope`. */
export interface ExchangeReads {
  /** The exchange with this id if it belongs to `scope`, else null. */
  getExchange(scope: Scope, id: string): Promise<ExchangeRecord | null>;
  /** Exchanges of `scope`, newest first by (createdAt, id), one page. */
  listExchanges(scope: Scope, page: PageQuery): Promise<ExchangeRecord[]>;
}

/**
 * Exchanges, as a transaction sees them: a record of a conversion between two balances, written
 * once (the id is unique) in the transaction whose ledger entries move the money, and never
 * changed after.
 */
export interface ExchangeStore extends ExchangeReads {
  /** Stores a new exchange. Throws if the id exists. */
  insertExchange(exchange: ExchangeRecord): Promise<void>;
}
