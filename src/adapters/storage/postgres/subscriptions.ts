import type { SubscriptionReads, SubscriptionStore } from "../../../core/ports/storage/index";
import type { SqlQueryable } from "./sql-client";
import type { Statements } from "./statements/index";
import { type Condition, pagedQuery } from "./statements/paging";
import { subscriptionColumns, subscriptionPeriodColumns } from "./statements/subscriptions";

/** Subscriptions' reads, over a connection (see `sqlReads`). */
export function sqlSubscriptionReads(db: SqlQueryable, s: Statements): SubscriptionReads {
  return {
    getSubscription: async (scope, id) => {
      const row = (await db.query(s.getSubscription, [id])).rows[0];
      return row === undefined || row.merchant_id !== scope.merchantId || row.mode !== scope.mode ? null : subscriptionColumns.read(row);
    },
    findSubscriptionByPayerToken: async (hash) => {
      const row = (await db.query(s.findSubscriptionByPayerToken, [hash])).rows[0];
      return row === undefined ? null : subscriptionColumns.read(row);
    },
    listSubscriptions: async (scope, filter, page) => {
      const conditions: Condition[] = [];
      if (filter.status !== undefined) conditions.push({ sql: "status = ?", value: filter.status });
      if (filter.customer !== undefined) conditions.push({ sql: "customer = ?", value: filter.customer });
      const { text, params } = pagedQuery(subscriptionColumns.list, s.tables.subscriptions, scope, conditions, page);
      return (await db.query(text, params)).rows.map(subscriptionColumns.read);
    },
    listDueSubscriptions: async (mode, now, limit) =>
      (await db.query(s.listDueSubscriptions, [mode, now, Math.max(0, limit)])).rows.map(subscriptionColumns.read),
    listSubscriptionPeriods: async (subscriptionId, limit) =>
      (await db.query(s.listSubscriptionPeriods, [subscriptionId, Math.max(0, limit)])).rows.map(subscriptionPeriodColumns.read),
  };
}

/** Subscriptions' writes, over one transaction's connection (see `sqlWrites`). */
export function sqlSubscriptionWrites(db: SqlQueryable, s: Statements): Omit<SubscriptionStore, keyof SubscriptionReads> {
  return {
    insertSubscription: async (subscription) => {
      if ((await db.query(s.insertSubscription, subscriptionColumns.params(subscription))).rowCount === 0) {
        throw new Error(`postgresStorage: subscription ${subscription.id} (or its payer token) exists already (unique constraint)`);
      }
    },
    lockSubscription: async (id) => {
      const row = (await db.query(s.lockSubscription, [id])).rows[0];
      return row === undefined ? null : subscriptionColumns.read(row);
    },
    updateSubscription: async (subscription) => {
      if ((await db.query(s.updateSubscription, subscriptionColumns.params(subscription))).rowCount === 0) {
        throw new Error(`postgresStorage: cannot update subscription ${subscription.id}: no such record`);
      }
    },
    insertSubscriptionPeriod: async (period) => (await db.query(s.insertSubscriptionPeriod, subscriptionPeriodColumns.params(period))).rowCount > 0,
    updateSubscriptionPeriod: async (period) => {
      if ((await db.query(s.updateSubscriptionPeriod, subscriptionPeriodColumns.params(period))).rowCount === 0) {
        throw new Error(`postgresStorage: cannot update subscription period ${period.subscriptionId}/${period.index}: no such record`);
      }
    },
  };
}
