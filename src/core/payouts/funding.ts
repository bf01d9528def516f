import { scrubUrls } from "../../scrub-urls";
import type { ChainAdapter, HotWalletBalance } from "../ports/chain";
import type { CoreContext } from "../context";
import type { StorageTransaction } from "../ports/storage/index";
import { PaymentError } from "../../errors";
import { formatDecimal } from "../../money";
import { Deadline, REQUEST_NODE_WAIT_MS } from "../deadline";
import type { Mode } from "../merchants/records";

/** A payout's request as the funding check sees it. */
export interface FundingRequest {
  merchantId: string;
  coin: string;
  network: string;
  amount: bigint;
  fee: bigint;
}

/** What the node said before the payout's transaction: the hot wallet's balances, what the payout needs, and when. */
export interface FundingReading {
  chain: ChainAdapter;
  mode: Mode;
  balances: HotWalletBalance[];
  needs: Array<{ coin: string; amount: bigint }>;
  /** When the balances were asked for (the router's clock). */
  readAt: number;
}

/**
 * Reads what the funding check needs from the node, before the payout's transaction (node calls
 * never run under the lock): the hot wallet's balances and what the payout spends
 * (`ChainAdapter.payoutNeeds`: its amount, and gas on EVM). Null when there is nothing to check:
 * test mode, a chain that reports no balances, a merchant whose own balance falls short (it
 * hears that, 42201, from the debit), or a node that cannot be read or does not answer by
 * `deadline` (the payout is then taken unchecked and sent when the node answers). That last skip
 * is said once: to `skipped` (why, in a few words, for the caller's one line about the payout),
 * or else as one warning here.
 *
 * The balance is read fresh rather than taken from the background reading: that one may be a
 * minute old, and a payout sent or a sweep made since would count wrongly.
 */
export async function readHotWalletFunding(
  context: CoreContext,
  mode: Mode,
  chain: ChainAdapter,
  request: FundingRequest,
  held = 0n,
  deadline = new Deadline(REQUEST_NODE_WAIT_MS),
  skipped?: (why: string) => void,
): Promise<FundingReading | null> {
  if (mode !== "live" || !chain.hotWalletBalances) return null;
  // `held`: what the payout's own hold (a refund claim link's) took from the balance already.
  if ((await context.storage.getBalance({ merchantId: request.merchantId, mode }, request.coin)) + held < request.amount + request.fee) return null;
  const readAt = context.now();
  try {
    // A node that does not answer by the request's deadline counts as one that cannot be read.
    const read = await deadline.wait(
      Promise.all([
        chain.hotWalletBalances(),
        chain.payoutNeeds?.({ coin: request.coin, network: request.network, amount: request.amount }) ?? [{ coin: request.coin, amount: request.amount }],
      ]),
    );
    if (!read.done) throw new Error(`the ${request.network} node did not answer within ${deadline.ms / 1000} s`);
    const [balances, needs] = read.value;
    return balances.length === 0 ? null : { chain, mode, balances, needs, readAt };
  } catch (error) {
    // The adapter's message is scrubbed of URLs and keys; its stack says nothing an operator needs.
    const why = `the ${request.network} hot wallet could not be read: ${scrubUrls(error instanceof Error ? error.message : String(error))}`;
    if (skipped) skipped(why);
    else context.logger.warn(`a ${request.coin} payout is taken without the hot wallet's funding check (${why})`);
    return null;
  }
}

/**
 * Refuses (with `hot_wallet_insufficient`; the transaction then rolls back, so nothing is
 * debited) a payout the hot wallet cannot fund: for each coin it spends, the balance read before
 * less the payouts of that coin not yet in that balance must cover it. Runs inside the payout's
 * transaction, first taking a lock on the chain's network (the storage's `lockCursor`, shared by
 * every instance on the storage), so that the check and the payout's insertion are one step:
 * two payouts asked for at once are checked one after the other, the second counting the first.
 *
 * Not yet in the balance read: payouts not broadcast (no txHash; those held for approval too,
 * since an approval sends them without checking again), and those whose txHash was
 * recorded after the read started (broadcast meanwhile; counted again if the node saw them
 * already, which can only refuse too much, never too little). Payouts broadcast before are in
 * the balance the adapter reports (pending block, spent outputs).
 */
export async function refuseIfHotWalletShort(
  context: CoreContext,
  tx: StorageTransaction,
  reading: FundingReading | null,
  request: FundingRequest,
): Promise<void> {
  if (!reading) return;
  const { chain, mode, balances, needs, readAt } = reading;
  await tx.lockCursor(`hot-wallet-funding:${mode}:${request.network}`);
  const waiting = await unsent(context, tx, mode, chain, request.network, readAt);
  for (const need of needs) {
    const balance = balances.find((entry) => entry.coin === need.coin && entry.network === request.network);
    if (!balance) continue;
    const available = balance.amount - (waiting.get(need.coin) ?? 0n);
    if (available >= need.amount) continue;
    const decimals = context.currencies.decimalsOf(need.coin) ?? 0;
    const gas = need.coin === request.coin ? "" : ` for the fee of a ${request.coin} payout`;
    throw new PaymentError(
      "hot_wallet_insufficient",
      `The ${request.network} hot wallet cannot fund this payout right now: it needs ${formatDecimal(need.amount, decimals)} ${need.coin}${gas} and has ${formatDecimal(available > 0n ? available : 0n, decimals)} available. Nothing was debited; try again once the operator has topped it up.`,
    );
  }
}

/**
 * By coin, the amounts of this chain's payouts on `network` that the balance read at `readAt`
 * does not reflect yet: PROCESSING or AWAITING_APPROVAL without a txHash, or sent since. One paged read, in the
 * transaction (after the lock, so it sees every payout accepted before).
 */
async function unsent(
  context: CoreContext,
  tx: StorageTransaction,
  mode: Mode,
  chain: ChainAdapter,
  network: string,
  readAt: number,
): Promise<Map<string, bigint>> {
  const totals = new Map<string, bigint>();
  // Payouts held for approval count as not sent: approved, they are sent without another check.
  for (const status of ["PROCESSING", "AWAITING_APPROVAL"] as const) {
    let after: string | null = null;
    for (;;) {
      const page = await tx.listPayoutsByStatus(mode, status, 500, after);
      for (const payout of page) {
        if (payout.network !== network || context.chains.forPair(mode, payout.coin, network) !== chain) continue;
        if (payout.txHash === null || payout.updatedAt >= readAt) totals.set(payout.coin, (totals.get(payout.coin) ?? 0n) + payout.amount);
      }
      if (page.length < 500) break;
      after = page.at(-1)!.id;
    }
  }
  return totals;
}
