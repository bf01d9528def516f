import type { SubscriptionPeriodRecord, SubscriptionRecord } from "../../../core/subscriptions/records";
import type { SubscriptionFilter, SubscriptionReads, SubscriptionStore } from "../../../core/ports/storage/index";
import { copyJson } from "./copy";
import { page, pick, scoped } from "./query";
import { conflict, missing, type Run, scopeKey, setIn, type Tables, type Undo, type Writes } from "./tables";

/** A copy of a subscription, its lists, interval and metadata included. */
const copySubscription = (subscription: SubscriptionRecord): SubscriptionRecord => ({
  ...subscription,
  interval: { ...subscription.interval },
  acceptedCoins: subscription.acceptedCoins ? [...subscription.acceptedCoins] : null,
  metadata: subscription.metadata ? copyJson(subscription.metadata) : null,
});

const copyPeriod = (period: SubscriptionPeriodRecord): SubscriptionPeriodRecord => ({ ...period });

// NUL cannot appear in ids, so the joined key never collides.
const periodKey = (subscriptionId: string, index: number): string => `${subscriptionId}\u0000${index}`;

const matches = (subscription: SubscriptionRecord, filter: SubscriptionFilter): boolean =>
  (filter.status === undefined || subscription.status === filter.status) && (filter.customer === undefined || subscription.customer === filter.customer);

/** Subscriptions: reads. The due list and the token lookup scan: fine for the reference adapter. */
export function subscriptionReads(t: Tables, run: Run): SubscriptionReads {
  return {
    getSubscription: (scope, id) => run("getSubscription", () => scoped(t.subscriptions.get(id), scope, copySubscription)),
    findSubscriptionByPayerToken: (hash) =>
      run("findSubscriptionByPayerToken", () =>
        pick(
          [...t.subscriptions.values()].find((subscription) => subscription.payerTokenHash === hash),
          copySubscription,
        ),
      ),
    listSubscriptions: (scope, filter, query) =>
      run("listSubscriptions", () =>
        page(t.subscriptionOrder, t.subscriptions, scope, query, (subscription) => (matches(subscription, filter) ? copySubscription(subscription) : null)),
      ),
    listDueSubscriptions: (mode, now, limit) =>
      run("listDueSubscriptions", () =>
        [...t.subscriptions.values()]
          .filter((subscription) => subscription.mode === mode && subscription.status !== "cancelled" && subscription.nextRunAt <= now)
          .sort((a, b) => a.nextRunAt - b.nextRunAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .slice(0, Math.max(0, limit))
          .map(copySubscription),
      ),
    listSubscriptionPeriods: (subscriptionId, limit) =>
      run("listSubscriptionPeriods", () =>
        [...t.subscriptionPeriods.values()]
          .filter((period) => period.subscriptionId === subscriptionId)
          .sort((a, b) => b.index - a.index)
          .slice(0, Math.max(0, limit))
          .map(copyPeriod),
      ),
  };
}

/** Subscriptions: writes. */
export function subscriptionWrites(t: Tables, run: Run, undo: Undo[]): Writes<SubscriptionStore, SubscriptionReads> {
  return {
    insertSubscription: (subscription) =>
      run("insertSubscription", () => {
        if (t.subscriptions.has(subscription.id)) conflict(`subscription ${subscription.id}`);
        for (const other of t.subscriptions.values()) if (other.payerTokenHash === subscription.payerTokenHash) conflict("subscription payer token");
        setIn(t.subscriptions, subscription.id, copySubscription(subscription), undo);
        undo.push(t.subscriptionOrder.add(scopeKey(subscription.merchantId, subscription.mode), subscription));
      }),
    lockSubscription: (id) => run("lockSubscription", () => pick(t.subscriptions.get(id), copySubscription)),
    updateSubscription: (subscription) =>
      run("updateSubscription", () => {
        if (!t.subscriptions.has(subscription.id)) missing(`subscription ${subscription.id}`);
        setIn(t.subscriptions, subscription.id, copySubscription(subscription), undo);
      }),
    insertSubscriptionPeriod: (period) =>
      run("insertSubscriptionPeriod", () => {
        const key = periodKey(period.subscriptionId, period.index);
        if (t.subscriptionPeriods.has(key)) return false;
        setIn(t.subscriptionPeriods, key, copyPeriod(period), undo);
        return true;
      }),
    updateSubscriptionPeriod: (period) =>
      run("updateSubscriptionPeriod", () => {
        const key = periodKey(period.subscriptionId, period.index);
        if (!t.subscriptionPeriods.has(key)) missing(`subscription period ${period.subscriptionId}/${period.index}`);
        setIn(t.subscriptionPeriods, key, copyPeriod(period), undo);
      }),
  };
}
