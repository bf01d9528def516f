import { PaymentError } from "../errors";
import { AmountFormatError, parseDecimal, RATE_DECIMALS } from "../money";
import { PriceUnavailableError, type Rate } from "./ports/pricing";
import type { CoreContext } from "./context";

/** A rate with where it came from. */
export interface QuotedRate {
  /** The price of 1 base in quote, scaled by 10^RATE_DECIMALS. */
  rate: bigint;
  /** When it was observed, epoch ms. */
  at: number;
  /** The sources it was combined from (empty when the adapter does not say). */
  sources: string[];
}

/**
 * The price of 1 `base` in `quote`, scaled by 10^RATE_DECIMALS. A pair the pricing adapter
 * does not know is the caller's mistake (400); an adapter that fails or answers nonsense is
 * ours (503), so the caller can retry.
 */
export async function quoteRate(context: CoreContext, base: string, quote: string): Promise<bigint> {
  return (await quoteRateDetails(context, base, quote)).rate;
}

/** {@link quoteRate} with the rate's time and sources, which invoices record. */
export async function quoteRateDetails(context: CoreContext, base: string, quote: string): Promise<QuotedRate> {
  if (base === quote) return { rate: 10n ** BigInt(RATE_DECIMALS), at: context.now(), sources: [] };
  let answer: Rate | null;
  try {
    answer = await context.pricing.getRate(base, quote);
  } catch (error) {
    // The adapter's own account of why (too few fresh sources, a depeg) is safe to show.
    const why = error instanceof PriceUnavailableError ? `${error.message}.` : `No price for ${base}/${quote} could be fetched right now; try again shortly.`;
    throw new PaymentError("pricing_unavailable", why, { cause: error });
  }
  if (!answer) throw new PaymentError("unsupported_currency", `There is no exchange rate between ${base} and ${quote}.`);
  let rate: bigint;
  try {
    rate = parseDecimal(answer.rate, RATE_DECIMALS, "down");
  } catch (error) {
    if (!(error instanceof AmountFormatError)) throw error;
    rate = 0n;
  }
  if (rate <= 0n) {
    context.logger.error(`pricing adapter returned an unusable rate for ${base}/${quote}: "${answer.rate}"`);
    throw new PaymentError("pricing_unavailable", `No usable price for ${base}/${quote} is available right now.`);
  }
  const at = answer.at instanceof Date && Number.isFinite(answer.at.getTime()) ? answer.at.getTime() : context.now();
  return { rate, at, sources: Array.isArray(answer.sources) ? answer.sources.filter((source) => typeof source === "string") : [] };
}
