/**
 * Exchanges (conversions) and their event type.
 * Amounts are bigint smallest units of the record's asset; times are epoch milliseconds.
 * Storage adapters persist these shapes as they are.
 */
import type { Mode } from "../merchants/records";

/** Conversion event types: a conversion is atomic, so it only ever completes. */
export const CONVERSION_EVENT_TYPES = ["conversion.completed"] as const;

/** One conversion event type. */
export type ConversionEventType = (typeof CONVERSION_EVENT_TYPES)[number];

/** An exchange between two of a merchant's balances (a /v1 conversion). */
export interface ExchangeRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  status: "SUCCESS";
  fromCoin: string;
  toCoin: string;
  amount: bigint;
  /** Price of 1 `fromCoin` in `toCoin`, scaled by 10^RATE_DECIMALS. */
  rate: bigint;
  toAmount: bigint;
  /** For an auto-conversion: the invoice whose credit was converted; null for one the merchant asked for. */
  invoiceId: string | null;
  createdAt: number;
}
