import type { AssetBalance } from "../core/balances";
import type { CurrencyCatalog } from "../core/currencies";
import type { ExchangeRecord, PaymentLinkRecord, PayoutRecord } from "../core/types";
import { formatDecimal, RATE_DECIMALS } from "../money";

/**
 * The /v1 shapes of payouts, exchanges, payment links and balances. Amounts are decimal
 * strings (exact), times ISO 8601, every object says what it is (`object`) and which mode
 * (`livemode`), Stripe-style. Payments use `paymentView` from core, as webhooks do.
 */
export class V1Views {
  constructor(private readonly currencies: CurrencyCatalog) {}

  private amount(units: bigint, symbol: string): string {
    return formatDecimal(units, this.currencies.decimalsOf(symbol) ?? 0);
  }

  /** A withdrawal (a payout that is not a refund). */
  withdrawal(payout: PayoutRecord) {
    return {
      id: payout.id,
      object: "withdrawal" as const,
      livemode: payout.mode === "live",
      status: payout.status,
      currency: payout.coin,
      chain: payout.network,
      amount: this.amount(payout.amount, payout.coin),
      fee: this.amount(payout.fee, payout.coin),
      address: payout.address,
      txHash: payout.txHash,
      failureReason: payout.failureReason,
      createdAt: new Date(payout.createdAt).toISOString(),
      updatedAt: new Date(payout.updatedAt).toISOString(),
    };
  }

  /** A refund: a payout tied to the payment it gives money back for. */
  refund(payout: PayoutRecord) {
    const { id, object: _withdrawal, livemode, ...rest } = this.withdrawal(payout);
    return { id, object: "refund" as const, livemode, paymentId: payout.refundOf, depositId: payout.refundDepositId, ...rest };
  }

  /** A conversion (an exchange); `paymentId` is set for an auto-conversion of a payment. */
  conversion(exchange: ExchangeRecord) {
    return {
      id: exchange.id,
      object: "conversion" as const,
      livemode: exchange.mode === "live",
      status: exchange.status,
      fromCurrency: exchange.fromCoin,
      toCurrency: exchange.toCoin,
      amount: this.amount(exchange.amount, exchange.fromCoin),
      rate: formatDecimal(exchange.rate, RATE_DECIMALS),
      toAmount: this.amount(exchange.toAmount, exchange.toCoin),
      paymentId: exchange.invoiceId,
      createdAt: new Date(exchange.createdAt).toISOString(),
    };
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
