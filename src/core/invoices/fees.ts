import { mulDivDown, mulDivUp } from "../../money";

/** The service fee on payments: 0.5%, as parts per thousand. */
const FEE_PER_MILLE = 5n;

/** The fee taken from a credited deposit: 0.5%, rounded down so it never exceeds 0.5%. */
export function paymentFee(received: bigint): bigint {
  return mulDivDown(received, FEE_PER_MILLE, 1000n);
}

/**
 * Grosses an amount up so that what is left after `paymentFee` is at least `net`: the payer
 * covers the fee when an invoice has `feePaidByPayer`.
 */
export function grossUpForFee(net: bigint): bigint {
  return mulDivUp(net, 1000n, 1000n - FEE_PER_MILLE);
}

/** The least total that settles an invoice: payAmount less the accepted underpayment. */
export function settleThreshold(payAmount: bigint, underPaidCoverTenths: number): bigint {
  return mulDivUp(payAmount, BigInt(1000 - underPaidCoverTenths), 1000n);
}
