import { z } from "zod";
import { decodeStoredCursor } from "../block-cursor";

/**
 * The EVM scanner's cursor: everything it must remember between polls, kept by the service in
 * storage under the adapter's feed id (so a restart resumes, and instances sharing a database
 * share it). It stays small: block hashes of the reorg window and the deposits not yet final.
 */
export interface ScanCursor {
  v: 1;
  /** The chain the cursor was made on: a node swapped for one of another chain is refused. */
  chainId: number;
  /** The last block fully read. */
  height: number;
  /** [height, hash] of the newest blocks read, oldest first: how reorgs are detected. */
  hashes: Array<[number, string]>;
  /** Deposits seen and reported: not final yet, or final but still inside the reorg window. */
  tracked: TrackedDeposit[];
  /** Transfers of unlisted tokens to issued addresses, held until final, then reported once. Absent when none. */
  unlisted?: TrackedUnlisted[];
  /** The id of the last rescan request applied (see rescan-request.ts). Absent before the first. */
  rescan?: string;
}

/** A Transfer of a token the chain does not list, to an issued address, waiting to be final. */
export interface TrackedUnlisted {
  /** The token contract, checksummed. */
  token: string;
  address: string;
  txHash: string;
  /** The log's index in its block. */
  logIndex: number;
  /** Raw on-chain units, as a decimal string. */
  amount: string;
  block: number;
  blockHash: string;
}

/** One transfer to an issued address, followed until it is final or dropped. */
export interface TrackedDeposit {
  coin: string;
  address: string;
  invoiceId: string;
  txHash: string;
  /** See `transferIndex` in scanner.ts: stable for the transaction wherever it is mined. */
  index: number;
  /** In ledger units, as a decimal string. */
  amount: string;
  block: number;
  blockHash: string;
  /** Confirmations last reported. */
  reported: number;
  /** True once handed to `onFinal`; it is then watched only for a reorg deeper than its confirmations. */
  settled?: boolean;
}

const cursorSchema = z.strictObject({
  v: z.literal(1),
  chainId: z.int().positive(),
  height: z.int().min(-1),
  hashes: z.array(z.tuple([z.int().min(0), z.string()])),
  tracked: z.array(
    z.strictObject({
      coin: z.string(),
      address: z.string(),
      invoiceId: z.string(),
      txHash: z.string(),
      index: z.int().min(0),
      amount: z.string().regex(/^\d+$/),
      block: z.int().min(0),
      blockHash: z.string(),
      reported: z.int().min(0),
      settled: z.boolean().optional(),
    }),
  ),
  unlisted: z
    .array(
      z.strictObject({
        token: z.string(),
        address: z.string(),
        txHash: z.string(),
        logIndex: z.int().min(0),
        amount: z.string().regex(/^\d+$/),
        block: z.int().min(0),
        blockHash: z.string(),
      }),
    )
    .optional(),
  rescan: z.string().optional(),
});

/** Reads a stored cursor; throws when it was not written by this adapter (or is damaged). */
export function decodeCursor(text: string): ScanCursor {
  return decodeStoredCursor(text, cursorSchema, "evmChain()") as ScanCursor;
}

/** The text stored for a cursor. */
export function encodeCursor(cursor: ScanCursor): string {
  return JSON.stringify(cursor);
}
