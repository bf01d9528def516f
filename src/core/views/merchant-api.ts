import type { Currency, CurrencyCatalog } from "../../currencies";
import type { ExchangePair } from "../exchanges/exchanges";
import { depositView, overpaidUnits } from "./payment";
import type { DepositRecord } from "../deposits/records";
import type { ExchangeRecord } from "../exchanges/records";
import type { InvoiceRecord } from "../invoices/records";
import type { PayoutRecord } from "../payouts/records";
import { RATE_DECIMALS, toNumber } from "../../money";

/**
 * The views of the merchant API. One naming scheme across src/core/views: a function per
 * resource named `<resource>View`, or, where views share the currency list, a class
 * `<Api>Views` with a method per resource. These render records in the shapes the merchant
 * API answers (docs/merchant-api.md, "Resources"), field names exactly as there. Amounts are JSON numbers, as that API types them; every amount
 * quoted here has at most 8 decimals, so the number parses back to exactly the stored value.
 */
export class MerchantApiViews {
  constructor(private readonly currencies: CurrencyCatalog) {}

  private decimals(symbol: string): number {
    return this.currencies.decimalsOf(symbol) ?? 0;
  }

  /**
   * An invoice; with `deposits` (a fetch), every deposit to its address, amounts as exact
   * decimal strings.
   */
  invoice(invoice: InvoiceRecord, deposits?: readonly DepositRecord[]) {
    const coinDecimals = invoice.coin ? this.decimals(invoice.coin) : 0;
    return {
      id: invoice.id,
      merchantId: invoice.merchantId,
      paymentUrl: invoice.paymentUrl,
      status: invoice.status,
      address: invoice.address,
      txHash: invoice.txHash,
      amount: toNumber(invoice.amount, this.decimals(invoice.amountCurrency)),
      amountCurrency: invoice.amountCurrency,
      rate: invoice.rate === null ? null : toNumber(invoice.rate, RATE_DECIMALS),
      payAmount: invoice.payAmount === null ? null : toNumber(invoice.payAmount, coinDecimals),
      receivedAmount: toNumber(invoice.receivedAmount, coinDecimals),
      overpaidAmount: toNumber(overpaidUnits(invoice), coinDecimals),
      cryptoCurrency: invoice.coin === null ? null : { symbol: invoice.coin },
      network: invoice.network === null ? null : { network: invoice.network },
      acceptedCoins: invoice.acceptedCoins,
      feePaidByPayer: invoice.feePaidByPayer,
      underPaidCover: invoice.underPaidCoverTenths / 10,
      isWhiteLabel: invoice.isWhiteLabel,
      returnUrl: invoice.returnUrl,
      metadata: invoice.metadata,
      expiresAt: new Date(invoice.expiresAt).toISOString(),
      createdAt: new Date(invoice.createdAt).toISOString(),
      reversedAmount: toNumber(invoice.reversedAmount, coinDecimals),
      ...(deposits ? { deposits: deposits.map((deposit) => depositView(deposit, this.currencies)) } : {}),
    };
  }

  /** A payout. */
  payout(payout: PayoutRecord) {
    const decimals = this.decimals(payout.coin);
    return {
      id: payout.id,
      wallet: { merchantId: payout.merchantId, currency: { symbol: payout.coin } },
      network: { network: payout.network },
      status: payout.status,
      address: payout.address,
      txHash: payout.txHash,
      amount: toNumber(payout.amount, decimals),
      fee: toNumber(payout.fee, decimals),
      failureReason: payout.failureReason,
      createdAt: new Date(payout.createdAt).toISOString(),
    };
  }

  /** An exchange. */
  exchange(exchange: ExchangeRecord) {
    return {
      id: exchange.id,
      status: exchange.status,
      fromWallet: { currency: { symbol: exchange.fromCoin } },
      toWallet: { currency: { symbol: exchange.toCoin } },
      amount: toNumber(exchange.amount, this.decimals(exchange.fromCoin)),
      rate: toNumber(exchange.rate, RATE_DECIMALS),
      toAmount: toNumber(exchange.toAmount, this.decimals(exchange.toCoin)),
      createdAt: new Date(exchange.createdAt).toISOString(),
    };
  }

  /** The currency list (POST /api/v1/currencies). */
  currencyList(currencies: readonly Currency[] = this.currencies.currencies) {
    return currencies.map((currency) => ({
      symbol: currency.symbol,
      name: currency.name,
      networks: currency.networks.map((network) => ({
        network: network.network,
        name: network.name,
        minConfirm: network.minConfirm,
        withdrawFee: toNumber(network.withdrawFee, currency.decimals),
        withdrawMin: toNumber(network.withdrawMin, currency.decimals),
        depositMin: toNumber(network.depositMin, currency.decimals),
        staticFixedFee: toNumber(network.staticFixedFee, currency.decimals),
      })),
    }));
  }

  /** One pair of the exchange pair list (POST /api/v1/exchange/pairs). */
  pair(pair: ExchangePair) {
    return {
      minAmount: toNumber(pair.from.exchangeMin, pair.from.decimals),
      rate: toNumber(pair.rate, RATE_DECIMALS),
      fromCurrency: { symbol: pair.from.symbol },
      toCurrency: { symbol: pair.to.symbol },
    };
  }
}
