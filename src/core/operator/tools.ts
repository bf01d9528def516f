import type { CoreContext } from "../context";
import type { MerchantRecord, Mode } from "../merchants/records";
import type { WebhookDeliveryRecord } from "../webhooks/records";
import { type OperatorDeliveryFilter, requireStoragePart, type StorageMigrationReport } from "../ports/storage/index";
import { redeliver } from "../webhooks/endpoints";
import { PaymentError } from "../../errors";
import { recordLookups, type RecordLookups } from "./record-lookups";

/** A merchant as the operator's list shows it. */
export interface MerchantSummary {
  /** Its id (`mch_...`, or the one given at creation). */
  id: string;
  /** Its display name. */
  name: string;
  /** The asset its payments settle into, or null (each coin is kept). */
  settleCurrency: string | null;
  /** When it was created (ISO). */
  createdAt: string;
}

/** A webhook delivery as the operator's list shows it: where it stands, without its body. */
export interface DeliverySummary {
  /** The delivery's id: the `webhook-id` its receiver sees. */
  id: string;
  /** The merchant whose event it carries. */
  merchantId: string;
  /** The mode of the event. */
  mode: Mode;
  /** The endpoint it goes to (`we_in_process` for the host's own handlers). */
  endpointId: string;
  /** The event it carries. */
  eventId: string;
  /** The event's type ("payment.completed"). */
  eventType: string;
  /** "pending" (due or waiting for a retry), "succeeded" or "failed" (for good). */
  status: WebhookDeliveryRecord["status"];
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due (ISO), or null once settled. */
  nextAttemptAt: string | null;
  /** The endpoint's HTTP status at the last attempt, or null (none yet, or no answer). */
  lastStatusCode: number | null;
  /** Why the last attempt failed, or null. */
  lastError: string | null;
  /** When it was queued (ISO). */
  createdAt: string;
  /** When it last changed (ISO). */
  updatedAt: string;
}

/** One page of an operator list, newest first: pass `nextCursor` as `after` for the next. */
export interface OperatorPage<T> {
  /** This page's records. */
  data: T[];
  /** Whether another page follows. */
  hasMore: boolean;
  /** The `after` of the next page, or null on the last. */
  nextCursor: string | null;
}

/** Paging of the operator lists: `limit` 1 to 1000 (default 100), `after` the previous page's `nextCursor`. */
export interface OperatorPageOptions {
  /** Records per page, 1 to 1000. Default 100. */
  limit?: number;
  /** The previous page's `nextCursor`: the page after it. */
  after?: string;
}

/**
 * Operator tools across every merchant: the command line's, also for the host's own admin code
 * (the dashboard's reads across modes and merchants among them).
 */
export interface OperatorAdmin extends RecordLookups {
  /** Every merchant, newest first, one page at a time. */
  listMerchants(options?: OperatorPageOptions): Promise<OperatorPage<MerchantSummary>>;
  /**
   * The webhook delivery log across merchants and modes, newest first: with `failing`, only the
   * deliveries that failed for good or wait for a retry after a failed attempt. No bodies.
   */
  listDeliveries(options?: OperatorDeliveryFilter & OperatorPageOptions): Promise<OperatorPage<DeliverySummary>>;
  /**
   * Queues a delivery of any merchant again, as `POST /v1/webhook-deliveries/:id/redeliver` does
   * for its own merchant (same `webhook-id`, attempts starting over; a pending one is left as
   * it is). Rejects as that endpoint does: not found, or its endpoint deleted or disabled.
   */
  redeliver(deliveryId: string): Promise<DeliverySummary>;
  /**
   * Makes the next deposit sync of the live chain `network` ("ETH", "LTC", or its feed
   * "evm:ETH") read again from block `fromHeight`; what is found again is applied
   * idempotently. Rejects naming the live chains when none is `network`, or when that chain
   * cannot rescan.
   */
  rescan(network: string, fromHeight: number): Promise<void>;
  /**
   * Brings the storage's schema up to date and reports the steps applied (see
   * `Storage.migrate`), or null for a storage with nothing to migrate (memory).
   */
  migrate(): Promise<StorageMigrationReport | null>;
}

