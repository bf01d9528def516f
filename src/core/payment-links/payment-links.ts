import { type PageQuery, requireStoragePart, type Scope, type Storage, type StorageTransaction } from "../ports/storage/index";
import { notFound, PaymentError } from "../../errors";
import { formatDecimal } from "../../money";
import type { CoreContext } from "../context";
import type { CommitHook } from "../idempotency/idempotency";
import { newId } from "../../ids";
import { createInvoice, parseAmountIn } from "../invoices/invoices";
import type { InvoiceRecord } from "../invoices/records";
import type { PaymentLinkRecord } from "./records";

/** The storage's payment links part, or the 501 of a storage without it (docs/storage.md, "Optional parts"). */
const linkStorage = (storage: Storage) => requireStoragePart(storage, "paymentLinks", "Payment links");
/** The same, on a transaction: its writes too. */
const linkTransaction = (tx: StorageTransaction) => requireStoragePart(tx, "paymentLinks", "Payment links", true);
/** A payment link's settings, shape-checked by the caller: the record's, with `amount` a decimal string in `amountCurrency`. */
export type CreatePaymentLinkInput = Omit<PaymentLinkRecord, "id" | "merchantId" | "mode" | "amount" | "active" | "createdAt" | "updatedAt"> & {
  amount: string;
};

/** Creates a reusable payment link; the settings are checked now, not at the first visit. */
export async function createPaymentLink(
  context: CoreContext,
  scope: Scope,
  input: CreatePaymentLinkInput,
  onCommit?: CommitHook<PaymentLinkRecord>,
): Promise<PaymentLinkRecord> {
  const amount = parseAmountIn(context, input.amount, input.amountCurrency);
  if (amount <= 0n) throw new PaymentError("validation_error", "Invalid request: amount: must be greater than 0.");
  for (const symbol of [...(input.acceptedCoins ?? []), ...(input.settleCurrency ? [input.settleCurrency] : [])]) {
    if (!context.currencies.crypto(symbol)) throw new PaymentError("unsupported_currency", `"${symbol}" is not a supported crypto currency.`);
  }
  const now = context.now();
  const link: PaymentLinkRecord = {
    id: newId("plink"),
    merchantId: scope.merchantId,
    mode: scope.mode,
    ...input,
    amount,
    acceptedCoins: input.acceptedCoins && [...new Set(input.acceptedCoins)],
    active: true,
    createdAt: now,
    updatedAt: now,
  };
  linkStorage(context.storage);
  await context.storage.transaction(async (tx) => {
    await linkTransaction(tx).insertPaymentLink(link);
    await onCommit?.(tx, link);
  });
  return link;
}

/** The payment link with this id in `scope`, or a 404. */
export async function getPaymentLink(context: CoreContext, scope: Scope, id: string): Promise<PaymentLinkRecord> {
  const link = await linkStorage(context.storage).getPaymentLink(scope, id);
  if (!link) throw notFound("payment link", id);
  return link;
}

/** One page of payment links, newest first. */
export async function listPaymentLinks(context: CoreContext, scope: Scope, page: PageQuery): Promise<PaymentLinkRecord[]> {
  return linkStorage(context.storage).listPaymentLinks(scope, page);
}

/** Stops a link from creating invoices; invoices it created already are unaffected. Idempotent. */
export async function deactivatePaymentLink(context: CoreContext, scope: Scope, id: string): Promise<PaymentLinkRecord> {
  linkStorage(context.storage);
  return context.storage.transaction(async (transaction) => {
    const tx = linkTransaction(transaction);
    const link = await tx.lockPaymentLink(id);
    if (!link || link.merchantId !== scope.merchantId || link.mode !== scope.mode) throw notFound("payment link", id);
    if (!link.active) return link;
    const deactivated = { ...link, active: false, updatedAt: context.now() };
    await tx.updatePaymentLink(deactivated);
    return deactivated;
  });
}

/**
 * The link behind a public URL, for its page: a plain read that changes nothing. An unknown
 * link is a 404, a deactivated one `invalid_state`.
 */
export async function openPaymentLink(context: CoreContext, id: string): Promise<PaymentLinkRecord> {
  const link = await linkStorage(context.storage).findPaymentLink(id);
  if (!link) throw notFound("payment link", id);
  if (!link.active) throw new PaymentError("invalid_state", "This payment link is no longer active.");
  return link;
}

/**
 * The payer asked to pay through a link (its page's form): a fresh hosted invoice with the
 * link's settings (its metadata gains `paymentLinkId`, so events say where the payment came
 * from). A deactivated or unknown link is refused.
 */
export async function payThroughPaymentLink(context: CoreContext, id: string, paymentUrlFor: (invoiceId: string) => string): Promise<InvoiceRecord> {
  const link = await openPaymentLink(context, id);
  const decimals = context.currencies.decimalsOf(link.amountCurrency) ?? 0;
  return createInvoice(
    context,
    { merchantId: link.merchantId, mode: link.mode },
    {
      amount: formatDecimal(link.amount, decimals),
      amountCurrency: link.amountCurrency,
      acceptedCoins: link.acceptedCoins,
      whiteLabel: null,
      underPaidCoverTenths: link.underPaidCoverTenths,
      feePaidByPayer: link.feePaidByPayer,
      lifeTimeMinutes: link.lifeTimeMinutes,
      returnUrl: link.returnUrl,
      metadata: { ...link.metadata, paymentLinkId: link.id },
      // A link without its own settle currency follows the merchant's default at each payment.
      settleCurrency: link.settleCurrency ?? undefined,
      paymentLinkId: link.id,
      paymentUrlFor,
    },
  );
}

/**
 * The invoice a returning visitor of link `linkId` may be sent back to instead of a new one:
 * `invoiceId` (what the visitor's browser remembers) when it was made by this link, is still
 * PENDING (nothing received) and its payment window has not ended. Null otherwise: an invoice
 * that is being paid, was paid, expired or belongs elsewhere is never handed out again.
 */
export async function openInvoiceOfLink(context: CoreContext, linkId: string, invoiceId: string): Promise<InvoiceRecord | null> {
  const invoice = await context.storage.findInvoice(invoiceId);
  if (!invoice || invoice.paymentLinkId !== linkId || invoice.status !== "PENDING") return null;
  return context.now() < invoice.expiresAt ? invoice : null;
}
