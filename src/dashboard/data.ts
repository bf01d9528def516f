import type { CoreContext } from "../core/context";
import type { HealthReport } from "../core/health";
import type { OperatorReport, OperatorReportOptions } from "../core/operator-report";
import type { MerchantRecord, Mode } from "../core/ports/records";
import { paymentView, type PaymentView } from "../core/views/payment";
import type { Method } from "../http/route-table";

/** What the dashboard reads and acts through: the /v1 routes in process, and the router's reports. */
export interface DashboardDeps {
  context: CoreContext;
  /**
   * Calls one /v1 route for this merchant and mode, as its API key would (validation and
   * scoping included); `call` names the dashboard user as the requester of what it creates and
   * carries the form's idempotency key.
   */
  v1(merchant: MerchantRecord, mode: Mode, method: Method, path: string, input: unknown, call?: V1Call): Promise<unknown>;
  health(): Promise<HealthReport>;
  operatorReport(options: OperatorReportOptions): Promise<OperatorReport>;
}

/** Who asks through the dashboard, and the idempotency key of the form that asked. */
export interface V1Call {
  /** The requester of what the call creates (`dashboard:<user>`), kept on it and in the audit log. */
  actor?: string;
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
  deps: DashboardDeps,
  merchant: MerchantRecord,
  filters: PaymentFilters,
  cursor: string | undefined,
  limit: number,
): Promise<MergedPage> {
  const query = { status: filters.status, chain: filters.chain, createdFrom: filters.createdFrom, createdTo: filters.createdTo };
  return mergeModes<PaymentView>(filters.mode, cursor, limit, async (mode, after) => {
    const input = Object.fromEntries(Object.entries({ ...query, limit: String(limit), cursor: after }).filter(([, value]) => value));
    return (await deps.v1(merchant, mode, "GET", "/payments", input)) as V1Page<PaymentView>;
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
export async function findPayment(deps: DashboardDeps, merchant: MerchantRecord, id: string): Promise<{ mode: Mode; payment: PaymentView } | null> {
  for (const mode of MODES) {
    const invoice = await deps.context.storage.getInvoice({ merchantId: merchant.id, mode }, id);
    if (invoice) return { mode, payment: (await deps.v1(merchant, mode, "GET", `/payments/${encodeURIComponent(id)}`, {})) as PaymentView };
  }
  return null;
}

/**
 * The payment an address was issued for, in either mode, when it is this merchant's; null
 * otherwise. Addresses are unique per mode and network, so each network of the list is asked.
 */
export async function findPaymentByAddress(deps: DashboardDeps, merchant: MerchantRecord, address: string): Promise<string | null> {
  const networks = new Set(deps.context.currencies.currencies.flatMap((currency) => currency.networks.map((network) => network.network)));
  for (const mode of MODES) {
    for (const network of networks) {
      const found = await deps.context.storage.findAddress(mode, network, address);
      if (found && found.merchantId === merchant.id) return found.invoiceId;
    }
  }
  return null;
}

/** One line of a payment's timeline: an event as it was recorded, with its webhook deliveries. */
export interface TimelineEntry {
  type: string;
  at: string;
  status: string | null;
  deliveries: Array<{ id: string; endpointId: string; status: string; attempts: number }>;
}

/** The events of a payment, oldest first, each with the deliveries it made: what happened to it and who was told. */
export async function paymentTimeline(deps: DashboardDeps, merchant: MerchantRecord, mode: Mode, paymentId: string): Promise<TimelineEntry[]> {
  const scope = { merchantId: merchant.id, mode };
  const events = await deps.context.storage.listEvents(scope, { invoiceId: paymentId });
  return Promise.all(
    events
      .sort((a, b) => a.createdAt - b.createdAt)
      .map(async (event) => ({
        type: event.type,
        at: new Date(event.createdAt).toISOString(),
        status: typeof event.data.status === "string" ? event.data.status : null,
        deliveries: (await deps.context.storage.listWebhookDeliveries(scope, { eventId: event.id }, { limit: 20 })).map((delivery) => ({
          id: delivery.id,
          endpointId: delivery.endpointId,
          status: delivery.status,
          attempts: delivery.attempts,
        })),
      })),
  );
}

/** How many payments a search by order id or transaction hash shows, per mode and kind. */
export const SEARCH_LIMIT = 50;

/**
 * The merchant's payments, in both modes, whose `metadata.orderId` is `text` or that received a
 * deposit in transaction `text`; newest first, without repeats.
 */
export async function searchPayments(deps: DashboardDeps, merchant: MerchantRecord, text: string): Promise<PaymentView[]> {
  const found = await Promise.all(
    MODES.flatMap((mode) =>
      [{ orderId: text }, { txHash: text }].map((filter) =>
        deps.context.storage.listInvoices({ merchantId: merchant.id, mode }, filter, { limit: SEARCH_LIMIT }),
      ),
    ),
  );
  const byId = new Map(found.flat().map((invoice) => [invoice.id, invoice]));
  return [...byId.values()].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).map((invoice) => paymentView(invoice, deps.context.currencies));
}
