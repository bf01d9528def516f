import type { AssetBalance } from "../ledger/balances";
import type { CurrencyCatalog } from "../../currencies";
import { conversionView, refundView, withdrawalView, type ConversionView, type RefundView, type WithdrawalView } from "./funds";
import type { ExchangeRecord } from "../exchanges/records";
import type { PaymentLinkRecord } from "../payment-links/records";
import type { PayoutRecord } from "../payouts/records";
import { formatDecimal } from "../../money";

/**
 * The /v1 shapes of payouts, exchanges, payment links and balances (payouts and exchanges
 * rendered by core/views/funds.ts, as their events carry them). Amounts are decimal
 * strings (exact), times ISO 8601, every object says what it is (`object`) and which mode
 * (`livemode`), Stripe-style. Payments use `paymentView` from core, as webhooks do.
 */
export class V1Views {
  constructor(private readonly currencies: CurrencyCatalog) {}

  private amount(units: bigint, symbol: string): string {
    return formatDecimal(units, this.currencies.decimalsOf(symbol) ?? 0);
  }

  /** A withdrawal (a payout that is not a refund). */
  withdrawal(payout: PayoutRecord): WithdrawalView {
    return withdrawalView(payout, this.currencies);
  }

  /** A refund: a payout tied to the payment it gives money back for. */
  refund(payout: PayoutRecord): RefundView {
    return refundView(payout, this.currencies);
  }

  /** A conversion (an exchange); `paymentId` is set for an auto-conversion of a payment. */
  conversion(exchange: ExchangeRecord): ConversionView {
    return conversionView(exchange, this.currencies);
  }

  /** A payment link with its public URL. */
  paymentLink(link: PaymentLinkRecord, url: string) {
    return {
      id: link.id,
      object: "payment_link" as const,
      livemode: link.mode === "live",
      url,
      active: link.active,
      amount: this.amount(link.amount, link.amountCurrency),
      amountCurrency: link.amountCurrency,
      acceptedCoins: link.acceptedCoins,
      feePaidByPayer: link.feePaidByPayer,
      underPaidCover: formatDecimal(BigInt(link.underPaidCoverTenths), 1),
      lifeTime: link.lifeTimeMinutes,
      returnUrl: link.returnUrl,
      metadata: link.metadata,
      settleCurrency: link.settleCurrency,
      createdAt: new Date(link.createdAt).toISOString(),
      updatedAt: new Date(link.updatedAt).toISOString(),
    };
  }

  /** One row of the balance list. */
  balance(balance: AssetBalance) {
    return {
      currency: balance.asset,
      available: this.amount(balance.available, balance.asset),
      pending: this.amount(balance.pending, balance.asset),
      lastSettledAt: balance.lastSettledAt === null ? null : new Date(balance.lastSettledAt).toISOString(),
    };
  }
}

/** A page of a list: `nextCursor` is the id to pass as `cursor` for the next page. */
export function page<T extends { id: string }, V>(rows: T[], limit: number, view: (row: T) => V): { data: V[]; hasMore: boolean; nextCursor: string | null } {
  const data = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { data: data.map(view), hasMore, nextCursor: hasMore ? data.at(-1)!.id : null };
}
