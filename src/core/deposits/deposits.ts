import type { ChainAdapter, ChainDeposit } from "../ports/chain";
import type { StorageTransaction } from "../ports/storage/index";
import type { CoreContext } from "../context";
import { logDepositNotice, type DepositNotice } from "./deposit-log";
import { conversionEvent, paymentEvents } from "../webhooks/events";
import { paymentFee } from "../invoices/fees";
import { newId } from "../../ids";
import { formatDecimal } from "../../money";
import { advanceInvoice } from "../invoices/invoices";
import { isTerminal } from "../invoices/machine";
import { recordEvents, withOutbox } from "../webhooks/outbox";
import type { Currency } from "../../currencies";
import { convert } from "../exchanges/exchanges";
import { quoteRate } from "../rates";
import type { AddressRecord, DepositRecord, DepositStatus } from "./records";
import type { ExchangeRecord } from "../exchanges/records";
import type { InvoiceRecord, PaymentEventType } from "../invoices/records";
import type { Mode } from "../merchants/records";

/**
 * Applies what the chain reports about one transfer. Reports are whole states, so applying the
 * same one twice changes nothing: the deposit's unique chain identity and the ledger's cause
 * keys make each credit and each reversal happen exactly once, whatever the invoice's state.
 *
 * Every confirmed transfer of a listed coin to an issued address is credited, less the fee, in
 * the coin received. A coin other than the one the address was issued for (a stray deposit)
 * is recorded on the invoice without counting toward it, and is never auto-converted, so it
 * can be refunded in its own coin. A credited deposit that the chain later reports dropped (a
 * reorg deeper than its confirmations) is REVERSED: what its credit put on the balance is taken
 * back, even below zero. If it comes back on chain it is credited again once final.
 *
 * Order matters: the clock is applied first (an invoice whose window passed before this
 * deposit was seen expires first), then the deposit, then the machine runs again.
 */
export async function applyChainDeposit(context: CoreContext, mode: Mode, report: ChainDeposit): Promise<void> {
  const issued = await context.storage.findAddress(mode, report.network, report.address);
  if (!issued) return; // Not an address we issued: another service's business.
  const network = context.currencies.network(report.coin, report.network);
  if (!network) {
    context.logger.error(`deposit on ${report.coin}/${report.network}, which is no longer in the currency list`, { txHash: report.txHash });
    return;
  }
  const stray = issued.coin !== report.coin;
  // Final, and credited, at the serving chain's confirmations (its own setting, else the list's
  // minConfirm): the chain stops counting the deposit's confirmations there.
  const required = context.chains.confirmations(mode, report.coin, network);
  const final = !report.dropped && report.confirmations >= required;

  // Auto-conversion needs a live rate; it is fetched before the transaction so that no lock is
  // held across a call to the pricing source. A stray coin stays in its coin (it is refundable).
  const settlement = final && !stray ? await settlementRate(context, mode, issued, report.coin) : null;

  const notices: DepositNotice[] = [];
  await withOutbox(context, async (tx) => {
    const locked = await tx.lockInvoice(issued.invoiceId);
    if (!locked) return;
    const now = context.now();
    const before = advanceInvoice(locked, await tx.listDepositsForInvoice(locked.id), now);
    const invoice = before.invoice;

    const existing = await tx.lockDeposit(mode, report.network, report.txHash, report.outputIndex);
    // A drop from a block the transfer has since left (a replayed scan that still holds the
    // block a reorg orphaned) is old news: the transfer is in the block last reported.
    if (existing && staleDrop(existing, report) && before.steps.length === 0) return;
    const stale = existing !== null && staleDrop(existing, report);
    const status = stale ? existing.status : nextDepositStatus(existing, report.dropped, final);
    const blockHash = stale || report.blockHash === undefined ? (existing?.blockHash ?? null) : report.blockHash;
    let deposit: DepositRecord;
    if (existing) {
      const confirmations = stale ? existing.confirmations : report.confirmations;
      if (status === existing.status && confirmations === existing.confirmations && blockHash === existing.blockHash && before.steps.length === 0) return;
      deposit = { ...existing, status, confirmations, blockHash, updatedAt: now };
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
        blockHash,
        status,
        countsTowardInvoice: !stray && countsToward(context, invoice, now),
        fee: 0n,
        creditedAt: null,
        creditedAsset: null,
        creditedAmount: 0n,
        reversals: 0,
        seenAt: now,
        updatedAt: now,
      };
    }

    // What the deposit itself tells the merchant, besides the invoice's own moves.
    const depositEvents: PaymentEventType[] = [];
    if (deposit.status === "CONFIRMED" && deposit.creditedAt === null) {
      deposit = await credit(tx, deposit, now);
      if (settlement) deposit = await autoConvert(context, tx, deposit, settlement, now);
      notices.push({ kind: stray ? "stray" : "credited", deposit });
      if (stray) depositEvents.push("payment.unexpected_deposit");
      // Credited again after a reversal, on an invoice the machine no longer moves: say so.
      else if (deposit.reversals > 0 && deposit.countsTowardInvoice && isTerminal(invoice.status)) depositEvents.push("payment.confirmed");
    } else if (deposit.status === "REVERSED" && deposit.creditedAt !== null) {
      const taken = deposit;
      deposit = await reverse(tx, deposit, now);
      notices.push({ kind: "reversed", deposit: taken });
      depositEvents.push("payment.reversed");
    } else if (deposit.status === "DROPPED" && existing?.status === "PENDING" && deposit.countsTowardInvoice) {
      depositEvents.push("payment.deposit_dropped");
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
        ? advanceInvoice(
            received,
            deposits.map((entry) => (entry.id === deposit.id ? { ...entry, status: "PENDING" as const } : entry)),
            now,
          )
        : null;
    const after = advanceInvoice(seen?.invoice ?? received, deposits, now);
    await tx.updateInvoice(after.invoice);
    const steps = [...before.steps, ...(seen?.steps ?? []), ...after.steps, { invoice: after.invoice, events: depositEvents }];
    await recordEvents(context, tx, paymentEvents(context, steps, deposits));
  });
  for (const notice of notices) {
    logDepositNotice(context, notice);
    if (notice.kind !== "reversed") {
      const { deposit } = notice;
      context.telemetry?.depositCredited(deposit.mode, deposit.coin, formatDecimal(deposit.amount, context.currencies.decimalsOf(deposit.coin) ?? 0));
    }
  }
}

