import { formatDecimal, RATE_DECIMALS } from "../../money";
import type { CurrencyCatalog } from "../../currencies";
import { paymentFee } from "../invoices/fees";
import { advanceInvoice } from "../invoices/invoices";
import type { MachineDeposit } from "../invoices/machine";
import type { InvoiceRecord, InvoiceStatus } from "../invoices/records";
import type { Mode } from "../merchants/records";

/** Which screen the hosted payment page shows. */
export type PayerStage = "choose" | "pay" | "paid" | "expired" | "failed";

/** A coin on one network the payer may choose on the hosted page. */
export interface PayerOption {
  coin: string;
  coinName: string;
  network: string;
  networkName: string;
}

/**
 * What the payer of an invoice may see, and nothing more: no merchant id, no metadata. The
 * locked rate is shown on the page (what the payer's coin amount was worked out from), never
 * in the status JSON. Amounts are decimal strings in the coin; `units` keeps the exact figures
 * for building a payment URI.
 */
export interface PayerView {
  id: string;
  mode: Mode;
  /** The status as of `now`: a window that has just passed shows as closed before the background loop records it. */
  status: InvoiceStatus;
  stage: PayerStage;
  /** The order total in its pricing currency, with all of its decimals ("25.00"). */
  amount: string;
  amountCurrency: string;
  coin: string | null;
  coinName: string | null;
  network: string | null;
  networkName: string | null;
  address: string | null;
  payAmount: string | null;
  receivedAmount: string | null;
  /** What is still to send (payAmount less everything received, unconfirmed included); null before a coin is chosen. */
  remaining: string | null;
  /** The 0.5% fee inside payAmount when the payer covers it; null otherwise. */
  fee: string | null;
  /** Received beyond payAmount; null when not overpaid. */
  overpaid: string | null;
  /** Something was received but less than payAmount. */
  partiallyPaid: boolean;
  /** Confirmations are awaited for a deposit that covers the amount. */
  awaitingConfirmations: boolean;
  /**
   * While a deposit that counts waits for confirmations: the fewest any of them has, and how
   * many make it final (`2 of 12`). Null when none waits or the number needed is unknown.
   */
  confirmations: { count: number; required: number } | null;
  /** The locked price of 1 coin in the pricing currency (a decimal string) and when it was observed; null before a coin is chosen. */
  rate: { price: string; currency: string; at: number | null } | null;
  expiresAt: number;
  /** Whole seconds until expiry (0 once passed). */
  secondsLeft: number;
  /** The merchant's return URL, only once PAID and only when it is http(s). */
  returnUrl: string | null;
  /** Exact figures in the coin's smallest units, for payment URIs. */
  units: { payAmount: bigint; received: bigint; remaining: bigint; decimals: number } | null;
}

/** An absolute http(s) URL, or null: anything else (javascript:, data:, relative) is never linked. */
export function httpUrlOrNull(value: string | null): string | null {
  if (value === null) return null;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? value : null;
  } catch {
    return null;
  }
}

/**
 * Builds the payer's view of an invoice at `now`. Pure: the state machine is run on the stored
 * deposits only to show what the clock has already decided (an invoice whose window just
 * passed reads EXPIRED, not PENDING); nothing is saved, the background loop records it.
 */
