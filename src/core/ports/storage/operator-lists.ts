import type { MerchantRecord, Mode } from "../../merchants/records";
import type { WebhookDeliveryRecord } from "../../webhooks/records";
import type { PageQuery } from "./scope";

/** Filters of the operator's delivery list, across merchants (`listAllWebhookDeliveries`). */
export interface OperatorDeliveryFilter {
  /** Only this merchant's deliveries. */
  merchantId?: string;
  /** Only this mode's deliveries. */
  mode?: Mode;
  /**
   * Only deliveries that are failing: settled as "failed" (the retry schedule ran out, or the
   * endpoint was deleted or disabled), or "pending" after at least one attempt (waiting for a retry).
   */
  failing?: boolean;
}

/**
 * Reads for the operator (the command line, admin tools), across every merchant and mode: not
 * scoped, never reachable from the merchant API. Paged newest first like every other list.
 * Optional (the `operatorLists` part): without it those lists answer `storage_feature_unavailable`.
 */
export interface OperatorListReads {
  /** One newest-first page of every merchant, in (createdAt, id) order; an `after` naming no merchant gives an empty page. */
  listMerchants(page: PageQuery): Promise<MerchantRecord[]>;
  /**
   * One newest-first page (by insertion, as `listWebhookDeliveries`) of the delivery log of every
   * merchant and mode, matching `filter`; an `after` naming no delivery gives an empty page.
   */
  listAllWebhookDeliveries(filter: OperatorDeliveryFilter, page: PageQuery): Promise<WebhookDeliveryRecord[]>;
}

/** What `Storage.migrate` reports: the schema steps this storage applied, and the version it is at now. */
export interface StorageMigrationReport {
  /** The steps applied by this storage object, oldest first: at open (unless `migrate: false`) and by this call. Empty when it was up to date. */
  applied: Array<{ version: number; name: string }>;
  /** The schema version the database is at now. */
  version: number;
}
