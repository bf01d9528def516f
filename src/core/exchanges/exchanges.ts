import type { Scope } from "../ports/storage/index";
import { PaymentError } from "../../errors";
import { formatDecimal, mulDivDown, pow10, RATE_DECIMALS, roundDownToStep } from "../../money";
import type { CoreContext } from "../context";
import type { CommitHook } from "../idempotency/idempotency";
import type { Currency } from "../../currencies";
import { refuseIfInDeficit } from "../ledger/deficit";
import { conversionEvent } from "../webhooks/events";
import { newId } from "../../ids";
import { recordEvents, withOutbox } from "../webhooks/outbox";
import { parseAmountIn } from "../invoices/invoices";
import { quoteRate } from "../rates";
import type { ExchangeRecord } from "./records";
import type { Mode } from "../merchants/records";

/** An exchange request, shape-checked by the caller. */
export interface CreateExchangeInput {
  fromCurrency: string;
  toCurrency: string;
  /** Decimal string in `fromCurrency`. */
  amount: string;
}

/** One entry of the pair list. */
export interface ExchangePair {
  from: Currency;
  to: Currency;
  /** Price of 1 `from` in `to`, scaled by 10^RATE_DECIMALS. */
  rate: bigint;
}

function crypto(context: CoreContext, symbol: string, field: string): Currency {
  const currency = context.currencies.crypto(symbol);
  if (!currency) throw new PaymentError("unsupported_currency", `${field} "${symbol}" is not a supported crypto currency.`);
  return currency;
}

/**
 * What `amount` of `from` buys at `rate`: rounded down, then to the target's quote precision
 * so the number a merchant endpoint returns is exactly what was credited.
 */
export function convert(context: CoreContext, amount: bigint, from: Currency, to: Currency, rate: bigint): bigint {
  const exact = mulDivDown(amount * rate, pow10(to.decimals), pow10(RATE_DECIMALS + from.decimals));
  return roundDownToStep(exact, context.currencies.quoteStep(to.symbol));
}

/**
 * Exchanges between two of the merchant's balances at the pricing adapter's rate, no spread.
 * The debit and the credit post together or not at all, with the `conversion.completed` event:
 * SUCCESS, or an error and no change.
 */
export async function createExchange(
  context: CoreContext,
  scope: Scope,
  input: CreateExchangeInput,
  onCommit?: CommitHook<ExchangeRecord>,
): Promise<ExchangeRecord> {
  const from = crypto(context, input.fromCurrency, "fromCurrency");
  const to = crypto(context, input.toCurrency, "toCurrency");
  if (from.symbol === to.symbol) throw new PaymentError("validation_error", "fromCurrency and toCurrency must differ.");
  const amount = parseAmountIn(context, input.amount, from.symbol);
  if (amount < from.exchangeMin || amount <= 0n) {
    throw new PaymentError(
      "amount_below_minimum",
      `The smallest ${from.symbol} -> ${to.symbol} exchange is ${formatDecimal(from.exchangeMin, from.decimals)} ${from.symbol}.`,
    );
  }
  const rate = await quoteRate(context, from.symbol, to.symbol);
  const toAmount = convert(context, amount, from, to, rate);
  if (toAmount === 0n) throw new PaymentError("amount_below_minimum", `${input.amount} ${from.symbol} buys less than the smallest unit of ${to.symbol}.`);
  const now = context.now();
  const exchange: ExchangeRecord = {
    id: newId("ex"),
    merchantId: scope.merchantId,
    mode: scope.mode,
    status: "SUCCESS",
    fromCoin: from.symbol,
    toCoin: to.symbol,
    amount,
    rate,
    toAmount,
    invoiceId: null,
    createdAt: now,
  };
  const entry = { merchantId: scope.merchantId, mode: scope.mode, createdAt: now };
  await withOutbox(context, async (tx) => {
    const posted = await tx.postLedgerEntries([
      { ...entry, id: newId("led"), asset: from.symbol, amount: -amount, kind: "exchange_out", causeKey: `exchange:${exchange.id}:out` },
      { ...entry, id: newId("led"), asset: to.symbol, amount: toAmount, kind: "exchange_in", causeKey: `exchange:${exchange.id}:in` },
    ]);
    if (posted.status === "insufficient") {
      await refuseIfInDeficit(context, tx, scope, from.symbol);
      throw new PaymentError("insufficient_balance", `The ${from.symbol} balance does not cover ${formatDecimal(amount, from.decimals)} ${from.symbol}.`);
    }
    await tx.insertExchange(exchange);
    await recordEvents(context, tx, [conversionEvent(context, exchange)]);
    await onCommit?.(tx, exchange);
  });
  return exchange;
}

/** Every ordered pair of distinct crypto currencies `mode` offers (no refused chain's), with its current rate. */
export async function listPairs(context: CoreContext, mode: Mode): Promise<ExchangePair[]> {
  const currencies = context.chains.offered(mode, context.currencies);
  const pairs = currencies.flatMap((from) => currencies.filter((to) => to !== from).map((to) => ({ from, to })));
  const rates = await Promise.all(pairs.map(({ from, to }) => quoteRate(context, from.symbol, to.symbol)));
  return pairs.map((pair, index) => ({ ...pair, rate: rates[index]! }));
}
