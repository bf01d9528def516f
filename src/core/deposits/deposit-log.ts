import { formatDecimal } from "../../money";
import type { CoreContext } from "../context";
import type { DepositRecord } from "./records";

/** A line for the operator, logged once the change it describes has committed. */
export interface DepositNotice {
  kind: "credited" | "stray" | "reversed";
  deposit: DepositRecord;
}

/**
 * One structured line per credited deposit (info), stray deposit and reversal (warn: an operator
 * should look). Ids and amounts only: never a key or a node URL.
 */
export function logDepositNotice(context: CoreContext, { kind, deposit }: DepositNotice): void {
  const decimals = (asset: string) => context.currencies.decimalsOf(asset) ?? 0;
  const details = {
    depositId: deposit.id,
    invoiceId: deposit.invoiceId,
    merchantId: deposit.merchantId,
    mode: deposit.mode,
    coin: deposit.coin,
    network: deposit.network,
    txHash: deposit.txHash,
    outputIndex: deposit.outputIndex,
    amount: formatDecimal(deposit.amount, decimals(deposit.coin)),
    fee: formatDecimal(deposit.fee, decimals(deposit.coin)),
    creditedAsset: deposit.creditedAsset,
    creditedAmount: deposit.creditedAsset === null ? null : formatDecimal(deposit.creditedAmount, decimals(deposit.creditedAsset)),
  };
  if (kind === "credited") {
    const line = `deposit ${deposit.id} credited: ${details.creditedAmount} ${details.creditedAsset} for ${details.amount} ${deposit.coin} to invoice ${deposit.invoiceId}`;
    if (context.logger.info) context.logger.info(line, details);
  } else if (kind === "stray") {
    context.logger.warn(
      `stray deposit ${deposit.id} credited: ${details.amount} ${deposit.coin} sent to invoice ${deposit.invoiceId}, which asked for another coin (${details.creditedAmount} ${details.creditedAsset} credited)`,
      details,
    );
  } else {
    context.logger.warn(
      `deposit ${deposit.id} reversed: it left the chain after it was credited; ${details.creditedAmount} ${details.creditedAsset} taken back from merchant ${deposit.merchantId}`,
      { ...details, reversals: deposit.reversals + 1 },
    );
  }
}
