import type { StorageTransaction } from "../ports/storage/index";
import type { AddressRecord, DepositRecord } from "./records";
import type { InvoiceRecord } from "../invoices/records";

/**
 * Deposit addresses handed out again. A chain adapter that must not leave too many unused
 * addresses behind (a Bitcoin-family wallet restores only up to its gap limit) may give a new
 * invoice an address it issued before, when the invoice that held it can no longer be paid
 * through it: never paid, and past its late-payment window. The address record then points at
 * the new invoice, so whatever reaches the address from then on is credited there.
 */

/**
 * Whether the address `invoice` holds may go to a new invoice of `merchantId` at `now`: the
 * invoice is the same merchant's, was never paid anything (no deposit of any kind, dropped ones
 * included: that address has been used on chain), is PENDING or EXPIRED with no late deposit,
 * and its window closed more than `lateWindowMs` ago, so a payer who sends late is past the
 * time such a payment reopens it anyway.
 */
export function mayReuseAddress(invoice: InvoiceRecord, deposits: readonly DepositRecord[], merchantId: string, now: number, lateWindowMs: number): boolean {
  if (invoice.merchantId !== merchantId || invoice.late || deposits.length > 0 || invoice.receivedAmount !== 0n) return false;
  if (invoice.status !== "PENDING" && invoice.status !== "EXPIRED") return false;
  return now >= invoice.expiresAt + lateWindowMs;
}

/** Thrown inside a transaction when the address a chain adapter handed out went to another invoice meanwhile: ask the adapter again. */
export class AddressTakenError extends Error {
  constructor(address: string) {
    super(`address ${address} was handed to another invoice meanwhile`);
    this.name = "AddressTakenError";
  }
}

/**
 * Records that `invoice` (with its coin, network and address set) holds its address: a new
 * record, or, for an address issued before, the record taken over, after checking under the
 * lock of the invoice that held it that it may still be reused. Throws AddressTakenError when
 * it may not (another invoice took it first, or a deposit arrived since the adapter looked).
 */
export async function recordIssuedAddress(tx: StorageTransaction, invoice: InvoiceRecord, now: number, lateWindowMs: number): Promise<void> {
  const record: AddressRecord = {
    mode: invoice.mode,
    network: invoice.network!,
    address: invoice.address!,
    coin: invoice.coin!,
    merchantId: invoice.merchantId,
    invoiceId: invoice.id,
    createdAt: now,
  };
  const existing = await tx.findAddress(record.mode, record.network, record.address);
  if (!existing) return tx.insertAddress(record);
  if (existing.invoiceId === invoice.id) return; // recorded for this invoice already
  const holder = await tx.lockInvoice(existing.invoiceId);
  if (!holder || !mayReuseAddress(holder, await tx.listDepositsForInvoice(holder.id), invoice.merchantId, now, lateWindowMs)) {
    throw new AddressTakenError(record.address);
  }
  await tx.updateAddress(record);
}
