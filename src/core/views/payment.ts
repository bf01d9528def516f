import { formatDecimal, RATE_DECIMALS } from "../../money";
import type { CurrencyCatalog } from "../../currencies";
import type { DepositRecord } from "../deposits/records";
import type { InvoiceRecord } from "../invoices/records";

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
  /**
   * What was received in `currency` and then taken back because its deposit left the chain
   * after it was credited (a deep reorg); no longer part of `receivedAmount`. Absent in events
   * of older versions.
   */
  reversedAmount?: string;
  /**
   * Every deposit to the payment's address, in the order seen, counted or not (a stray coin, a
   * transfer after the window closed). Present when the payment is retrieved and in events
   * caused by a deposit.
   */
  deposits?: DepositView[];
}

/**
 * What an invoice received beyond what it asked the payer for, in smallest units of its coin:
 * 0 unless the deposits it counts (`receivedAmount`) exceed `payAmount`.
 */
export function overpaidUnits(invoice: Pick<InvoiceRecord, "payAmount" | "receivedAmount">): bigint {
  return invoice.payAmount !== null && invoice.receivedAmount > invoice.payAmount ? invoice.receivedAmount - invoice.payAmount : 0n;
}

/** One transfer to a payment's address, as the /v1 API and events show it. */
export interface DepositView {
  id: string;
  object: "deposit";
  txHash: string;
  /** Output (UTXO chains) or log index (EVM) within the transaction. */
  outputIndex: number;
  /** The coin received: the payment's, or another one sent to its address (a stray deposit). */
  currency: string;
  chain: string;
  /** What the payer sent, in `currency`. */
  amount: string;
  /** The 0.5% fee taken when it was credited ("0" before). */
  fee: string;
  /** PENDING, CONFIRMED (credited), DROPPED (left the chain before it was final) or REVERSED (credited, then left the chain). */
  status: DepositRecord["status"];
  /** Whether it moves the payment's status: false for a stray coin or a transfer after the window closed. */
  countsTowardPayment: boolean;
  confirmations: number;
  /** How many times it left the chain after it was credited. */
  reversals: number;
  /** When it was first seen. */
  createdAt: string;
  /** When its standing credit was posted; null while not credited. */
  creditedAt: string | null;
}

/** Renders a deposit record as a `DepositView`. */
export function depositView(deposit: DepositRecord, currencies: CurrencyCatalog): DepositView {
  const decimals = currencies.decimalsOf(deposit.coin) ?? 0;
  return {
    id: deposit.id,
    object: "deposit",
    txHash: deposit.txHash,
    outputIndex: deposit.outputIndex,
    currency: deposit.coin,
    chain: deposit.network,
    amount: formatDecimal(deposit.amount, decimals),
    fee: formatDecimal(deposit.fee, decimals),
    status: deposit.status,
    countsTowardPayment: deposit.countsTowardInvoice,
    confirmations: deposit.confirmations,
    reversals: deposit.reversals,
    createdAt: new Date(deposit.seenAt).toISOString(),
    creditedAt: deposit.creditedAt === null ? null : new Date(deposit.creditedAt).toISOString(),
  };
}

/** Renders an invoice record as a `PaymentView`, with its deposits when they are given. */
export function paymentView(invoice: InvoiceRecord, currencies: CurrencyCatalog, deposits?: readonly DepositRecord[]): PaymentView {
  const coinDecimals = invoice.coin ? (currencies.crypto(invoice.coin)?.decimals ?? 0) : 0;
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
    reversedAmount: formatDecimal(invoice.reversedAmount, coinDecimals),
    ...(deposits ? { deposits: deposits.map((deposit) => depositView(deposit, currencies)) } : {}),
  };
}
