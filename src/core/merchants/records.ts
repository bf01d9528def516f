/**
 * The records of merchants and their API keys, and the mode every record belongs to.
 * Amounts are bigint smallest units of the record's asset; times are epoch milliseconds.
 * Storage adapters persist these shapes as they are.
 */

/** Sandbox (`sk_test_`) or live (`sk_live_`): every record belongs to exactly one. */
export type Mode = "test" | "live";

/** A merchant: the owner of keys, invoices, balances and everything else. */
export interface MerchantRecord {
  id: string;
  name: string;
  /** Asset that payments are converted into when credited (auto-conversion); null keeps each coin. */
  settleCurrency: string | null;
  /** The merchant's own payout approval threshold; null follows the router's (`payouts.approval`). */
  payoutApproval: PayoutApprovalRule | null;
  /** Whether payouts, withdrawals and refunds may only go to usable addresses of the merchant's payout allowlist. */
  payoutAllowlist: boolean;
  createdAt: number;
}

/**
 * When a payout needs a second person: one whose amount is above `above` (a decimal string) in
 * `currency` (a fiat currency, converted at the current price, or a coin, compared in its units
 * when the payout is in that coin and converted otherwise).
 */
export interface PayoutApprovalRule {
  above: string;
  currency: string;
}

/** An API key, kept only as a hash of its plaintext. */
export interface ApiKeyRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  /** Hex SHA-256 of the plaintext key. */
  hash: string;
  /** The first characters of the key ("sk_test_AbCd"), enough to recognise it in a list. */
  prefix: string;
  createdAt: number;
  revokedAt: number | null;
}
