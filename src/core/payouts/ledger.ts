import { newId } from "../../ids";
import type { LedgerEntry } from "../ledger/records";
import type { PayoutRecord } from "./records";

/**
 * The ledger entry that gives a payout's whole debit (amount and fee) back to the merchant's
 * balance: for a payout that failed on chain or was rejected before it left. One cause key per
 * payout, so the return posts at most once whichever path gets there.
 */
export function payoutDebitReturn(payout: PayoutRecord, now: number): LedgerEntry {
  return {
    id: newId("led"),
    merchantId: payout.merchantId,
    mode: payout.mode,
    asset: payout.coin,
    amount: payout.amount + payout.fee,
    kind: "payout_reversal",
    causeKey: `payout:${payout.id}:reversal`,
    createdAt: now,
  };
}
