import type { ChainDeposit } from "../adapters/chain/types";
import type { StorageTransaction } from "../adapters/storage/types";
import type { CoreContext } from "./context";
import { paymentEvents } from "./events";
import { paymentFee } from "./fees";
import { newId } from "./ids";
import { advanceInvoice } from "./invoices";
import { recordEvents } from "./outbox";
import type { DepositRecord, DepositStatus, InvoiceRecord, Mode } from "./types";

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

  await context.storage.transaction(async (tx) => {
    const locked = await tx.lockInvoice(issued.invoiceId);
    if (!locked) return;
    const now = context.now();
    const before = advanceInvoice(locked, await tx.listDepositsForInvoice(locked.id), now);
    const invoice = before.invoice;

    const wanted: DepositStatus = report.dropped ? "DROPPED" : report.confirmations >= network.minConfirm ? "CONFIRMED" : "PENDING";
    const existing = await tx.lockDeposit(mode, report.network, report.txHash, report.outputIndex);
    let deposit: DepositRecord;
    if (existing) {
      // A confirmed deposit is final (that is what minConfirm means) and was credited: a later
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
    if (deposit.status === "CONFIRMED" && deposit.creditedAt === null) deposit = await credit(tx, deposit, now);

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
 * Background loop body: reads the chain's deposit feed from the stored cursor and applies
 * every report. Returns how many reports were applied.
 */
export async function syncDeposits(context: CoreContext, mode: Mode, pageSize = 100): Promise<number> {
  const chain = context.chains[mode];
  if (!chain) return 0;
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
