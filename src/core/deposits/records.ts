/**
 * What the chains put on record: deposits, issued addresses and transfers of unlisted tokens.
 * Amounts are bigint smallest units of the record's asset; times are epoch milliseconds.
 * Storage adapters persist these shapes as they are.
 */
import type { Mode } from "../merchants/records";

/**
 * Lifecycle of one on-chain deposit as this service tracks it: PENDING (seen, not final),
 * CONFIRMED (final and credited), DROPPED (left the chain before it was final, never credited),
 * REVERSED (credited, then left the chain in a reorg deeper than its confirmations: the credit
 * was taken back). A DROPPED or REVERSED deposit that comes back on chain is PENDING again.
 */
export type DepositStatus = "PENDING" | "CONFIRMED" | "DROPPED" | "REVERSED";

/** One transfer to an address this service issued. */
export interface DepositRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  invoiceId: string;
  coin: string;
  network: string;
  address: string;
  txHash: string;
  /** Output (UTXO chains) or log index (EVM): with network and txHash, the unique key. */
  outputIndex: number;
  amount: bigint;
  confirmations: number;
  /**
   * The block the chain last reported the transfer in (its hash), null while it was in none (a
   * mempool transaction) or when the chain adapter does not name blocks. A report of a drop
   * from another block than this one is about a block the transfer has left, and changes nothing.
   */
  blockHash: string | null;
  status: DepositStatus;
  /**
   * False for deposits that do not move the invoice: a coin other than the invoice's (a stray
   * deposit, credited in its own coin) or a transfer after the invoice's monitoring window closed.
   */
  countsTowardInvoice: boolean;
  /** Fee taken when credited (0.5% of amount, rounded down). */
  fee: bigint;
  /** When the credit that stands now was posted; null while not credited (or after a reversal). */
  creditedAt: number | null;
  /**
   * The asset and amount the standing credit put on the balance: the coin and the net amount,
   * or the settle currency and the converted amount after an auto-conversion. What a reversal
   * takes back. Null / 0 while not credited.
   */
  creditedAsset: string | null;
  creditedAmount: bigint;
  /** How many times the deposit was reversed; each re-credit and reversal has its own cause key. */
  reversals: number;
  seenAt: number;
  updatedAt: number;
}

/** Where an issued deposit address points. */
export interface AddressRecord {
  mode: Mode;
  network: string;
  address: string;
  coin: string;
  merchantId: string;
  invoiceId: string;
  createdAt: number;
}

/**
 * A transfer of a token the chain does not list (an ERC-20 outside the currency list) to an
 * issued address, as the chain adapter saw it once final. Never credited and never swept: kept so
 * that the operator sees what sits at deposit addresses besides the ledger's coins.
 */
export interface UnlistedTransferRecord {
  id: string;
  mode: Mode;
  network: string;
  /** The token contract (checksummed on EVM networks). */
  token: string;
  /** The issued address it went to. */
  address: string;
  txHash: string;
  /** The log's index in its block: with mode, network and txHash, the unique key. */
  logIndex: number;
  /** Raw on-chain units: the service does not know the token's decimals. */
  amount: bigint;
  blockNumber: number;
  /** The merchant, invoice and coin the address was issued for. */
  merchantId: string;
  invoiceId: string;
  coin: string;
  /** When the service stored it (epoch ms). */
  seenAt: number;
}