export function payerView(
  invoice: InvoiceRecord,
  deposits: readonly (MachineDeposit & { confirmations?: number })[],
  now: number,
  currencies: CurrencyCatalog,
  requiredConfirmations: number | null = null,
): PayerView {
  const current = advanceInvoice(invoice, deposits, now).invoice;
  const coin = current.coin ? currencies.crypto(current.coin) : undefined;
  const network = coin && current.network ? currencies.network(coin.symbol, current.network) : undefined;
  const decimals = coin?.decimals ?? 0;
  const format = (units: bigint) => formatDecimal(units, decimals);
  const fiatDecimals = currencies.decimalsOf(current.amountCurrency) ?? 0;

  let units: PayerView["units"] = null;
  if (current.payAmount !== null && coin) {
    const remaining = current.payAmount > current.receivedAmount ? current.payAmount - current.receivedAmount : 0n;
    units = { payAmount: current.payAmount, received: current.receivedAmount, remaining, decimals };
  }
  const pending = deposits.filter((deposit) => deposit.status === "PENDING" && deposit.countsTowardInvoice);
  const waiting = pending.length > 0;
  const fewest = Math.min(...pending.map((deposit) => deposit.confirmations ?? 0));

  return {
    id: current.id,
    mode: current.mode,
    status: current.status,
    stage: stageOf(current),
    amount: padFraction(formatDecimal(current.amount, fiatDecimals), fiatDecimals),
    amountCurrency: current.amountCurrency,
    coin: current.coin,
    coinName: coin?.name ?? current.coin,
    network: current.network,
    networkName: network?.name ?? current.network,
    address: current.address,
    payAmount: units ? format(units.payAmount) : null,
    receivedAmount: units ? format(units.received) : null,
    remaining: units ? format(units.remaining) : null,
    fee: units && current.feePaidByPayer ? format(paymentFee(units.payAmount)) : null,
    overpaid: units && units.received > units.payAmount ? format(units.received - units.payAmount) : null,
    partiallyPaid: units !== null && units.received > 0n && units.received < units.payAmount,
    awaitingConfirmations: current.status === "CONFIRMING" && waiting,
    confirmations: waiting && requiredConfirmations !== null ? { count: Math.min(fewest, requiredConfirmations), required: requiredConfirmations } : null,
    rate:
      current.rate !== null && current.coin !== null
        ? { price: padFraction(displayRate(current.rate), fiatDecimals), currency: current.amountCurrency, at: current.rateAt }
        : null,
    expiresAt: current.expiresAt,
    secondsLeft: Math.max(0, Math.ceil((current.expiresAt - now) / 1000)),
    returnUrl: current.status === "PAID" ? httpUrlOrNull(current.returnUrl) : null,
    units,
  };
}

function stageOf(invoice: InvoiceRecord): PayerStage {
  switch (invoice.status) {
    case "PAID":
      return "paid";
    case "FAILED":
      return "failed";
    case "EXPIRED":
      return "expired";
    default:
      return invoice.coin === null ? "choose" : "pay";
  }
}

/** Decimals a rate is shown with: enough for a coin worth a fraction of a cent, not the 18 it is kept with. */
const RATE_SHOWN_DECIMALS = 8;

/** A rate (scaled by 10^RATE_DECIMALS) as a decimal string rounded half up to RATE_SHOWN_DECIMALS, in integers. */
function displayRate(rate: bigint): string {
  const step = 10n ** BigInt(RATE_DECIMALS - RATE_SHOWN_DECIMALS);
  return formatDecimal((rate + step / 2n) / step, RATE_SHOWN_DECIMALS);
}

/** "25" -> "25.00" for a currency with 2 decimals: prices read as prices. */
export function padFraction(text: string, decimals: number): string {
  if (decimals === 0) return text;
  const [whole, fraction = ""] = text.split(".");
  return `${whole}.${fraction.padEnd(decimals, "0")}`;
}

/**
 * The coins and networks a hosted invoice's payer may choose from: its accepted coins (all
 * when null) on every configured network that `supports` serves (all when no chain is known).
 */
export function payerOptions(
  currencies: CurrencyCatalog,
  acceptedCoins: readonly string[] | null,
  supports: ((coin: string, network: string) => boolean) | null,
): PayerOption[] {
  const coins = acceptedCoins === null ? currencies.currencies : acceptedCoins.map((symbol) => currencies.crypto(symbol)).filter((coin) => coin !== undefined);
  return coins.flatMap((coin) =>
    coin.networks
      .filter((network) => supports === null || supports(coin.symbol, network.network))
      .map((network) => ({ coin: coin.symbol, coinName: coin.name, network: network.network, networkName: network.name })),
  );
}
