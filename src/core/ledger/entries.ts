import { formatDecimal } from "../../money";
import type { CoreContext } from "../context";
import type { LedgerEntry } from "./records";
import type { Scope } from "../ports/storage/index";

/** The largest page `listLedgerEntries` answers. */
export const LEDGER_LIST_MAX_LIMIT = 100;

/**
 * The record a ledger entry or an audit entry is about, as far as the merchant can open it: the
 * payment a deposit paid, a withdrawal, a refund (with the payment it gives money back for), a
 * conversion (with the payment it converted, for an auto-conversion).
 */
export type RecordRef =
  | { type: "payment"; id: string }
  | { type: "payout"; id: string }
  | { type: "refund"; id: string; paymentId: string }
  | { type: "conversion"; id: string; paymentId: string | null };

/** A ledger entry as the dashboard shows it: a signed exact decimal, its time in ISO 8601, and its record. */
export interface LedgerLine {
  id: string;
  livemode: boolean;
  /** When it was posted, ISO 8601. */
  createdAt: string;
  /** The balance it changes. */
  currency: string;
  /** Signed decimal string: credits positive, debits start with "-". */
  amount: string;
  kind: LedgerEntry["kind"];
  /** What caused it (`deposit:<id>`, `payout:<id>`, `exchange:<id>:out`...): each cause posts once. */
  cause: string;
  /** The record behind the cause; null when it is no longer stored in this scope. */
  record: RecordRef | null;
}

/** One page of ledger entries, newest first. */
export interface LedgerLinePage {
  data: LedgerLine[];
  /** True when older entries follow: pass the last entry's id as `after`. */
  hasMore: boolean;
}

/** The record behind a payout id in `scope`: a refund or a withdrawal; null when not found there. */
export async function payoutRef(context: CoreContext, scope: Scope, id: string): Promise<RecordRef | null> {
  const payout = await context.storage.getPayout(scope, id);
  if (!payout) return null;
  return payout.refundOf === null ? { type: "payout", id } : { type: "refund", id, paymentId: payout.refundOf };
}

/**
 * The record behind a ledger cause key: `deposit:<id>...` is the deposit's payment, `payout:<id>...`
 * a withdrawal or a refund, `exchange:<id>:...` a conversion. Looked up in `scope`, so another
 * merchant's record is never named; null for a cause of no known shape or a record not found.
 */
export async function causeRef(context: CoreContext, scope: Scope, cause: string): Promise<RecordRef | null> {
  const [kind, id] = cause.split(":");
  if (!id) return null;
  if (kind === "deposit") {
    const deposit = await context.storage.getDeposit(scope, id);
    return deposit ? { type: "payment", id: deposit.invoiceId } : null;
  }
  if (kind === "payout") return payoutRef(context, scope, id);
  if (kind === "exchange") {
    const exchange = await context.storage.getExchange(scope, id);
    return exchange ? { type: "conversion", id, paymentId: exchange.invoiceId } : null;
  }
  return null;
}

/**
 * The ledger entries of one merchant and mode, the last posted first, `limit` (1 to 100) at a
 * time, optionally of one currency; `after` is the id of the last entry of the previous page (an
 * id that names no entry of this scope gives an empty page). Each entry names its record. Each
 * page is one bounded storage read, however long the ledger.
 */
export async function listLedgerEntries(
  context: CoreContext,
  scope: Scope,
  options: { after?: string | null; limit?: number; currency?: string } = {},
): Promise<LedgerLinePage> {
  const limit = options.limit ?? 25;
  if (!Number.isInteger(limit) || limit < 1 || limit > LEDGER_LIST_MAX_LIMIT) {
    throw new TypeError(`listLedgerEntries: limit must be a whole number from 1 to ${LEDGER_LIST_MAX_LIMIT}`);
  }
  // One more than shown says whether an older page follows.
  const entries = await context.storage.pageLedgerEntries(scope, { asset: options.currency, before: options.after ?? null, limit: limit + 1 });
  const data = await Promise.all(
    entries.slice(0, limit).map(async (entry) => ({
      id: entry.id,
      livemode: entry.mode === "live",
      createdAt: new Date(entry.createdAt).toISOString(),
      currency: entry.asset,
      amount: formatDecimal(entry.amount, context.currencies.decimalsOf(entry.asset) ?? 0),
      kind: entry.kind,
      cause: entry.causeKey,
      record: await causeRef(context, scope, entry.causeKey),
    })),
  );
  return { data, hasMore: entries.length > limit };
}
