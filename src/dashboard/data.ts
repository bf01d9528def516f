import type { PaymentListParams } from "../client/resources";
import type { MerchantRecord, Mode } from "../core/merchants/records";
import type { PaymentView } from "../core/views/payment";
import { CodedError } from "../errors";
import type { DashboardBackend } from "../service/dashboard-backend";

/** Who asks through the dashboard, and the idempotency key of the form that asked. */
export interface FormCall {
  /** The requester of what the call creates (`dashboard:<user>`), kept on it and in the audit log. */
  actor: string;
  /** The `Idempotency-Key` of the call: the same form sent twice replays the first answer. */
  idempotencyKey?: string;
}

/** The modes, in the order pages show them. */
export const MODES: readonly Mode[] = ["live", "test"];

/** Filters of the payments list, as the query string gives them (validated by the /v1 route). */
export interface PaymentFilters {
  status?: string;
  mode?: Mode;
  chain?: string;
  createdFrom?: string;
  createdTo?: string;
}

/** One page of payments of both modes (or one), newest first, with the cursor of the next. */
export interface MergedPage {
  rows: PaymentView[];
  /** Per mode, the id of the last payment shown; null when there is no further page. */
  next: string | null;
}

type V1Page<T> = { data: T[]; hasMore: boolean };

/**
 * Lists payments of several modes as one newest-first list (see {@link mergeModes}).
 */
export async function listPayments(
  backend: DashboardBackend,
  merchant: MerchantRecord,
  filters: PaymentFilters,
  cursor: string | undefined,
  limit: number,
): Promise<MergedPage> {
  const query = { status: filters.status, chain: filters.chain, createdFrom: filters.createdFrom, createdTo: filters.createdTo };
  return mergeModes<PaymentView>(filters.mode, cursor, limit, async (mode, after) => {
    const input = Object.fromEntries(Object.entries({ ...query, limit: String(limit), cursor: after }).filter(([, value]) => value));
    // The query as the page gave it: the /v1 route validates it (a bad value is a 400 page).
    return backend.forMerchant(merchant.id, mode).payments.list(input as PaymentListParams);
  });
}

/**
 * One newest-first list out of each mode's own /v1 list. Each mode has its own cursor, so the
 * page cursor carries one per mode ("live:id,test:id"): each mode's next page starts after the
 * last of its records this page showed, and a mode with nothing left drops out of it.
 */
export async function mergeModes<T extends { id: string; livemode: boolean; createdAt: string | null }>(
  only: Mode | undefined,
  cursor: string | undefined,
  limit: number,
  read: (mode: Mode, after: string | undefined) => Promise<V1Page<T>>,
): Promise<{ rows: T[]; next: string | null }> {
  const after = parseCursor(cursor);
  const modes = only ? [only] : MODES.filter((mode) => after === null || after.has(mode));
  const pages = await Promise.all(modes.map(async (mode) => ({ mode, page: await read(mode, after?.get(mode) || undefined) })));
  const key = (row: T) => `${row.createdAt ?? ""}|${row.id}`;
  const rows = pages
    .flatMap(({ page }) => page.data)
    .sort((a, b) => (key(a) < key(b) ? 1 : -1))
    .slice(0, limit);
  const nextParts: string[] = [];
  for (const { mode, page } of pages) {
    const shown = rows.filter((row) => (row.livemode ? "live" : "test") === mode);
    if (!page.hasMore && shown.length === page.data.length) continue;
    nextParts.push(`${mode}:${shown.at(-1)?.id ?? after?.get(mode) ?? ""}`);
  }
  return { rows, next: nextParts.length ? nextParts.join(",") : null };
}

function parseCursor(cursor: string | undefined): Map<Mode, string> | null {
  if (!cursor) return null;
  const map = new Map<Mode, string>();
  for (const part of cursor.split(",")) {
    const [mode, id] = part.split(":");
    if ((mode === "live" || mode === "test") && id !== undefined) map.set(mode, id);
  }
  return map;
}

/** The payment with this id in either mode of the merchant, or null. */
export async function findPayment(backend: DashboardBackend, merchant: MerchantRecord, id: string): Promise<{ mode: Mode; payment: PaymentView } | null> {
  for (const mode of MODES) {
    try {
      return { mode, payment: await backend.forMerchant(merchant.id, mode).payments.retrieve(id) };
    } catch (error) {
      // Not in this mode's scope (or an id no payment can have): the other mode may have it.
      if (!(error instanceof CodedError) || error.status >= 500) throw error;
    }
  }
  return null;
}

/** How many payments a search by order id or transaction hash shows, per mode and kind. */
export const SEARCH_LIMIT = 50;

export type { TimelineEntry } from "../core/operator/record-lookups";
