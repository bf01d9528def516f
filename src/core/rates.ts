import { PaymentError } from "../errors";
import { AmountFormatError, parseDecimal, RATE_DECIMALS } from "../money";
import type { CoreContext } from "./context";

/**
 * The price of 1 `base` in `quote`, scaled by 10^RATE_DECIMALS. A pair the pricing adapter
 * does not know is the caller's mistake (400); an adapter that fails or answers nonsense is
 * ours (503), so the caller can retry.
 */
export async function quoteRate(context: CoreContext, base: string, quote: string): Promise<bigint> {
  if (base === quote) return 10n ** BigInt(RATE_DECIMALS);
  let answer;
  try {
    answer = await context.pricing.getRate(base, quote);
  } catch (error) {
    throw new PaymentError("pricing_unavailable", `No price for ${base}/${quote} could be fetched right now; try again shortly.`, {
      cause: error,
    });
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
  return rate;
}
