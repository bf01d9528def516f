import type { AddressRecord } from "../../../../core/deposits/records";
import type { InvoiceRecord } from "../../../../core/invoices/records";
import { bool, col, columns, epochMs, epochMsOrNull, int, jsonOrNull, numeric, numericOrNull, textOrNull } from "./columns";
import { sql } from "./sql";
import type { Tables } from "./tables";

/** The columns of `invoices`. */
export const invoiceColumns = columns<InvoiceRecord>({
  id: col("id"),
  merchantId: col("merchant_id"),
  mode: col("mode"),
  status: col("status"),
  amount: col("amount", numeric),
  amountCurrency: col("amount_currency"),
  acceptedCoins: col("accepted_coins", jsonOrNull<string[]>()),
  coin: col("coin", textOrNull),
  network: col("network", textOrNull),
  address: col("address", textOrNull),
  rate: col("rate", numericOrNull),
  payAmount: col("pay_amount", numericOrNull),
  feePaidByPayer: col("fee_paid_by_payer", bool),
  underPaidCoverTenths: col("under_paid_cover_tenths", int),
  isWhiteLabel: col("is_white_label", bool),
  returnUrl: col("return_url", textOrNull),
  paymentUrl: col("payment_url"),
  metadata: col("metadata", jsonOrNull<Record<string, unknown>>()),
  receivedAmount: col("received_amount", numeric),
  txHash: col("tx_hash", textOrNull),
  late: col("late", bool),
  failureReason: col("failure_reason"),
  expiresAt: col("expires_at", epochMs),
  createdAt: col("created_at", epochMs),
  updatedAt: col("updated_at", epochMs),
  settleCurrency: col("settle_currency", textOrNull),
  paymentLinkId: col("payment_link_id", textOrNull),
  rateAt: col("rate_at", epochMsOrNull),
  rateSources: col("rate_sources", jsonOrNull<string[]>()),
  reversedAmount: col("reversed_amount", numeric),
});

/** The columns of `addresses`, whose rows are found by their (mode, network, address). */
export const addressColumns = columns<AddressRecord>(
  {
    mode: col("mode"),
    network: col("network"),
    address: col("address"),
    coin: col("coin"),
    merchantId: col("merchant_id"),
    invoiceId: col("invoice_id"),
    createdAt: col("created_at", epochMs),
  },
  ["mode", "network", "address"],
);

/** Invoices and the deposit addresses issued for them. */
export function invoiceStatements(t: Tables) {
  return {
    getInvoice: sql`
      SELECT ${invoiceColumns.list}
      FROM ${t.invoices}
      WHERE id = $1
    `,
    listExpiringInvoices: sql`
      SELECT ${invoiceColumns.list}
      FROM ${t.invoices}
      WHERE mode = $1 AND status IN ('PENDING', 'UNDER_PAID') AND expires_at <= $2
      ORDER BY expires_at, id
      LIMIT $3
    `,
    // Sent deferred (a new invoice's id is random): a duplicate fails the transaction instead.
    insertInvoice: sql`
      INSERT INTO ${t.invoices} (${invoiceColumns.list})
      VALUES (${invoiceColumns.values})
    `,
    lockInvoice: sql`
      SELECT ${invoiceColumns.list}
      FROM ${t.invoices}
      WHERE id = $1
      FOR UPDATE
    `,
    updateInvoice: sql`
      UPDATE ${t.invoices}
      SET ${invoiceColumns.assignments}
      WHERE ${invoiceColumns.keyMatch}
    `,

    findAddress: sql`
      SELECT ${addressColumns.list}
      FROM ${t.addresses}
      WHERE mode = $1 AND network = $2 AND address = $3
    `,
    // One array parameter whatever the count: one statement text (prepared once), and the primary
    // key index is walked once per address. Repeats match one row once.
    findAddresses: sql`
      SELECT ${addressColumns.list}
      FROM ${t.addresses}
      WHERE mode = $1 AND network = $2 AND address = ANY($3::text[])
    `,
    insertAddress: sql`
      INSERT INTO ${t.addresses} (${addressColumns.list})
      VALUES (${addressColumns.values})
      ON CONFLICT DO NOTHING
      RETURNING 1
    `,
    updateAddress: sql`
      UPDATE ${t.addresses}
      SET ${addressColumns.assignments}
      WHERE ${addressColumns.keyMatch}
    `,
  };
}
