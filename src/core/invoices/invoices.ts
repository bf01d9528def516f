import type { Scope, StorageTransaction } from "../ports/storage/index";
import { notFound, PaymentError } from "../../errors";
import { AmountFormatError, formatDecimal, mulDivUp, parseDecimal, pow10, RATE_DECIMALS, roundUpToStep } from "../../money";
import { AddressTakenError, recordIssuedAddress } from "../deposits/addresses";
import type { CoreContext } from "../context";
import type { Currency, Network } from "../../currencies";
import { paymentEvents } from "../webhooks/events";
import { grossUpForFee } from "./fees";
import { newId } from "../../ids";
import { isTerminal, settle, type MachineDeposit, type MachineState } from "./machine";
import type { CommitHook } from "../idempotency/idempotency";
import { recordEvents, withOutbox } from "../webhooks/outbox";
import { quoteRateDetails } from "../rates";
import type { DepositRecord } from "../deposits/records";
import type { InvoiceRecord, PaymentEventType } from "./records";
import type { MerchantRecord, Mode } from "../merchants/records";

/** What creating an invoice needs, already checked for shape by the caller's schema. */
export interface CreateInvoiceInput {
  /** Decimal string in `amountCurrency`. */
  amount: string;
  amountCurrency: string;
  /** Hosted mode: coins the payer may pick from (null: all). */
  acceptedCoins: string[] | null;
  /** Whitelabel mode: the coin and network, fixed now. */
  whiteLabel: { payCurrency: string; network: string | null } | null;
  underPaidCoverTenths: number;
  feePaidByPayer: boolean;
  lifeTimeMinutes: number;
  returnUrl: string | null;
  metadata: Record<string, unknown> | null;
  /** Asset to convert the credit into; null keeps the coin; left out, the merchant's default. */
  settleCurrency?: string | null;
  /** The merchant as already read (authentication reads it with the key); read here when left out. */
  merchant?: MerchantRecord;
  /** The payment link this invoice comes from, if any. */
  paymentLinkId?: string | null;
  /** Builds the hosted page URL of the new invoice (the HTTP shell knows the mount path). */
  paymentUrlFor: (invoiceId: string) => string;
}

/** Parses an amount given in any supported currency (fiat or crypto). */
export function parseAmountIn(context: CoreContext, amount: string, currency: string, field = "amount"): bigint {
  const decimals = context.currencies.decimalsOf(currency);
  if (decimals === undefined) {
    throw new PaymentError("unsupported_currency", `Currency "${currency}" is not supported. POST /api/v1/currencies lists the crypto currencies.`);
  }
  try {
    return parseDecimal(amount, decimals);
  } catch (error) {
    if (!(error instanceof AmountFormatError)) throw error;
    throw new PaymentError("validation_error", `${field} ${amount} has more than ${decimals} decimal places, the most ${currency} allows.`);
  }
}

/**
 * Finds a crypto currency and one of its networks. The network may be omitted when the coin
 * has only one; with `mode`, only one that the mode's chains serve (a live USDT served on ETH
 * alone needs no network named).
 */
export function resolveNetwork(context: CoreContext, symbol: string, network: string | null, mode?: Mode): { currency: Currency; network: Network } {
  const currency = context.currencies.crypto(symbol);
  if (!currency) {
    throw new PaymentError("unsupported_currency", `Crypto currency "${symbol}" is not supported. POST /api/v1/currencies lists them.`);
  }
  if (network === null) {
    const candidates = mode ? context.chains.networks(mode, currency) : currency.networks;
    if (candidates.length === 1) return { currency, network: candidates[0]! };
    if (candidates.length === 0) context.chains.require(mode!, symbol, currency.networks[0]!.network); // throws the 503 or the 400 naming what is served
    throw new PaymentError("validation_error", `network is required for ${symbol}: one of ${candidates.map((entry) => entry.network).join(", ")}.`);
  }
  const names = currency.networks.map((entry) => entry.network).join(", ");
  const found = context.currencies.network(symbol, network);
  if (!found) throw new PaymentError("unsupported_currency", `${symbol} is not available on network "${network}"; use one of ${names}.`);
  return { currency, network: found };
}

/**
 * What the payer sends: amount / rate in the coin, grossed up by the fee when the payer pays
 * it, rounded up to the coin's quote precision so the merchant never receives less than asked.
 */
