import type { PaymentLinkRecord } from "../../../../core/payment-links/records";
import { bool, col, columns, epochMs, int, jsonOrNull, numeric, textOrNull } from "./columns";
import { sql } from "./sql";
import type { Tables } from "./tables";

/** The columns of `payment_links`. */
export const paymentLinkColumns = columns<PaymentLinkRecord>({
  id: col("id"),
  merchantId: col("merchant_id"),
  mode: col("mode"),
  amount: col("amount", numeric),
  amountCurrency: col("amount_currency"),
  acceptedCoins: col("accepted_coins", jsonOrNull<string[]>()),
  feePaidByPayer: col("fee_paid_by_payer", bool),
  underPaidCoverTenths: col("under_paid_cover_tenths", int),
  lifeTimeMinutes: col("life_time_minutes", int),
  returnUrl: col("return_url", textOrNull),
  metadata: col("metadata", jsonOrNull<Record<string, unknown>>()),
  settleCurrency: col("settle_currency", textOrNull),
  active: col("active", bool),
  createdAt: col("created_at", epochMs),
  updatedAt: col("updated_at", epochMs),
});

/** Payment links (their pages: `pagedQuery`). */
export function paymentLinkStatements(t: Tables) {
  const getPaymentLink = sql`
    SELECT ${paymentLinkColumns.list}
    FROM ${t.paymentLinks}
    WHERE id = $1
  `;
  return {
    getPaymentLink,
    findPaymentLink: getPaymentLink,
    insertPaymentLink: sql`
      INSERT INTO ${t.paymentLinks} (${paymentLinkColumns.list})
      VALUES (${paymentLinkColumns.values})
      ON CONFLICT DO NOTHING
      RETURNING 1
    `,
    lockPaymentLink: sql`
      SELECT ${paymentLinkColumns.list}
      FROM ${t.paymentLinks}
      WHERE id = $1
      FOR UPDATE
    `,
    updatePaymentLink: sql`
      UPDATE ${t.paymentLinks}
      SET ${paymentLinkColumns.assignments}
      WHERE ${paymentLinkColumns.keyMatch}
    `,
  };
}