/**
 * Whether a report is a drop from another block than the one the service last saw the transfer
 * in: a scan replaying blocks it read before (set back to an older cursor) still holds a block
 * that a reorg orphaned, while the transfer was found again in its new block since. Only a drop
 * that names the block the deposit is known in (or one of a transfer known in no block) counts.
 */
function staleDrop(existing: DepositRecord, report: ChainDeposit): boolean {
  return report.dropped && report.blockHash != null && existing.blockHash !== null && report.blockHash !== existing.blockHash;
}

/**
 * The status a deposit takes from a chain report. A credited deposit stays CONFIRMED while the
 * chain still holds its transaction, even with fewer confirmations than before (a reorg put it
 * back in the mempool or in a newer block): only a report that it left the chain reverses it.
 */
function nextDepositStatus(existing: DepositRecord | null, dropped: boolean, final: boolean): DepositStatus {
  const credited = existing !== null && existing.creditedAt !== null;
  // Credited and gone, or gone again before its re-credit: still reversed, never merely dropped.
  if (dropped) return credited || existing?.status === "REVERSED" ? "REVERSED" : "DROPPED";
  if (final || credited) return "CONFIRMED";
  return "PENDING";
}

/**
 * Whether a new deposit may move the invoice. An expired invoice listens for the late window
 * (a payer who sent just after expiry is still served); past it, money is credited and shown
 * on the invoice but the invoice stays closed.
 */
function countsToward(context: CoreContext, invoice: InvoiceRecord, now: number): boolean {
  return invoice.status !== "EXPIRED" || now < invoice.expiresAt + context.lateWindowMs;
}

/**
 * Credits a confirmed deposit, net of the fee, under a cause key that can post only once. The
 * first credit's key is `deposit:<id>`; a credit after the n-th reversal is `deposit:<id>:credit:<n>`.
 */
async function credit(tx: StorageTransaction, deposit: DepositRecord, now: number): Promise<DepositRecord> {
  const fee = paymentFee(deposit.amount);
  const net = deposit.amount - fee;
  const result = await tx.postLedgerEntries([
    {
      id: newId("led"),
      merchantId: deposit.merchantId,
      mode: deposit.mode,
      asset: deposit.coin,
      amount: net,
      kind: "deposit",
      causeKey: deposit.reversals === 0 ? `deposit:${deposit.id}` : `deposit:${deposit.id}:credit:${deposit.reversals}`,
      createdAt: now,
    },
  ]);
  if (result.status === "insufficient") throw new Error("a credit cannot overdraw a balance");
  return { ...deposit, fee, creditedAt: now, creditedAsset: deposit.coin, creditedAmount: net };
}

/**
 * Takes back exactly what the deposit's standing credit put on the balance (its net amount in
 * the coin, or the converted amount in the settle currency), whatever the balance is now: a
 * reversal may leave it below zero, and then every debit of that asset waits until credits
 * cover the shortfall. The n-th reversal posts under `deposit:<id>:reversal:<n>`.
 */
