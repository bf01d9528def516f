import type { UnlistedTransfer } from "../ports/chain";
import { requireStoragePart, type Storage } from "../ports/storage/index";
import type { Logger } from "../ports/logger";
import { newId } from "../../ids";
import type { Mode } from "../merchants/records";
import type { UnlistedTransferRecord } from "./records";

/**
 * Tokens nobody listed: a transfer of a token outside the currency list to an issued address is
 * never credited and never swept (the sweep moves only listed coins), but it is not lost from
 * view either. The chain adapter reports it once final; it is stored once per chain identity,
 * logged once, and listed for the operator, who decides what to do with it (return it by hand
 * from the hot wallet's factory, list the token, or leave it).
 */

/**
 * Stores one reported transfer and logs it the first time (a repeated report changes nothing
 * and logs nothing). A transfer to an address this service never issued in `mode` is ignored:
 * another service's business, as for deposits.
 */
export async function recordUnlistedTransfer(
  services: { storage: Storage; logger: Logger; now?: () => number },
  mode: Mode,
  transfer: UnlistedTransfer,
): Promise<void> {
  const { storage, logger } = services;
  const issued = await storage.findAddress(mode, transfer.network, transfer.address);
  if (!issued) return;
  const record: UnlistedTransferRecord = {
    id: newId("unl"),
    mode,
    network: transfer.network,
    token: transfer.token,
    address: transfer.address,
    txHash: transfer.txHash,
    logIndex: transfer.logIndex,
    amount: transfer.amount,
    blockNumber: transfer.blockNumber,
    merchantId: issued.merchantId,
    invoiceId: issued.invoiceId,
    coin: issued.coin,
    seenAt: (services.now ?? Date.now)(),
  };
  const stored = await storage.transaction((tx) => tx.insertUnlistedTransfer(record));
  if (!stored) return;
  logger.warn(
    `unlisted token received on ${transfer.network}: ${transfer.amount} raw units of token contract ${transfer.token} to ${transfer.address} ` +
      `(invoice ${issued.invoiceId}, merchant ${issued.merchantId}) in tx ${transfer.txHash}; not credited, never swept: it stays at the deposit address`,
    {
      unlistedTransfer: {
        id: record.id,
        mode,
        network: record.network,
        token: record.token,
        address: record.address,
        txHash: record.txHash,
        logIndex: record.logIndex,
        amount: String(record.amount),
        blockNumber: record.blockNumber,
        merchantId: record.merchantId,
        invoiceId: record.invoiceId,
      },
    },
  );
}

/**
 * Every unlisted-token transfer seen in `mode`, all merchants, in the order stored: what the
 * operator report lists to explain holdings at deposit addresses that no balance accounts for.
 */
export function listUnlistedTransfers(context: { storage: Storage }, mode: Mode): Promise<UnlistedTransferRecord[]> {
  return requireStoragePart(context.storage, "operatorReport", "The operator report").listUnlistedTransfers(mode);
}

/** One transfer of a token outside the currency list to an issued address, as the operator report lists it. */
export interface ReportedUnlistedTransfer {
  network: string;
  /** The token contract. */
  token: string;
  /** The issued address it went to. */
  address: string;
  txHash: string;
  /** The log's index in its block. */
  logIndex: number;
  blockNumber: number;
  /** Raw on-chain units, as a decimal string: the service does not know the token's decimals. */
  amount: string;
  /** The merchant, invoice and coin the address was issued for. */
  merchantId: string;
  invoiceId: string;
  coin: string;
  /** When the service recorded it (ISO 8601). */
  seenAt: string;
}

/** The operator report's `unlistedTransfers`: every one stored in `mode`, in the order stored. */
export async function reportedUnlistedTransfers(context: { storage: Storage }, mode: Mode): Promise<ReportedUnlistedTransfer[]> {
  return (await listUnlistedTransfers(context, mode)).map((record) => ({
    network: record.network,
    token: record.token,
    address: record.address,
    txHash: record.txHash,
    logIndex: record.logIndex,
    blockNumber: record.blockNumber,
    amount: record.amount.toString(),
    merchantId: record.merchantId,
    invoiceId: record.invoiceId,
    coin: record.coin,
    seenAt: new Date(record.seenAt).toISOString(),
  }));
}