export function computePayAmount(
  context: CoreContext,
  invoice: Pick<InvoiceRecord, "amount" | "amountCurrency" | "feePaidByPayer">,
  coin: Currency,
  rate: bigint,
): bigint {
  const amountDecimals = context.currencies.decimalsOf(invoice.amountCurrency)!;
  let units = mulDivUp(invoice.amount * pow10(coin.decimals), pow10(RATE_DECIMALS), pow10(amountDecimals) * rate);
  if (invoice.feePaidByPayer) units = grossUpForFee(units);
  const step = context.currencies.quoteStep(coin.symbol);
  const payAmount = roundUpToStep(units, step);
  // The merchant endpoints quote payAmount as a JSON number, exact only up to 15 digits.
  if (payAmount / step >= MAX_QUOTED_STEPS) {
    throw new PaymentError("validation_error", `The invoice comes to more ${coin.symbol} than can be quoted exactly; lower the amount.`);
  }
  return payAmount;
}

/** 10^15: every whole number of quote steps below it survives a round trip through a double. */
const MAX_QUOTED_STEPS = 10n ** 15n;

/**
 * Creates an invoice in hosted or whitelabel mode and records `payment.created`. `onCommit`
 * runs in the transaction that stores it (an idempotency key's answer).
 */
export async function createInvoice(
  context: CoreContext,
  scope: Scope,
  input: CreateInvoiceInput,
  onCommit?: CommitHook<InvoiceRecord>,
): Promise<InvoiceRecord> {
  const amount = parseAmountIn(context, input.amount, input.amountCurrency);
  // Live invoices need a chain to ever be paid, so refuse them up front rather than strand them.
  context.chains.requireAny(scope.mode);
  const now = context.now();
  const id = newId("inv");
  const invoice: InvoiceRecord = {
    id,
    merchantId: scope.merchantId,
    mode: scope.mode,
    status: "PENDING",
    amount,
    amountCurrency: input.amountCurrency,
    acceptedCoins: null,
    coin: null,
    network: null,
    address: null,
    rate: null,
    rateAt: null,
    rateSources: null,
    payAmount: null,
    feePaidByPayer: input.feePaidByPayer,
    underPaidCoverTenths: input.underPaidCoverTenths,
    isWhiteLabel: input.whiteLabel !== null,
    returnUrl: input.returnUrl,
    paymentUrl: input.paymentUrlFor(id),
    metadata: input.metadata,
    settleCurrency: await settleCurrencyFor(context, scope, input),
    paymentLinkId: input.paymentLinkId ?? null,
    receivedAmount: 0n,
    reversedAmount: 0n,
    txHash: null,
    late: false,
    failureReason: null,
    expiresAt: now + input.lifeTimeMinutes * 60_000,
    createdAt: now,
    updatedAt: now,
  };

  if (input.whiteLabel) {
    Object.assign(invoice, await quotePaymentMethod(context, invoice, input.whiteLabel.payCurrency, input.whiteLabel.network));
  } else {
    invoice.acceptedCoins = checkAcceptedCoins(context, scope.mode, input.acceptedCoins);
  }

  await withFreshAddress(context, invoice, () =>
    withOutbox(context, async (tx) => {
      await tx.insertInvoice(invoice);
      if (invoice.address) await recordIssuedAddress(tx, invoice, now, context.lateWindowMs);
      await recordEvents(context, tx, paymentEvents(context, [{ invoice, events: ["payment.created"] }]));
      await onCommit?.(tx, invoice);
    }),
  );
  return invoice;
}

/** The coin-dependent part of an invoice: coin, network, locked rate (with its time and sources), payAmount and a fresh address. */
type PaymentMethod = Pick<InvoiceRecord, "coin" | "network" | "rate" | "rateAt" | "rateSources" | "payAmount" | "address">;

/**
 * Fixes how an invoice is paid: checks the coin and network, locks the rate, computes
 * payAmount (refusing one below the network's depositMin) and issues an address. Whitelabel
 * invoices do it at creation; hosted ones when the payer picks a coin.
 */
async function quotePaymentMethod(context: CoreContext, invoice: InvoiceRecord, payCurrency: string, network: string | null): Promise<PaymentMethod> {
  const resolved = resolveNetwork(context, payCurrency, network, invoice.mode);
  const { currency } = resolved;
  const networkCode = resolved.network.network;
  const chain = context.chains.require(invoice.mode, currency.symbol, networkCode);
  const { rate, at: rateAt, sources: rateSources } = await quoteRateDetails(context, currency.symbol, invoice.amountCurrency);
  const payAmount = computePayAmount(context, invoice, currency, rate);
  if (payAmount < resolved.network.depositMin) {
    throw new PaymentError(
      "amount_below_minimum",
      `The invoice comes to ${formatDecimal(payAmount, currency.decimals)} ${currency.symbol}, less than the ${currency.symbol} minimum deposit of ${formatDecimal(resolved.network.depositMin, currency.decimals)} on ${networkCode}; raise the amount.`,
    );
  }
  const address = await chain.createAddress({ coin: currency.symbol, network: networkCode, merchantId: invoice.merchantId, invoiceId: invoice.id });
  return { coin: currency.symbol, network: networkCode, rate, rateAt, rateSources, payAmount, address };
}

