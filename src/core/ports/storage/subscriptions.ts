import type { Mode } from "../../merchants/records";
import type { SubscriptionPeriodRecord, SubscriptionRecord, SubscriptionStatus } from "../../subscriptions/records";
import type { PageQuery, Scope } from "./scope";

/** Filters of a subscription list; each one given narrows it. */
export interface SubscriptionFilter {
  status?: SubscriptionStatus;
  /** The merchant's customer reference, exactly. */
  customer?: string;
}

/**
 * Reads of subscriptions and their billing periods. A read given a `Scope` never answers another
 * merchant's or mode's subscription; `findSubscriptionByPayerToken` reaches any, for the payer's page.
 */
export interface SubscriptionReads {
  /** The subscription with this id in `scope`, or null. */
  getSubscription(scope: Scope, id: string): Promise<SubscriptionRecord | null>;
  /** The subscription whose `payerTokenHash` is this hash (any merchant), or null. */
  findSubscriptionByPayerToken(payerTokenHash: string): Promise<SubscriptionRecord | null>;
  /** Subscriptions of `scope` that match `filter`, newest first by (createdAt, id), one page. */
  listSubscriptions(scope: Scope, filter: SubscriptionFilter, page: PageQuery): Promise<SubscriptionRecord[]>;
  /**
   * At most `limit` subscriptions of `mode` (every merchant) that are not cancelled and whose
   * `nextRunAt` is at or before `now`, the longest due first (nextRunAt, then id).
   */
  listDueSubscriptions(mode: Mode, now: number, limit: number): Promise<SubscriptionRecord[]>;
  /** The billing periods of a subscription that have an invoice, by index, newest first, at most `limit`. */
  listSubscriptionPeriods(subscriptionId: string, limit: number): Promise<SubscriptionPeriodRecord[]>;
}

/**
 * Subscriptions, as a transaction sees them: the id and the payer token hash are unique, a
 * subscription changes under `lockSubscription`, and a (subscription, index) period is stored at
 * most once: the insert of a second one does nothing and says so, which is what makes one
 * invoice per period hold across instances sharing a database. Optional with its reads (the
 * `subscriptions` part): without it subscriptions answer `storage_feature_unavailable`.
 */
export interface SubscriptionStore extends SubscriptionReads {
  /** Stores a new subscription. Throws if the id or the token hash exists. */
  insertSubscription(subscription: SubscriptionRecord): Promise<void>;
  /** Locks and returns the subscription with this id (any merchant), or null. */
  lockSubscription(id: string): Promise<SubscriptionRecord | null>;
  /** Replaces the stored subscription with the same id (which must exist: throws otherwise). */
  updateSubscription(subscription: SubscriptionRecord): Promise<void>;
  /**
   * Stores a period unless one with its (subscriptionId, index) exists: true when stored, false
   * (and nothing written) when there was one. Never throws for that conflict, so the caller can
   * roll its transaction back on false.
   */
  insertSubscriptionPeriod(period: SubscriptionPeriodRecord): Promise<boolean>;
  /** Replaces the stored period with the same (subscriptionId, index) (which must exist: throws otherwise). */
  updateSubscriptionPeriod(period: SubscriptionPeriodRecord): Promise<void>;
}
