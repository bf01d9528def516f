import type { ChainAdapter, ChainDeposit } from "../adapters/chain/types";
import type { StorageTransaction } from "../adapters/storage/types";
import type { CoreContext } from "./context";
import { conversionEvent, paymentEvents } from "./events";
import { paymentFee } from "./fees";
import { newId } from "./ids";
import { advanceInvoice } from "./invoices";
import { recordEvents, withOutbox } from "./outbox";
import type { Currency } from "./currencies";
import { convert } from "./exchanges";
import { quoteRate } from "./rates";
import type { AddressRecord, DepositRecord, DepositStatus, ExchangeRecord, InvoiceRecord, Mode } from "./types";

/**
 * Applies what the chain reports about one transfer. Reports are whole states, so applying the
 * same one twice changes nothing: the deposit's unique chain identity and the ledger's cause
 * key make the credit happen exactly once, whatever the invoice's state.
 *
 * Order matters: the clock is applied first (an invoice whose window passed before this
 * deposit was seen expires first), then the deposit, then the machine runs again.
 */
export async function applyChainDeposit(context: CoreContext, mode: Mode, report: ChainDeposit): Promise<void> {
  const issued = await context.storage.findAddress(mode, report.network, report.address);
  if (!issued) return; // Not an address we issued: another service's business.
  if (issued.coin !== report.coin) {
    context.logger.warn(`ignoring a ${report.coin} transfer to ${report.address}, issued for ${issued.coin}`, { txHash: report.txHash });
    return;
  }
  const network = context.currencies.network(report.coin, report.network);
  if (!network) {
    context.logger.error(`deposit on ${report.coin}/${report.network}, which is no longer in the currency list`, { txHash: report.txHash });
    return;
  }

  // Final at the serving chain's confirmations (its own setting, else the list's minConfirm):
  // the chain stops following the deposit there.
  const required = context.chains.confirmations(mode, report.coin, network);

  // Auto-conversion needs a live rate; it is fetched before the transaction so that no lock is
  // held across a call to the pricing source.
  const settlement = report.confirmations >= required && !report.dropped ? await settlementRate(context, mode, issued, report.coin) : null;

  await withOutbox(context, async (tx) => {
    const locked = await tx.lockInvoice(issued.invoiceId);
    if (!locked) return;
    const now = context.now();
    const before = advanceInvoice(locked, await tx.listDepositsForInvoice(locked.id), now);
    const invoice = before.invoice;

    const wanted: DepositStatus = report.dropped ? "DROPPED" : report.confirmations >= required ? "CONFIRMED" : "PENDING";
    const existing = await tx.lockDeposit(mode, report.network, report.txHash, report.outputIndex);
    let deposit: DepositRecord;
    if (existing) {
      // A confirmed deposit is final (that is what `required` means) and was credited: a later
      // drop or lower confirmation count from the chain no longer changes it.
      const status = existing.status === "CONFIRMED" ? "CONFIRMED" : wanted;
      if (status === existing.status && report.confirmations === existing.confirmations && before.steps.length === 0) return;
      deposit = { ...existing, status, confirmations: report.confirmations, updatedAt: now };
    } else {
      deposit = {
        id: newId("dep"),
        merchantId: locked.merchantId,
        mode,
        invoiceId: locked.id,
        coin: report.coin,
        network: report.network,
        address: report.address,
        txHash: report.txHash,
        outputIndex: report.outputIndex,
        amount: report.amount,
        confirmations: report.confirmations,
        status: wanted,
        countsTowardInvoice: countsToward(context, invoice, now),
        fee: 0n,
        creditedAt: null,
        seenAt: now,
        updatedAt: now,
      };
    }
    if (deposit.status === "CONFIRMED" && deposit.creditedAt === null) {
      deposit = await credit(tx, deposit, now);
      if (settlement) await autoConvert(context, tx, deposit, settlement, now);
    }

    if (existing) await tx.updateDeposit(deposit);
    else await tx.insertDeposit(deposit);

    const deposits = await tx.listDepositsForInvoice(locked.id);
    const received = withReceipts(invoice, deposits, now);
    // A transfer is seen before it is confirmed. One first reported with all its confirmations
    // still walks through "seen", so the merchant gets the same event trail however fast the
    // chain (or the sync) was.
    const seen =
      !existing && deposit.status === "CONFIRMED"
        ? advanceInvoice(received, deposits.map((entry) => (entry.id === deposit.id ? { ...entry, status: "PENDING" as const } : entry)), now)
        : null;
    const after = advanceInvoice(seen?.invoice ?? received, deposits, now);
    await tx.updateInvoice(after.invoice);
    await recordEvents(context, tx, paymentEvents(context, [...before.steps, ...(seen?.steps ?? []), ...after.steps]));
  });
}

/**
 * Whether a new deposit may move the invoice. An expired invoice listens for the late window
 * (a payer who sent just after expiry is still served); past it, money is credited and shown
 * on the invoice but the invoice stays closed.
 */
