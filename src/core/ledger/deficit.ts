import type { StorageTransaction } from "../ports/storage/index";
import { PaymentError } from "../../errors";
import { formatDecimal } from "../../money";
import type { CoreContext } from "../context";
import type { Mode } from "../merchants/records";

/**
 * When a debit was refused for want of balance, tells a balance below zero apart from one that
 * is merely short: below zero (a credited deposit that left the chain was taken back), every
 * debit of the asset is refused with `balance_in_deficit` naming the shortfall until credits
 * cover it. Returns normally when the balance is zero or more, for the caller's own error.
 */
export async function refuseIfInDeficit(context: CoreContext, tx: StorageTransaction, scope: { merchantId: string; mode: Mode }, asset: string): Promise<void> {
  const balance = await tx.getBalance(scope, asset);
  if (balance >= 0n) return;
  const decimals = context.currencies.decimalsOf(asset) ?? 0;
  throw new PaymentError(
    "balance_in_deficit",
    `The ${asset} balance is ${formatDecimal(-balance, decimals)} ${asset} below zero: a credited deposit left the chain and its credit was taken back. Payouts, refunds and conversions of ${asset} are refused until ${formatDecimal(-balance, decimals)} ${asset} more is credited.`,
  );
}