const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());

/** What the operator sees of a delivery. */
export function deliverySummary(record: WebhookDeliveryRecord): DeliverySummary {
  return {
    id: record.id,
    merchantId: record.merchantId,
    mode: record.mode,
    endpointId: record.endpointId,
    eventId: record.eventId,
    eventType: record.eventType,
    status: record.status,
    attempts: record.attempts,
    nextAttemptAt: iso(record.nextAttemptAt),
    lastStatusCode: record.lastStatusCode,
    lastError: record.lastError,
    createdAt: new Date(record.createdAt).toISOString(),
    updatedAt: new Date(record.updatedAt).toISOString(),
  };
}

function merchantSummary(record: MerchantRecord): MerchantSummary {
  return { id: record.id, name: record.name, settleCurrency: record.settleCurrency, createdAt: new Date(record.createdAt).toISOString() };
}

function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new RangeError("limit must be a whole number from 1 to 1000");
  return limit;
}

/** One more record than asked tells whether another page follows. */
async function paged<R extends { id: string }, T>(limit: number, read: (limit: number) => Promise<R[]>, view: (record: R) => T): Promise<OperatorPage<T>> {
  const rows = await read(limit + 1);
  const data = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { data: data.map(view), hasMore, nextCursor: hasMore ? data.at(-1)!.id : null };
}

/** The live chain `network` names: its network ("ETH") or its feed ("evm:ETH"). */
function liveChain(context: CoreContext, network: string) {
  const chains = context.chains.all("live");
  const feed = (chain: (typeof chains)[number]) => chain.feedId ?? chain.name;
  const found = chains.find((chain) => feed(chain) === network || feed(chain).split(":").at(-1) === network);
  if (!found) {
    const known = chains.map(feed).join(", ") || "none";
    throw new TypeError(`rescan: no live chain ${JSON.stringify(network)} (live chains: ${known})`);
  }
  return found;
}

/** The operator tools over the router's context. */
export function operatorAdmin(context: CoreContext): OperatorAdmin {
  return {
    ...recordLookups(context),
    listMerchants: async (options = {}) =>
      paged(
        pageLimit(options.limit),
        (limit) => requireStoragePart(context.storage, "operatorLists", "Listing merchants").listMerchants({ limit, after: options.after ?? null }),
        merchantSummary,
      ),
    listDeliveries: async (options = {}) => {
      const { limit, after, ...filter } = options;
      const storage = requireStoragePart(context.storage, "operatorLists", "Listing webhook deliveries across merchants");
      if (filter.mode !== undefined && filter.mode !== "test" && filter.mode !== "live") throw new TypeError('mode must be "test" or "live"');
      return paged(pageLimit(limit), (rows) => storage.listAllWebhookDeliveries(filter, { limit: rows, after: after ?? null }), deliverySummary);
    },
    redeliver: async (deliveryId) => {
      // The delivery's scope never changes: read it, then redeliver as its merchant would.
      const found = await context.storage.transaction((tx) => tx.lockWebhookDelivery(deliveryId));
      if (!found) throw new PaymentError("not_found", `No webhook delivery with id ${JSON.stringify(deliveryId)} exists.`);
      return deliverySummary(await redeliver(context, { merchantId: found.merchantId, mode: found.mode }, deliveryId));
    },
    rescan: async (network, fromHeight) => {
      if (!Number.isSafeInteger(fromHeight) || fromHeight < 0) throw new RangeError("rescan: fromHeight must be a block height (a whole number from 0)");
      const chain = liveChain(context, network);
      if (!chain.rescan) throw new TypeError(`rescan: the live chain ${chain.feedId ?? chain.name} cannot rescan (its adapter has no rescan())`);
      await chain.rescan(fromHeight);
    },
    migrate: async () => (context.storage.migrate ? context.storage.migrate() : null),
  };
}