function countsToward(context: CoreContext, invoice: InvoiceRecord, now: number): boolean {
  return invoice.status !== "EXPIRED" || now < invoice.expiresAt + context.lateWindowMs;
}

/** Credits a confirmed deposit, net of the fee, under a cause key that can post only once. */
async function credit(tx: StorageTransaction, deposit: DepositRecord, now: number): Promise<DepositRecord> {
  const fee = paymentFee(deposit.amount);
  const result = await tx.postLedgerEntries([
    {
      id: newId("led"),
      merchantId: deposit.merchantId,
      mode: deposit.mode,
      asset: deposit.coin,
      amount: deposit.amount - fee,
      kind: "deposit",
      causeKey: `deposit:${deposit.id}`,
      createdAt: now,
    },
  ]);
  if (result.status === "insufficient") throw new Error("a credit cannot overdraw a balance");
  return { ...deposit, fee, creditedAt: now };
}

/** The asset and rate a credit of `coin` on this invoice converts into, or null to keep the coin. */
async function settlementRate(context: CoreContext, mode: Mode, issued: AddressRecord, coin: string): Promise<{ to: Currency; rate: bigint } | null> {
  const invoice = await context.storage.getInvoice({ merchantId: issued.merchantId, mode }, issued.invoiceId);
  const target = invoice?.settleCurrency ? context.currencies.crypto(invoice.settleCurrency) : undefined;
  if (!target || target.symbol === coin) return null;
  try {
    return { to: target, rate: await quoteRate(context, coin, target.symbol) };
  } catch (error) {
    // Crediting must not wait for a price: the merchant keeps the coin this time.
    context.logger.warn(`auto-conversion of a ${coin} payment to ${target.symbol} skipped: no rate`, error);
    return null;
  }
}

/**
 * Converts a deposit's net credit into the invoice's settle currency at the live rate, in the
 * same transaction as the credit, recorded as a conversion linked to the invoice (with its
 * `conversion.completed` event).
 */
async function autoConvert(context: CoreContext, tx: StorageTransaction, deposit: DepositRecord, settlement: { to: Currency; rate: bigint }, now: number): Promise<void> {
  const from = context.currencies.crypto(deposit.coin)!;
  const net = deposit.amount - deposit.fee;
  const toAmount = convert(context, net, from, settlement.to, settlement.rate);
  if (toAmount === 0n) return; // Dust: nothing to convert into; it stays in the coin.
  const exchange: ExchangeRecord = {
    id: newId("ex"),
    merchantId: deposit.merchantId,
    mode: deposit.mode,
    status: "SUCCESS",
    fromCoin: from.symbol,
    toCoin: settlement.to.symbol,
    amount: net,
    rate: settlement.rate,
    toAmount,
    invoiceId: deposit.invoiceId,
    createdAt: now,
  };
  const entry = { merchantId: deposit.merchantId, mode: deposit.mode, createdAt: now };
  const posted = await tx.postLedgerEntries([
    { ...entry, id: newId("led"), asset: from.symbol, amount: -net, kind: "exchange_out", causeKey: `exchange:${exchange.id}:out` },
    { ...entry, id: newId("led"), asset: settlement.to.symbol, amount: toAmount, kind: "exchange_in", causeKey: `exchange:${exchange.id}:in` },
  ]);
  if (posted.status !== "posted") throw new Error(`auto-conversion of deposit ${deposit.id} could not post: ${posted.status}`);
  await tx.insertExchange(exchange);
  await recordEvents(context, tx, [conversionEvent(context, exchange)]);
}

/** Recomputes what the invoice shows as received: every deposit not dropped, counted or late. */
function withReceipts(invoice: InvoiceRecord, deposits: readonly DepositRecord[], now: number): InvoiceRecord {
  const kept = deposits.filter((deposit) => deposit.status !== "DROPPED");
  return {
    ...invoice,
    receivedAmount: kept.reduce((sum, deposit) => sum + deposit.amount, 0n),
    txHash: kept.at(-1)?.txHash ?? null,
    updatedAt: now,
  };
}

/**
 * Background loop body for one chain: reads its deposit feed from the stored cursor and applies
 * every report. Returns how many reports were applied. Each chain is read on its own schedule,
 * so a node that hangs holds back only its own feed.
 */
export async function syncChainDeposits(context: CoreContext, mode: Mode, chain: ChainAdapter, pageSize = 100): Promise<number> {
  const cursorKey = `deposits:${mode}:${chain.feedId ?? chain.name}`;
  let applied = 0;
  for (;;) {
    const page = await chain.pollDeposits(await context.storage.getCursor(cursorKey), pageSize);
    for (const report of page.deposits) {
      await applyChainDeposit(context, mode, report);
      applied++;
    }
    await context.storage.transaction((tx) => tx.setCursor(cursorKey, page.cursor));
    if (!page.hasMore) return applied;
  }
}