/** How often an address handed out again is asked for anew when another invoice took it first. */
const ADDRESS_ATTEMPTS = 3;

/**
 * Runs `save` (which records `method.address`), asking the chain adapter for another address
 * when the one it handed out again went to another invoice meanwhile (two payers at once, the
 * adapter reusing the same expired address for both): the loser gets the adapter's next choice.
 */
async function withFreshAddress<T>(
  context: CoreContext,
  method: Pick<InvoiceRecord, "id" | "merchantId" | "mode" | "coin" | "network" | "address">,
  save: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await save();
    } catch (error) {
      if (!(error instanceof AddressTakenError) || method.address === null) throw error;
      const busy = () =>
        new PaymentError(
          "chain_unavailable",
          `No ${method.coin} deposit address is free right now: other payments took the ones that could be issued. Please try again.`,
          { cause: error },
        );
      if (attempt >= ADDRESS_ATTEMPTS) throw busy();
      const chain = context.chains.require(method.mode, method.coin!, method.network!);
      const refused = method.address;
      method.address = await chain.createAddress({ coin: method.coin!, network: method.network!, merchantId: method.merchantId, invoiceId: method.id });
      if (method.address === refused) throw busy(); // the adapter has nothing else to offer
    }
  }
}

/**
 * The payer's choice on the hosted page of a hosted-mode invoice: among its accepted coins,
 * fixes coin and network, locks the rate and issues the address. Only while the invoice is
 * PENDING and no method was chosen; choosing the same method again returns the invoice as it is.
 */
export async function selectPaymentMethod(context: CoreContext, invoiceId: string, payCurrency: string, network: string | null): Promise<InvoiceRecord> {
  const current = await context.storage.transaction((tx) => tx.lockInvoice(invoiceId));
  if (!current) throw notFound("invoice", invoiceId);
  if (current.coin !== null) {
    if (current.coin === payCurrency && (network === null || current.network === network)) return current;
    throw new PaymentError("invalid_state", "A payment method was chosen for this invoice already.");
  }
  if (current.status !== "PENDING" || context.now() >= current.expiresAt) {
    throw new PaymentError("invalid_state", `This invoice is ${current.status === "PENDING" ? "EXPIRED" : current.status}; no payment method can be chosen.`);
  }
  if (current.acceptedCoins !== null && !current.acceptedCoins.includes(payCurrency)) {
    throw new PaymentError("unsupported_currency", `This invoice accepts ${current.acceptedCoins.join(", ")}, not ${payCurrency}.`);
  }
  // Quoting calls the pricing and chain adapters, so it happens outside the transaction; the
  // transaction then re-checks that nobody chose first. The loser's address is recorded
  // nowhere (a Bitcoin-family adapter answers every request for one invoice with one address).
  const method = { ...(await quotePaymentMethod(context, current, payCurrency, network)), mode: current.mode, merchantId: current.merchantId, id: current.id };
  return withFreshAddress(context, method, () =>
    context.storage.transaction(async (tx) => {
      const invoice = await tx.lockInvoice(invoiceId);
      if (!invoice) throw notFound("invoice", invoiceId);
      if (invoice.coin !== null) {
        if (invoice.coin === method.coin && invoice.network === method.network) return invoice;
        throw new PaymentError("invalid_state", "A payment method was chosen for this invoice already.");
      }
      const now = context.now();
      const { coin, network: chosenNetwork, rate, rateAt, rateSources, payAmount, address } = method;
      const chosen: InvoiceRecord = { ...invoice, coin, network: chosenNetwork, rate, rateAt, rateSources, payAmount, address, updatedAt: now };
      await tx.updateInvoice(chosen);
      await recordIssuedAddress(tx, chosen, now, context.lateWindowMs);
      return chosen;
    }),
  );
}

/** The asset an invoice settles into: the one asked for, else the merchant's default. */
async function settleCurrencyFor(context: CoreContext, scope: Scope, input: Pick<CreateInvoiceInput, "settleCurrency" | "merchant">): Promise<string | null> {
  let symbol = input.settleCurrency;
  if (symbol === undefined) {
    const merchant = input.merchant?.id === scope.merchantId ? input.merchant : await context.storage.getMerchant(scope.merchantId);
    symbol = merchant?.settleCurrency ?? null;
  }
  if (symbol !== null && !context.currencies.crypto(symbol)) {
    throw new PaymentError("unsupported_currency", `settleCurrency "${symbol}" is not a supported crypto currency.`);
  }
  return symbol;
}

