/**
 * The payment link record.
 * Amounts are bigint smallest units of the record's asset; times are epoch milliseconds.
 * Storage adapters persist these shapes as they are.
 */
import type { Mode } from "../merchants/records";

/** A reusable link: each payer who continues from its public page gets a fresh hosted invoice from these settings. */
export interface PaymentLinkRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  amount: bigint;
  amountCurrency: string;
  acceptedCoins: string[] | null;
  feePaidByPayer: boolean;
  underPaidCoverTenths: number;
  lifeTimeMinutes: number;
  returnUrl: string | null;
  metadata: Record<string, unknown> | null;
  settleCurrency: string | null;
  active: boolean;
  createdAt: number;
  updatedAt: number;
}
