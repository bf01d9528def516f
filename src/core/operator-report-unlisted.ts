import type { CoreContext } from "./context";
import type { Mode } from "./types";

/** One transfer of a token outside the currency list to an issued address, for the operator report. */
export interface ReportedUnlistedTransfer {
  network: string;
  /** The token contract. */
  token: string;
  /** The issued address it went to. */
  address: string;
  txHash: string;
  /** Raw on-chain units, as a decimal string: the service does not know the token's decimals. */
  amount: string;
  merchantId: string;
  invoiceId: string;
  /** When the service recorded it (ISO 8601). */
  seenAt: string;
}

/**
 * PLACEHOLDER: the unlisted-token transfers recorded through the chain host, for the operator
 * report's `unlistedTransfers` section. Until the store of those transfers is part of this
 * build it reads nothing and returns an empty list; once it is, this reads it (every transfer
 * of `mode`, in the order stored) and maps each record to a `ReportedUnlistedTransfer`.
 */
export async function readUnlistedTransfers(_context: CoreContext, _mode: Mode): Promise<ReportedUnlistedTransfer[]> {
  return [];
}
