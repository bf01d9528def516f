import { formatDecimal } from "../../money";
import type { CoreContext } from "../context";
import { requireStoragePart } from "../ports/storage/index";
import { reportedUnlistedTransfers, type ReportedUnlistedTransfer } from "../deposits/unlisted";
import type { DepositRecord } from "../deposits/records";
import type { Mode } from "../merchants/records";

/** One deposit the operator must know about, amounts as exact decimal strings. */
export interface ReportedDeposit {
  depositId: string;
  merchantId: string;
  invoiceId: string;
  /** The coin received. */
  coin: string;
  network: string;
  address: string;
  /** What the payer sent, in `coin`. */
  amount: string;
  txHash: string;
  outputIndex: number;
  status: DepositRecord["status"];
  /** How many times it left the chain after it was credited. */
  reversals: number;
  /** The coin the invoice asked for (differs from `coin` for a stray deposit); null if none was chosen. */
  invoiceCoin: string | null;
  /** What its credit put on the balance (or, once reversed, what the reversal took back). */
  creditedAsset: string | null;
  creditedAmount: string | null;
  /** When it was first seen (ISO 8601). */
  seenAt: string;
}

/**
 * What an operator reconciles on-chain holdings against the ledger with: money that moved in
 * ways a merchant's balances alone do not explain. Sections:
 * - `reversedDeposits`: every deposit reversed at least once (credited, then removed by a reorg
 *   deeper than its confirmations), whatever its status now (REVERSED, or CONFIRMED again once
 *   re-credited); each reversal took back what its credit had put on the balance.
 * - `strayDeposits`: transfers of a listed coin other than the invoice's to its address,
 *   credited in the coin received and not counting toward the invoice.
 * - `unlistedTransfers`: tokens outside the currency list sent to issued addresses: never
 *   credited and never swept, they stay at the deposit address.
 */
export interface OperatorReport {
  mode: Mode;
  generatedAt: string;
  reversedDeposits: ReportedDeposit[];
  strayDeposits: ReportedDeposit[];
  unlistedTransfers: ReportedUnlistedTransfer[];
}

/** Options of `operatorReport`. */
export interface OperatorReportOptions {
  /** Which records: "live" (default) or "test". */
  mode?: Mode;
}

const PAGE = 500;

/** Builds the operator report of one mode, across every merchant. */
export async function operatorReport(context: CoreContext, options: OperatorReportOptions = {}): Promise<OperatorReport> {
  const mode = options.mode ?? "live";
  const storage = requireStoragePart(context.storage, "operatorReport", "The operator report");
  const notable: DepositRecord[] = [];
  for (let after: string | null = null; ; ) {
    const page = await storage.listNotableDeposits(mode, { limit: PAGE, after });
    notable.push(...page);
    if (page.length < PAGE) break;
    after = page.at(-1)!.id;
  }
  const invoiceCoins = new Map<string, string | null>();
  const coinOf = async (deposit: DepositRecord): Promise<string | null> => {
    if (!invoiceCoins.has(deposit.invoiceId)) {
      const invoice = await context.storage.getInvoice({ merchantId: deposit.merchantId, mode }, deposit.invoiceId);
      invoiceCoins.set(deposit.invoiceId, invoice?.coin ?? null);
    }
    return invoiceCoins.get(deposit.invoiceId)!;
  };
  const reversedDeposits: ReportedDeposit[] = [];
  const strayDeposits: ReportedDeposit[] = [];
  for (const deposit of notable) {
    const row = report(context, deposit, await coinOf(deposit));
    if (deposit.reversals > 0) reversedDeposits.push(row);
    if (row.invoiceCoin !== deposit.coin) strayDeposits.push(row);
  }
  return {
    mode,
    generatedAt: new Date(context.now()).toISOString(),
    reversedDeposits,
    strayDeposits,
    unlistedTransfers: await reportedUnlistedTransfers(context, mode),
  };
}

function report(context: CoreContext, deposit: DepositRecord, invoiceCoin: string | null): ReportedDeposit {
  const decimals = (asset: string) => context.currencies.decimalsOf(asset) ?? 0;
  return {
    depositId: deposit.id,
    merchantId: deposit.merchantId,
    invoiceId: deposit.invoiceId,
    coin: deposit.coin,
    network: deposit.network,
    address: deposit.address,
    amount: formatDecimal(deposit.amount, decimals(deposit.coin)),
    txHash: deposit.txHash,
    outputIndex: deposit.outputIndex,
    status: deposit.status,
    reversals: deposit.reversals,
    invoiceCoin,
    creditedAsset: deposit.creditedAsset,
    creditedAmount: deposit.creditedAsset === null ? null : formatDecimal(deposit.creditedAmount, decimals(deposit.creditedAsset)),
    seenAt: new Date(deposit.seenAt).toISOString(),
  };
}
