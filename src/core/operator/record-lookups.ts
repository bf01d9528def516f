import type { CoreContext } from "../context";
import { listLedgerEntries, type LedgerLinePage } from "../ledger/entries";
import type { Mode } from "../merchants/records";
import type { PayoutRecord } from "../payouts/records";
import { paymentView, type PaymentView } from "../views/payment";

/**
 * Reads of one merchant's records across both modes, and of the payouts waiting for approval
 * across merchants: what an admin screen needs and the /v1 API (one key, one mode) does not
 * offer. Each read stays inside the merchant it names: another merchant's record is not found.
 */

/** The modes, in the order the lookups try them. */
const MODES: readonly Mode[] = ["live", "test"];

/** One line of a record's history: an event as it was recorded, with its webhook deliveries. */
export interface TimelineEntry {
  /** The event's type ("payment.completed"). */
  type: string;
  /** When it was recorded (ISO). */
  at: string;
  /** The record's status the event carried, or null. */
  status: string | null;
  /** Its deliveries (at most 20), each to one endpoint. */
  deliveries: Array<{ id: string; endpointId: string; status: string; attempts: number }>;
}

/** Payouts held for approval, and whether a list was cut at its limit. */
export interface HeldPayouts {
  /** Withdrawals and refunds AWAITING_APPROVAL. */
  payouts: PayoutRecord[];
  /** True when some list had more than the limit. */
  more: boolean;
}

/** The admin reads across modes and merchants (see the methods of the same names on `PaymentAdmin`). */
export interface RecordLookups {
  /**
   * The payment a deposit address was issued for, in either mode, when it is this merchant's:
   * its id and mode; null otherwise (another merchant's address reads as unknown).
   */
  findPaymentByAddress(merchantId: string, address: string): Promise<{ mode: Mode; paymentId: string } | null>;
  /**
   * The merchant's payments of both modes whose `metadata.orderId` is `text` or that received a
   * deposit in transaction `text`, as the /v1 API shows them; newest first, without repeats,
   * at most `limit` (default 50) per mode and kind of match.
   */
  searchPayments(merchantId: string, text: string, options?: { limit?: number }): Promise<PaymentView[]>;
  /**
   * The events of one record (a payment or a payout) in one mode of the merchant, oldest first,
   * each with the webhook deliveries it made: what happened to it and who was told.
   */
  recordTimeline(merchantId: string, mode: Mode, recordId: string): Promise<TimelineEntry[]>;
  /** The payout (withdrawal or refund) with this id in either mode of the merchant, or null. */
  findPayout(merchantId: string, payoutId: string): Promise<PayoutRecord | null>;
  /**
   * The merchant's withdrawals and refunds AWAITING_APPROVAL in both modes, newest first, at
   * most `limit` (default 50) of each kind and mode.
   */
  listHeldPayouts(merchantId: string, options?: { limit?: number }): Promise<HeldPayouts>;
  /**
   * The withdrawals and refunds AWAITING_APPROVAL of every merchant, both modes, the longest
   * waiting first: at most `limit` (default 100) per mode.
   */
  listAllHeldPayouts(options?: { limit?: number }): Promise<HeldPayouts>;
  /**
   * One page of the merchant's ledger entries in one mode, newest first (`after` an entry id
   * for the next page; `currency` keeps one balance's).
   */
  listLedgerEntries(merchantId: string, mode: Mode, options?: { after?: string | null; limit?: number; currency?: string }): Promise<LedgerLinePage>;
}

const newestFirst = (a: { createdAt: number; id: string }, b: { createdAt: number; id: string }) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1);

/** The lookups over the router's context. */
export function recordLookups(context: CoreContext): RecordLookups {
  const { storage } = context;
  return {
    findPaymentByAddress: async (merchantId, address) => {
      // Addresses are unique per mode and network, so each network of the list is asked.
      const networks = new Set(context.currencies.currencies.flatMap((currency) => currency.networks.map((network) => network.network)));
      for (const mode of MODES) {
        for (const network of networks) {
          const found = await storage.findAddress(mode, network, address);
          if (found && found.merchantId === merchantId) return { mode, paymentId: found.invoiceId };
        }
      }
      return null;
    },
    searchPayments: async (merchantId, text, options = {}) => {
      const limit = options.limit ?? 50;
      const found = await Promise.all(
        MODES.flatMap((mode) => [{ orderId: text }, { txHash: text }].map((filter) => storage.listInvoices({ merchantId, mode }, filter, { limit }))),
      );
      const byId = new Map(found.flat().map((invoice) => [invoice.id, invoice]));
      return [...byId.values()].sort(newestFirst).map((invoice) => paymentView(invoice, context.currencies));
    },
    recordTimeline: async (merchantId, mode, recordId) => {
      const scope = { merchantId, mode };
      const events = await storage.listEvents(scope, { invoiceId: recordId });
      return Promise.all(
        events
          .sort((a, b) => a.createdAt - b.createdAt)
          .map(async (event) => ({
            type: event.type,
            at: new Date(event.createdAt).toISOString(),
            status: typeof event.data.status === "string" ? event.data.status : null,
            deliveries: (await storage.listWebhookDeliveries(scope, { eventId: event.id }, { limit: 20 })).map((delivery) => ({
              id: delivery.id,
              endpointId: delivery.endpointId,
              status: delivery.status,
              attempts: delivery.attempts,
            })),
          })),
      );
    },
    findPayout: async (merchantId, payoutId) => {
      for (const mode of MODES) {
        const payout = await storage.getPayout({ merchantId, mode }, payoutId);
        if (payout) return payout;
      }
      return null;
    },
    listHeldPayouts: async (merchantId, options = {}) => {
      const limit = options.limit ?? 50;
      // Refunds are held like withdrawals: a refund is money leaving to an address too.
      const lists = await Promise.all(
        MODES.flatMap((mode) =>
          (["payout", "refund"] as const).map((kind) => storage.listPayouts({ merchantId, mode }, { kind, status: "AWAITING_APPROVAL" }, { limit: limit + 1 })),
        ),
      );
      return { payouts: lists.flatMap((list) => list.slice(0, limit)).sort(newestFirst), more: lists.some((list) => list.length > limit) };
    },
    listAllHeldPayouts: async (options = {}) => {
      const limit = options.limit ?? 100;
      const lists = await Promise.all(MODES.map((mode) => storage.listPayoutsByStatus(mode, "AWAITING_APPROVAL", limit + 1)));
      const payouts = lists.flatMap((list) => list.slice(0, limit)).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
      return { payouts, more: lists.some((list) => list.length > limit) };
    },
    listLedgerEntries: (merchantId, mode, options = {}) => listLedgerEntries(context, { merchantId, mode }, options),
  };
}