function checkAcceptedCoins(context: CoreContext, mode: Mode, coins: string[] | null): string[] | null {
  if (coins === null) return null;
  if (coins.length === 0) throw new PaymentError("validation_error", "acceptedCoins must name at least one coin, or be left out to accept all.");
  for (const coin of coins) {
    const currency = context.currencies.crypto(coin);
    if (!currency) {
      throw new PaymentError("unsupported_currency", `acceptedCoins: "${coin}" is not a supported crypto currency.`);
    }
    const served = context.chains.networks(mode, currency);
    if (served.length === 0) {
      throw new PaymentError("unsupported_currency", `acceptedCoins: ${coin} is not served in ${mode} mode; served: ${context.chains.describe(mode)}.`);
    }
    // Served, but only by chains refused at their start-up check: the page could offer nothing (503 naming why).
    if (!served.some(({ network }) => context.chains.offers(mode, coin, network))) context.chains.require(mode, coin, served[0]!.network);
  }
  return [...new Set(coins)];
}

/** The invoice with this id in `scope`, or a 404. */
export async function getInvoice(context: CoreContext, scope: Scope, id: string): Promise<InvoiceRecord> {
  const invoice = await context.storage.getInvoice(scope, id);
  if (!invoice) throw notFound("invoice", id);
  return invoice;
}

function machineState(invoice: InvoiceRecord): MachineState {
  return {
    status: invoice.status,
    payAmount: invoice.payAmount,
    underPaidCoverTenths: invoice.underPaidCoverTenths,
    expiresAt: invoice.expiresAt,
    late: invoice.late,
    failureReason: invoice.failureReason,
  };
}

/** An invoice after the machine moved it, with the events its steps recorded. */
export interface Advanced {
  invoice: InvoiceRecord;
  steps: Array<{ invoice: InvoiceRecord; events: PaymentEventType[] }>;
}

/** Runs the state machine on an invoice at `now` and returns the resulting record (not yet saved). */
export function advanceInvoice(invoice: InvoiceRecord, deposits: readonly MachineDeposit[], now: number): Advanced {
  const steps = settle(machineState(invoice), deposits, now).map((step) => ({
    invoice: { ...invoice, ...step.state, updatedAt: now },
    events: step.events,
  }));
  return { invoice: steps.at(-1)?.invoice ?? invoice, steps };
}

/**
 * Re-evaluates a locked invoice inside `tx` against its stored deposits and the clock, and
 * saves the result with its events (run `tx` through withOutbox). Returns the invoice as saved.
 */
export async function settleLockedInvoice(
  context: CoreContext,
  tx: StorageTransaction,
  invoice: InvoiceRecord,
  deposits?: DepositRecord[],
): Promise<InvoiceRecord> {
  const { invoice: next, steps } = advanceInvoice(invoice, deposits ?? (await tx.listDepositsForInvoice(invoice.id)), context.now());
  if (steps.length === 0) return invoice;
  await tx.updateInvoice(next);
  await recordEvents(context, tx, paymentEvents(context, steps));
  return next;
}

/**
 * Background loop body: moves invoices whose window has passed (PENDING -> EXPIRED,
 * UNDER_PAID -> FAILED). Returns how many changed.
 */
export async function expireDueInvoices(context: CoreContext, mode: Scope["mode"], limit = 100): Promise<number> {
  const due = await context.storage.listExpiringInvoices(mode, context.now(), limit);
  let changed = 0;
  for (const candidate of due) {
    const moved = await withOutbox(context, async (tx) => {
      const invoice = await tx.lockInvoice(candidate.id);
      if (!invoice) return false;
      return (await settleLockedInvoice(context, tx, invoice)) !== invoice;
    });
    if (moved) changed++;
  }
  return changed;
}

/**
 * Sandbox: ends an invoice's payment window now, as if its lifetime had run out. A deposit
 * already seen is still waited for, exactly as on a real expiry.
 */
export async function forceExpire(context: CoreContext, scope: Scope, id: string): Promise<InvoiceRecord> {
  return withOutbox(context, async (tx) => {
    const invoice = await tx.lockInvoice(id);
    if (!invoice || invoice.merchantId !== scope.merchantId || invoice.mode !== scope.mode) throw notFound("invoice", id);
    if (isTerminal(invoice.status) || invoice.status === "EXPIRED") {
      throw new PaymentError("invalid_state", `Invoice ${id} is ${invoice.status} already; only an open invoice can be expired.`);
    }
    const now = context.now();
    const shortened = { ...invoice, expiresAt: Math.min(invoice.expiresAt, now), updatedAt: now };
    await tx.updateInvoice(shortened);
    return settleLockedInvoice(context, tx, shortened);
  });
}
