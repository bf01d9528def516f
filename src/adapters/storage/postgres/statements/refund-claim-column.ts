import type { RefundClaim } from "../../../../core/refunds/records";
import type { Codec } from "./columns";

/** The claim as JSON holds it: amounts as decimal strings (JSON has no bigint). */
interface StoredClaim {
  tokenHash: string;
  expiresAt: number;
  networks: string[];
  /** Absent in rows written before other coins could be offered. */
  coins?: Array<{ coin: string; networks: string[] }>;
  origin?: { coin: string; amount: string } | null;
  fiat: { amount: string; currency: string; rate: string } | null;
  held: string;
  claimedAt: number | null;
}

const parse = (value: unknown): StoredClaim => (typeof value === "string" ? (JSON.parse(value) as StoredClaim) : (value as StoredClaim));

/**
 * The `claim` column of `payouts` (a refund claim link's terms): `json`, NULL for every other
 * payout. Its amounts travel as decimal strings, so they come back exact.
 */
export const refundClaimColumn: Codec<RefundClaim | null> = {
  read: (value) => {
    if (value === null || value === undefined) return null;
    const stored = parse(value);
    return {
      tokenHash: stored.tokenHash,
      expiresAt: Number(stored.expiresAt),
      networks: [...stored.networks],
      coins: (stored.coins ?? []).map((entry) => ({ coin: entry.coin, networks: [...entry.networks] })),
      origin: stored.origin ? { coin: stored.origin.coin, amount: BigInt(stored.origin.amount) } : null,
      fiat: stored.fiat ? { amount: BigInt(stored.fiat.amount), currency: stored.fiat.currency, rate: BigInt(stored.fiat.rate) } : null,
      held: BigInt(stored.held),
      claimedAt: stored.claimedAt === null ? null : Number(stored.claimedAt),
    };
  },
  write: (claim) => {
    if (claim === null) return null;
    const stored: StoredClaim = {
      tokenHash: claim.tokenHash,
      expiresAt: claim.expiresAt,
      networks: claim.networks,
      coins: claim.coins,
      origin: claim.origin ? { coin: claim.origin.coin, amount: claim.origin.amount.toString() } : null,
      fiat: claim.fiat ? { amount: claim.fiat.amount.toString(), currency: claim.fiat.currency, rate: claim.fiat.rate.toString() } : null,
      held: claim.held.toString(),
      claimedAt: claim.claimedAt,
    };
    return JSON.stringify(stored);
  },
  cast: "::json",
  arrayType: "text[]",
};
