import { formatDecimal, RATE_DECIMALS } from "../money";
import type { CurrencyCatalog } from "./currencies";
import type { InvoiceRecord } from "./types";

/**
 * The payment as webhooks and the /v1 API show it: decimal strings for every amount, so that
 * receivers never lose precision, and `metadata` (with the merchant's `orderId`) as given.
 */
export interface PaymentView {
  id: string;
  object: "payment";
  livemode: boolean;
  status: InvoiceRecord["status"];
  amount: string;
  amountCurrency: string;
  /** The coin paid in; null until the payer picks one (hosted payments). */
  currency: string | null;
  /** Coins the payer may pick from on the hosted page; null for any. */
  acceptedCoins: string[] | null;
  chain: string | null;
  address: string | null;
  rate: string | null;
  /** When the locked rate was observed (ISO 8601); null until a rate is locked. */
  rateAt: string | null;
  /** The price sources the locked rate was combined from; null until a rate is locked. */
  rateSources: string[] | null;
  payAmount: string | null;
  receivedAmount: string;
  /** What was received beyond `payAmount`, in the coin; "0" unless the payer sent too much. */
  overpaidAmount: string;
  txHash: string | null;
  feePaidByPayer: boolean;
  underPaidCover: string;
  isWhiteLabel: boolean;
  checkoutUrl: string;
  returnUrl: string | null;
  metadata: Record<string, unknown> | null;
  failureReason: string | null;
  /** Asset each credit is converted into (auto-conversion); null keeps the coin. */
  settleCurrency: string | null;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * What an invoice received beyond what it asked the payer for, in smallest units of its coin:
 * 0 unless the deposits it counts (`receivedAmount`) exceed `payAmount`.
 */
export function overpaidUnits(invoice: Pick<InvoiceRecord, "payAmount" | "receivedAmount">): bigint {
  return invoice.payAmount !== null && invoice.receivedAmount > invoice.payAmount ? invoice.receivedAmount - invoice.payAmount : 0n;
}

/** Renders an invoice record as a `PaymentView`. */
export function paymentView(invoice: InvoiceRecord, currencies: CurrencyCatalog): PaymentView {
  const coinDecimals = invoice.coin ? currencies.crypto(invoice.coin)?.decimals ?? 0 : 0;
  return {
    id: invoice.id,
    object: "payment",
    livemode: invoice.mode === "live",
    status: invoice.status,
    amount: formatDecimal(invoice.amount, currencies.decimalsOf(invoice.amountCurrency) ?? 0),
    amountCurrency: invoice.amountCurrency,
    currency: invoice.coin,
    acceptedCoins: invoice.acceptedCoins,
    chain: invoice.network,
    address: invoice.address,
    rate: invoice.rate === null ? null : formatDecimal(invoice.rate, RATE_DECIMALS),
    rateAt: invoice.rateAt === null ? null : new Date(invoice.rateAt).toISOString(),
    rateSources: invoice.rateSources,
    payAmount: invoice.payAmount === null ? null : formatDecimal(invoice.payAmount, coinDecimals),
    receivedAmount: formatDecimal(invoice.receivedAmount, coinDecimals),
    overpaidAmount: formatDecimal(overpaidUnits(invoice), coinDecimals),
    txHash: invoice.txHash,
    feePaidByPayer: invoice.feePaidByPayer,
    underPaidCover: formatDecimal(BigInt(invoice.underPaidCoverTenths), 1),
    isWhiteLabel: invoice.isWhiteLabel,
    checkoutUrl: invoice.paymentUrl,
    returnUrl: invoice.returnUrl,
    metadata: invoice.metadata,
    failureReason: invoice.failureReason,
    settleCurrency: invoice.settleCurrency,
    expiresAt: new Date(invoice.expiresAt).toISOString(),
    createdAt: new Date(invoice.createdAt).toISOString(),
    updatedAt: new Date(invoice.updatedAt).toISOString(),
  };
}
