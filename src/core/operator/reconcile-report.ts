/**
 * The shape of `payments.admin.reconcile()`'s answer: what the records say the service holds
 * against what the chains hold, per chain and coin, then per asset against what is owed to
 * merchants. Every amount is an exact decimal string in coin units (an unlisted token's in its
 * raw on-chain units: the service does not know its decimals).
 */

/** Options of `payments.admin.reconcile`. */
export interface ReconcileOptions {
  /** Only the live chain of this network ("ETH", "LTC"). Default: every live chain. */
  chain?: string;
}

/** A number of records and their amounts summed, in coin units. */
export interface ReconcileCount {
  count: number;
  amount: string;
}

/** What explains a row without being a difference: listed, never counted in `difference`. */
export interface ReconcileExplained {
  /** Payouts debited and broadcast, not final yet (PROCESSING with a transaction hash): counted as sent. */
  payoutsInFlight: ReconcileCount;
  /** Payouts debited whose transaction has not left yet (PROCESSING without one): still in the hot wallet, owed to the merchant. */
  payoutsNotSent: ReconcileCount;
  /** Deposits seen and not final yet: neither credited nor counted as received. */
  pendingDeposits: ReconcileCount;
  /** Deposits credited and then removed by a reorg: their credit was taken back, their coins are gone. */
  reversedDeposits: ReconcileCount;
  /** Deposits of a coin other than their invoice's, credited in the coin received (counted in `received`). */
  strayDeposits: ReconcileCount;
}

/** One coin on one chain. `difference` = `onChain` - `expected`; 0 on a clean run. */
export interface ReconcileRow {
  coin: string;
  /** Deposits final and credited, not reversed (stray coins included). */
  received: string;
  /** Payouts that left: COMPLETED, and PROCESSING ones already broadcast. */
  sent: string;
  /** Network fees the service's own transactions paid in this coin (from the chain adapter). */
  networkFees: string;
  /** The operator's declared float in this coin (the adapter's `float` option). */
  float: string;
  /** received - sent - networkFees + float: what the chain should hold. */
  expected: string;
  /** What the hot wallet holds (payouts broadcast and not yet mined taken out). */
  hotWallet: string;
  /** Final deposits still at deposit addresses, not yet moved into the hot wallet. */
  depositAddresses: string;
  /** hotWallet + depositAddresses. */
  onChain: string;
  /** onChain - expected: positive when the chain holds more than the records explain. */
  difference: string;
  explained: ReconcileExplained;
}

/** Transfers of one token outside the currency list to issued addresses: on chain, never credited nor swept. */
export interface ReconcileUnlistedToken {
  /** The token contract. */
  token: string;
  transfers: number;
  /** Their sum in the token's raw on-chain units. */
  amount: string;
}

/** One live chain: its rows, or why it could not be read. */
export type ReconcileChain =
  | {
      network: string;
      /** The block the chain's side was read at. */
      height: number;
      rows: ReconcileRow[];
      unlistedTokens: ReconcileUnlistedToken[];
      error?: undefined;
    }
  | {
      network: string;
      /** Why the chain could not be read (node down, out of service, no holdings reader): never a URL or key. */
      error: string;
      /** What the records say of it all the same (the unlisted-token transfers stored). */
      unlistedTokens: ReconcileUnlistedToken[];
    };

/**
 * One asset (a coin symbol across its networks): what the chains hold of it, float taken out,
 * against what is owed to merchants and what the service earned. The service's fees (less the
 * network fees its transactions paid) are the operator's, so the surplus of a clean run is 0;
 * what remains are the exchange positions of conversions (positive in the asset converted
 * from, negative in the one converted into) and coins the records do not explain.
 */
export interface ReconcileAsset {
  asset: string;
  /** Sum of the merchants' balances, those below zero included. */
  balances: string;
  /** Merchants whose balance is below zero (a reversed deposit's credit taken back), and how far below in total (a positive amount). */
  deficits: ReconcileCount;
  /** Payouts debited whose transaction has not left yet: their amount is owed until it does. */
  payoutsNotSent: string;
  /** balances + payoutsNotSent. */
  owed: string;
  /** The service's own fees in the asset: 0.5% of the deposits credited, and the fees debited with payouts that were not given back. */
  fees: string;
  /** Network fees the service's own transactions paid in the asset (gas, miner fees), from the chains read; null when held is. */
  networkFees: string | null;
  /** What the chains serving the asset hold of it, minus the float; null when one of them was not read. */
  held: string | null;
  /** held - owed - (fees - networkFees): 0 on a clean run without conversions; null when held is. */
  surplus: string | null;
  /** True when the chains hold less than is owed: the service could not pay every merchant out. */
  shortfall: boolean;
}

/** What `payments.admin.reconcile()` returns. */
export interface ReconcileReport {
  mode: "live";
  generatedAt: string;
  /** Rows whose difference is not 0, plus assets in shortfall: 0 means the books match the chains. */
  differences: number;
  /** Chains that could not be read (their rows are missing). */
  errors: number;
  /** differences === 0 && errors === 0. */
  clean: boolean;
  chains: ReconcileChain[];
  assets: ReconcileAsset[];
}