async function reverse(tx: StorageTransaction, deposit: DepositRecord, now: number): Promise<DepositRecord> {
  const reversals = deposit.reversals + 1;
  const asset = deposit.creditedAsset ?? deposit.coin;
  const amount = deposit.creditedAsset === null ? deposit.amount - deposit.fee : deposit.creditedAmount;
  const result = await tx.postLedgerEntries(
    [
      {
        id: newId("led"),
        merchantId: deposit.merchantId,
        mode: deposit.mode,
        asset,
        amount: -amount,
        kind: "deposit_reversal",
        causeKey: `deposit:${deposit.id}:reversal:${reversals}`,
        createdAt: now,
      },
    ],
    { overdraw: true },
  );
  if (result.status !== "posted") throw new Error(`the reversal of deposit ${deposit.id} could not post: ${result.status}`);
  return { ...deposit, reversals, creditedAt: null, creditedAsset: asset, creditedAmount: amount };
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
 * `conversion.completed` event). Returns the
 * deposit with what its credit now amounts to (the converted amount in the settle currency).
 * When the coin's balance is below zero (a reversal not yet covered), the credit stays in the
 * coin and covers that shortfall instead: converting it would overdraw the coin.
 */
async function autoConvert(
  context: CoreContext,
  tx: StorageTransaction,
  deposit: DepositRecord,
  settlement: { to: Currency; rate: bigint },
  now: number,
): Promise<DepositRecord> {
  const from = context.currencies.crypto(deposit.coin)!;
  const net = deposit.amount - deposit.fee;
  const toAmount = convert(context, net, from, settlement.to, settlement.rate);
  if (toAmount === 0n) return deposit; // Dust: nothing to convert into; it stays in the coin.
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
  if (posted.status === "insufficient") {
    context.logger.warn(`auto-conversion of deposit ${deposit.id} skipped: the ${from.symbol} balance is below zero, and this credit covers it`);
    return deposit;
  }
  if (posted.status !== "posted") throw new Error(`auto-conversion of deposit ${deposit.id} could not post: ${posted.status}`);
  await tx.insertExchange(exchange);
  await recordEvents(context, tx, [conversionEvent(context, exchange)]);
  return { ...deposit, creditedAsset: settlement.to.symbol, creditedAmount: toAmount };
}

/**
 * Recomputes what the invoice shows: received is every deposit in the invoice's coin that is
 * seen or confirmed (counted or late); reversed is those credited and then taken back. Stray
 * coins are listed in the payment's deposits, never summed with its own coin.
 */
function withReceipts(invoice: InvoiceRecord, deposits: readonly DepositRecord[], now: number): InvoiceRecord {
  const own = deposits.filter((deposit) => deposit.coin === invoice.coin);
  const kept = own.filter((deposit) => deposit.status === "PENDING" || deposit.status === "CONFIRMED");
  return {
    ...invoice,
    receivedAmount: kept.reduce((sum, deposit) => sum + deposit.amount, 0n),
    reversedAmount: own.filter((deposit) => deposit.status === "REVERSED").reduce((sum, deposit) => sum + deposit.amount, 0n),
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
  if (context.telemetry) return context.telemetry.span("chain poll", { chain: chain.name, mode }, () => pollAllPages(context, mode, chain, pageSize));
  return pollAllPages(context, mode, chain, pageSize);
}

/**
 * The reports of one page, each transfer once: its last state, where that came. Reports are
 * whole states, so the last one of a transfer is all there is to apply; a reorg that moved a
 * transfer to another block within one read (dropped from the old block, found in the new one)
 * is then no drop at all.
 */
function newestStates(reports: readonly ChainDeposit[]): ChainDeposit[] {
  const identity = (report: ChainDeposit) => `${report.network}:${report.txHash}:${report.outputIndex}`;
  const last = new Map<string, number>();
  for (const [i, report] of reports.entries()) last.set(identity(report), i);
  return reports.filter((report, i) => last.get(identity(report)) === i);
}

/** The deposit feed read to its end, each page applied and the cursor moved after it. */
async function pollAllPages(context: CoreContext, mode: Mode, chain: ChainAdapter, pageSize: number): Promise<number> {
  const cursorKey = `deposits:${mode}:${chain.feedId ?? chain.name}`;
  let applied = 0;
  for (;;) {
    const page = await chain.pollDeposits(await context.storage.getCursor(cursorKey), pageSize);
    for (const report of newestStates(page.deposits)) {
      await applyChainDeposit(context, mode, report);
      applied++;
    }
    await context.storage.transaction((tx) => tx.setCursor(cursorKey, page.cursor));
    if (!page.hasMore) return applied;
  }
}
