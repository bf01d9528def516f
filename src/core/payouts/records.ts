/**
 * Payouts, their statuses and events, and the payout allowlist.
 * Amounts are bigint smallest units of the record's asset; times are epoch milliseconds.
 * Storage adapters persist these shapes as they are.
 */
import type { Mode } from "../merchants/records";
import type { RefundClaim } from "../refunds/records";

/**
 * Withdrawal event types (a payout that is not a refund): sent when it is debited, when the
 * chain confirms it, and when it fails (the debit is then credited back). A payout held for
 * approval sends `payout.awaiting_approval` when it is debited, then `payout.processing` once
 * approved, or `payout.rejected` (the debit credited back). Each is named after the status the
 * payout has in its data.
 */
export const PAYOUT_EVENT_TYPES = ["payout.processing", "payout.completed", "payout.failed", "payout.awaiting_approval", "payout.rejected"] as const;

/** One withdrawal event type. */
export type PayoutEventType = (typeof PAYOUT_EVENT_TYPES)[number];

/**
 * Payout statuses: PROCESSING until the chain settles it (COMPLETED or FAILED). A payout above
 * the approval threshold starts AWAITING_APPROVAL (debited, not sent) and becomes PROCESSING
 * once approved, or REJECTED (its debit credited back). A refund made as a claim link starts
 * AWAITING_CLAIM (its amount and fee held, no address yet), then takes a payout's statuses once
 * the payer claims it, or ends CANCELLED or EXPIRED (the hold credited back).
 */
export const PAYOUT_STATUSES = [
  "PROCESSING",
  "COMPLETED",
  "FAILED",
  "AWAITING_APPROVAL",
  "REJECTED",
  // Refund claim links only: waiting for the payer's address, then withdrawn (hold returned) or lapsed (hold returned).
  "AWAITING_CLAIM",
  "CANCELLED",
  "EXPIRED",
] as const;

/** One payout status. */
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** A payout (a /v1 withdrawal is the same record). */
export interface PayoutRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  status: PayoutStatus;
  coin: string;
  network: string;
  address: string;
  amount: bigint;
  /** withdrawFee + staticFixedFee of the network at creation. */
  fee: bigint;
  /** For a refund: the invoice (payment) it gives money back for; null for a plain payout. */
  refundOf: string | null;
  /** For a refund of one deposit (a stray coin, say): that deposit; null otherwise. */
  refundDepositId: string | null;
  txHash: string | null;
  /** Why the chain refused it (FAILED), or why it was rejected (REJECTED). */
  failureReason: string | null;
  /** Who asked for it: the API key's id, or the user the host named; null when unknown (an in-process call). */
  requestedBy: string | null;
  /** Who approved or rejected it (a payout held for approval); null otherwise. */
  reviewedBy: string | null;
  /** For a refund made as a claim link: the link's terms; null for every other payout. */
  claim: RefundClaim | null;
  /**
   * Why a PROCESSING payout has no transaction yet: the chain's last refusal to send it (its
   * node down, the hot wallet's coins still locked), scrubbed of URLs and keys; null once it
   * is sent, and for every payout the chain never refused.
   */
  pendingReason: string | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * An address of a merchant's payout allowlist, in one mode and on one network: once approved and
 * past its cooling-off, payouts may go to it while the merchant's allowlist is on.
 */
export interface AllowedAddressRecord {
  /** Unique id (`pad_...`). */
  id: string;
  merchantId: string;
  mode: Mode;
  /** The network code, as the currency list spells it ("ETH", "TRX"). */
  network: string;
  /** The address as it was given. */
  address: string;
  /** The form two addresses that the network treats as one share (lower case for EVM): what payouts are matched by. */
  addressKey: string;
  /** A name for people ("Treasury cold wallet"); null when none was given. */
  label: string | null;
  /** Who proposed it. */
  proposedBy: string;
  /** Who approved it; null while it awaits approval. */
  approvedBy: string | null;
  /** When it was approved, epoch ms; null while it awaits approval. */
  approvedAt: number | null;
  /** From when payouts may go to it (its approval plus the cooling-off), epoch ms; null while it awaits approval. */
  usableAt: number | null;
  createdAt: number;
}
