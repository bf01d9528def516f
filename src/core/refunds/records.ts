/**
 * Refund claims and the refund event types.
 * Amounts are bigint smallest units of the record's asset; times are epoch milliseconds.
 * Storage adapters persist these shapes as they are.
 */

/** The refund events named after a payout's step (and the status the refund then has). */
export const REFUND_PAYOUT_EVENT_TYPES = ["refund.processing", "refund.completed", "refund.failed", "refund.awaiting_approval", "refund.rejected"] as const;

// Refund claim links
/** The events of a refund claim link's own steps: held (AWAITING_CLAIM), claimed, cancelled, expired. */
export const REFUND_CLAIM_EVENT_TYPES = ["refund.created", "refund.claimed", "refund.cancelled", "refund.expired"] as const;

/**
 * Refund event types: the same lifecycle as a withdrawal, sent instead of its events for a refund.
 * A refund made as a claim link (no address yet) also sends `refund.created` when its amount is
 * held, `refund.claimed` when the payer gives an address (then `refund.processing` or
 * `refund.awaiting_approval`), or `refund.cancelled` / `refund.expired` when its hold goes back.
 */
export const REFUND_EVENT_TYPES = [...REFUND_PAYOUT_EVENT_TYPES, ...REFUND_CLAIM_EVENT_TYPES] as const;

/** One refund event type. */
export type RefundEventType = (typeof REFUND_EVENT_TYPES)[number];

/**
 * The terms of a refund claim link. Until it is claimed the payout's `amount` and `fee` are what
 * is held (`held` = their sum) and its `address` is empty; the claim sets them to what is sent.
 */
export interface RefundClaim {
  /** SHA-256 (hex) of the link's secret: the secret itself is never stored. */
  tokenHash: string;
  /** When the link lapses (epoch ms); the hold then goes back. */
  expiresAt: number;
  /** The networks of the refund's coin the payer may choose (the first is the default). */
  networks: string[];
  /**
   * Other coins the payer may choose instead of the refund's own, each with its networks: the
   * amount is then converted at the live rate of the claim. [] offers the refund's coin alone.
   */
  coins: ClaimCoin[];
  /**
   * Once claimed in another coin (the payout's `coin` is then that coin): the refund's own coin
   * and the amount of it the refund counts for against the payment (what was held less the
   * fee). Null otherwise.
   */
  origin: { coin: string; amount: bigint } | null;
  /**
   * For an amount fixed in fiat: that amount (smallest units of `currency`), the rate at
   * creation (price of 1 coin in `currency`, scaled by 10^RATE_DECIMALS) the hold was sized
   * with; null for an amount in the coin.
   */
  fiat: { amount: bigint; currency: string; rate: bigint } | null;
  /** What the link took from the balance when it was made (amount + fee as held). */
  held: bigint;
  /** When the payer claimed it; null before. */
  claimedAt: number | null;
}

/** A coin a refund claim link offers besides the refund's own, and the networks of it the payer may choose. */
export interface ClaimCoin {
  /** The coin's symbol (USDC). */
  coin: string;
  /** Its networks the payer may choose (the first is the default). */
  networks: string[];
}
