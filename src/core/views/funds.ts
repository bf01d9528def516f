import { formatDecimal, RATE_DECIMALS } from "../../money";
import type { CurrencyCatalog } from "../../currencies";
import type { ExchangeRecord } from "../exchanges/records";
import type { PayoutRecord, PayoutStatus } from "../payouts/records";

/**
 * Withdrawals, refunds and conversions as the /v1 API and their webhook events show them:
 * decimal strings for every amount, ISO 8601 times, `object` and `livemode` on each. Kept in
 * core beside `paymentView` because events are recorded here, in the unit of work of the change.
 */

/** A withdrawal: a payout from the balance to an external address that is not a refund. */
export interface WithdrawalView {
  id: string;
  object: "withdrawal";
  livemode: boolean;
  status: PayoutStatus;
  currency: string;
  chain: string;
  amount: string;
  fee: string;
  address: string;
  txHash: string | null;
  failureReason: string | null;
  /**
   * Why a PROCESSING payout has no transaction yet (the chain's last answer); null once sent.
   * Always set by this version; optional for events sent by versions before it.
   */
  pendingReason?: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A refund: a payout tied to the payment it gives money back for. */
export type RefundView = Omit<WithdrawalView, "object"> & {
  object: "refund";
  paymentId: string;
  /** The deposit this refund returns (a stray coin, say), or null for a refund of the payment. */
  depositId: string | null;
  /** For a refund made as a claim link: its terms; null for a refund sent to an address. */
  claim: RefundClaimView | null;
};

/** A refund claim link's terms as the API shows them (never its secret). */
export interface RefundClaimView {
  /** When the link lapses (its hold then goes back). */
  expiresAt: string;
  /** The networks the payer may choose (`chain` is the first until claimed, then the one chosen). */
  chains: string[];
  /** Other coins the payer may choose instead of the refund's own, each with its networks ({} when none). */
  coins: Record<string, string[]>;
  /** An amount fixed in fiat, converted at the claim's live rate; null when the amount is in the coin. */
  fiatAmount: string | null;
  /** The fiat currency of `fiatAmount`; null when the amount is in the coin. */
  fiatCurrency: string | null;
  /** What the link held from the balance when it was made (amount + fee as held), in the coin. */
  held: string;
  /** The coin of `held`: the refund's own (the payout's `currency` differs once claimed in another coin). */
  heldCurrency: string;
  /** When the payer claimed it; null before. */
  claimedAt: string | null;
}

/** A conversion between two balances; `paymentId` is set on an auto-conversion of a payment. */
export interface ConversionView {
  id: string;
  object: "conversion";
  livemode: boolean;
  status: ExchangeRecord["status"];
  fromCurrency: string;
  toCurrency: string;
  amount: string;
  rate: string;
  toAmount: string;
  paymentId: string | null;
  createdAt: string;
}

const amountOf = (currencies: CurrencyCatalog, units: bigint, symbol: string) => formatDecimal(units, currencies.decimalsOf(symbol) ?? 0);

/** Renders a payout that is not a refund. */
export function withdrawalView(payout: PayoutRecord, currencies: CurrencyCatalog): WithdrawalView {
  return {
    id: payout.id,
    object: "withdrawal",
    livemode: payout.mode === "live",
    status: payout.status,
    currency: payout.coin,
    chain: payout.network,
    amount: amountOf(currencies, payout.amount, payout.coin),
    fee: amountOf(currencies, payout.fee, payout.coin),
    address: payout.address,
    txHash: payout.txHash,
    failureReason: payout.failureReason,
    pendingReason: payout.pendingReason,
    createdAt: new Date(payout.createdAt).toISOString(),
    updatedAt: new Date(payout.updatedAt).toISOString(),
  };
}

/** Renders a refund (a payout whose `refundOf` is set). */
export function refundView(payout: PayoutRecord, currencies: CurrencyCatalog): RefundView {
  const { id, object: _withdrawal, livemode, ...rest } = withdrawalView(payout, currencies);
  // Every refund has its payment (refundOf); "" only if a plain payout were passed here by mistake.
  return { id, object: "refund", livemode, paymentId: payout.refundOf ?? "", depositId: payout.refundDepositId, ...rest, claim: claimView(payout, currencies) };
}

/** A refund's claim link terms, or null. */
function claimView(payout: PayoutRecord, currencies: CurrencyCatalog): RefundClaimView | null {
  const claim = payout.claim;
  if (!claim) return null;
  return {
    expiresAt: new Date(claim.expiresAt).toISOString(),
    chains: [...claim.networks],
    coins: Object.fromEntries(claim.coins.map((entry) => [entry.coin, [...entry.networks]])),
    fiatAmount: claim.fiat ? amountOf(currencies, claim.fiat.amount, claim.fiat.currency) : null,
    fiatCurrency: claim.fiat?.currency ?? null,
    held: amountOf(currencies, claim.held, claim.origin?.coin ?? payout.coin),
    heldCurrency: claim.origin?.coin ?? payout.coin,
    claimedAt: claim.claimedAt === null ? null : new Date(claim.claimedAt).toISOString(),
  };
}

/** Renders an exchange. */
export function conversionView(exchange: ExchangeRecord, currencies: CurrencyCatalog): ConversionView {
  return {
    id: exchange.id,
    object: "conversion",
    livemode: exchange.mode === "live",
    status: exchange.status,
    fromCurrency: exchange.fromCoin,
    toCurrency: exchange.toCoin,
    amount: amountOf(currencies, exchange.amount, exchange.fromCoin),
    rate: formatDecimal(exchange.rate, RATE_DECIMALS),
    toAmount: amountOf(currencies, exchange.toAmount, exchange.toCoin),
    paymentId: exchange.invoiceId,
    createdAt: new Date(exchange.createdAt).toISOString(),
  };
}
