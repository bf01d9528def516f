import type { SubscriptionPeriodRecord, SubscriptionRecord } from "../../../../core/subscriptions/records";
import { bool, type Codec, col, columns, epochMs, epochMsOrNull, int, jsonOrNull, numeric, textOrNull } from "./columns";
import { sql } from "./sql";
import type { Tables } from "./tables";

/** The interval travels as two columns; this codec keeps the unit's column and the count's next to it. */
const unitColumn: Codec<string> = { read: (value) => value as string, write: (value) => value, cast: "", arrayType: "text[]" };

/** The columns of `subscriptions` (the interval as its own two columns, mapped in `read`/`params` below). */
const stored = columns<Omit<SubscriptionRecord, "interval"> & { intervalUnit: string; intervalCount: number }>({
  id: col("id"),
  merchantId: col("merchant_id"),
  mode: col("mode"),
  customer: col("customer"),
  status: col("status"),
  amount: col("amount", numeric),
  amountCurrency: col("amount_currency"),
  acceptedCoins: col("accepted_coins", jsonOrNull<string[]>()),
  intervalUnit: col("interval_unit", unitColumn),
  intervalCount: col("interval_count", int),
  startAt: col("start_at", epochMs),
  anchorAt: col("anchor_at", epochMs),
  trialEnd: col("trial_end", epochMsOrNull),
  gracePeriodDays: col("grace_period_days", int),
  renewBeforeDays: col("renew_before_days", int),
  payerCanCancel: col("payer_can_cancel", bool),
  cancelAtPeriodEnd: col("cancel_at_period_end", bool),
  currentPeriod: col("current_period", int),
  invoicedThrough: col("invoiced_through", int),
  paidThrough: col("paid_through", int),
  openInvoiceId: col("open_invoice_id", textOrNull),
  cancelledAt: col("cancelled_at", epochMsOrNull),
  cancellationReason: col("cancellation_reason", textOrNull as Codec<SubscriptionRecord["cancellationReason"]>),
  metadata: col("metadata", jsonOrNull<Record<string, unknown>>()),
  paymentUrlPrefix: col("payment_url_prefix"),
  payerTokenHash: col("payer_token_hash"),
  nextRunAt: col("next_run_at", epochMs),
  createdAt: col("created_at", epochMs),
  updatedAt: col("updated_at", epochMs),
});

/** The columns of `subscriptions`, with the record's `interval` in and out. */
export const subscriptionColumns = {
  ...stored,
  read: (row: Record<string, unknown>): SubscriptionRecord => {
    const { intervalUnit, intervalCount, ...rest } = stored.read(row);
    return { ...rest, interval: { unit: intervalUnit as SubscriptionRecord["interval"]["unit"], count: intervalCount } };
  },
  params: (record: SubscriptionRecord): unknown[] => {
    const { interval, ...rest } = record;
    return stored.params({ ...rest, intervalUnit: interval.unit, intervalCount: interval.count });
  },
};

/** The columns of `subscription_periods`, keyed by (subscription, index). */
export const subscriptionPeriodColumns = columns<SubscriptionPeriodRecord>(
  {
    subscriptionId: col("subscription_id"),
    index: col("period_index", int),
    merchantId: col("merchant_id"),
    mode: col("mode"),
    start: col("period_start", epochMs),
    end: col("period_end", epochMs),
    invoiceId: col("invoice_id"),
    amount: col("amount", numeric),
    amountCurrency: col("amount_currency"),
    paidAt: col("paid_at", epochMsOrNull),
    createdAt: col("created_at", epochMs),
  },
  ["subscriptionId", "index"],
);

/** Subscriptions and their periods (the list's pages: `pagedQuery`). */
export function subscriptionStatements(t: Tables) {
  const getSubscription = sql`
    SELECT ${subscriptionColumns.list}
    FROM ${t.subscriptions}
    WHERE id = $1
  `;
  return {
    getSubscription,
    findSubscriptionByPayerToken: sql`
      SELECT ${subscriptionColumns.list}
      FROM ${t.subscriptions}
      WHERE payer_token_hash = $1
    `,
    // Params: mode, now, limit. Walks the partial index subscriptions_due.
    listDueSubscriptions: sql`
      SELECT ${subscriptionColumns.list}
      FROM ${t.subscriptions}
      WHERE mode = $1 AND next_run_at <= $2 AND status <> 'cancelled'
      ORDER BY next_run_at, id
      LIMIT $3
    `,
    listSubscriptionPeriods: sql`
      SELECT ${subscriptionPeriodColumns.list}
      FROM ${t.subscriptionPeriods}
      WHERE subscription_id = $1
      ORDER BY period_index DESC
      LIMIT $2
    `,
    insertSubscription: sql`
      INSERT INTO ${t.subscriptions} (${subscriptionColumns.list})
      VALUES (${subscriptionColumns.values})
      ON CONFLICT DO NOTHING
      RETURNING 1
    `,
    lockSubscription: sql`
      SELECT ${subscriptionColumns.list}
      FROM ${t.subscriptions}
      WHERE id = $1
      FOR UPDATE
    `,
    updateSubscription: sql`
      UPDATE ${t.subscriptions}
      SET ${subscriptionColumns.assignments}
      WHERE ${subscriptionColumns.keyMatch}
    `,
    // Insert-or-nothing on the primary key (subscription_id, period_index): a second instance
    // inserting the same period waits for the first one's transaction, then inserts nothing.
    insertSubscriptionPeriod: sql`
      INSERT INTO ${t.subscriptionPeriods} (${subscriptionPeriodColumns.list})
      VALUES (${subscriptionPeriodColumns.values})
      ON CONFLICT DO NOTHING
      RETURNING 1
    `,
    updateSubscriptionPeriod: sql`
      UPDATE ${t.subscriptionPeriods}
      SET ${subscriptionPeriodColumns.assignments}
      WHERE ${subscriptionPeriodColumns.keyMatch}
    `,
  };
}
